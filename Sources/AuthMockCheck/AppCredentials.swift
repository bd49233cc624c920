import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The credentials an application supplies itself, as a case gives them (`case.give.credentials-in`): the
/// value of a header it sets, a URL with userinfo, the text of a netrc file. Pure: the runner writes the file.
enum AppCredentials {
    /// `Basic base64(user:password)` for `Authorization` and `Proxy-Authorization`; the password itself for any
    /// other header (an API key: the user's secret stands for the key).
    static func headerValue(name: String, user: String, password: String) -> String {
        let basic = ["authorization", "proxy-authorization"].contains(name.lowercased())
        return basic ? "Basic " + Data("\(user):\(password)".utf8).base64EncodedString() : password
    }

    /// The URL with `user:password@` before its host, both percent-encoded as RFC 3986 §3.2.1 userinfo
    /// (`@`, `:`, `/` and everything outside the unreserved set escaped).
    static func withUserinfo(_ url: String, user: String, password: String) -> String {
        insertUserinfo(escape(user) + ":" + escape(password), into: url)
    }

    /// `localhost` ↔ `127.0.0.1`: the other name of the same server (`{other_host_url}`).
    static func otherLoopbackName(_ host: String) -> String {
        host == "localhost" ? "127.0.0.1" : "localhost"
    }

    /// A netrc file (the format of inetutils' ftp(1), which curl, Python's `netrc` and wget read): one entry a
    /// line, `machine HOST login USER password SECRET`, or `default …`, parts left out as the entry says.
    static func netrc(
        _ entries: [CaseInputs.NetrcEntry], firstHost: String, user: String, password: String
    ) -> String {
        entries.map { entry in
            var words: [String]
            switch entry.machine {
            case .first: words = ["machine", firstHost]
            case .other: words = ["machine", otherLoopbackName(firstHost)]
            case .default: words = ["default"]
            }
            if entry.login == .right { words += ["login", user] }
            if entry.password == .right { words += ["password", password] }
            return words.joined(separator: " ") + "\n"
        }.joined()
    }

    private static func insertUserinfo(_ userinfo: String, into url: String) -> String {
        guard let schemeEnd = url.firstRange(of: "://") else { return url }
        return String(url[..<schemeEnd.upperBound]) + userinfo + "@" + String(url[schemeEnd.upperBound...])
    }

    private static func escape(_ text: String) -> String {
        // RFC 3986 §2.3's unreserved characters stay as they are.
        PercentEncoding.encode(text, allowing: PercentEncoding.isUnreserved)
    }
}
