/// Where a request to the forward proxy wants to go: `CONNECT host:port` or `GET http://host:port/path`.
public struct ProxyTarget: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var isConnect: Bool
    /// For absolute-form requests: the origin-form target (`/path?query`) to hand to the origin.
    public var originForm: String

    /// Longest target accepted; longer ones are refused (414).
    public static let maxLength = 4096

    public static func parse(method: String, target: String) throws(ProxyTargetError) -> ProxyTarget {
        guard target.utf8.count <= maxLength else { throw ProxyTargetError(status: 414, "the request target is \(target.utf8.count) bytes, more than \(maxLength)") }
        if method == "CONNECT" {
            let (host, port) = try authority(target, defaultPort: nil)
            return ProxyTarget(host: host, port: port, isConnect: true, originForm: "")
        }
        let lower = target.lowercased()
        if lower.hasPrefix("https://") {
            throw ProxyTargetError(status: 400, "absolute-form https:// targets are not forwarded; use CONNECT for HTTPS")
        }
        guard lower.hasPrefix("http://") else {
            throw ProxyTargetError(status: 400, "a proxy request needs absolute-form (http://host/path) or CONNECT, not '\(target.prefix(100))'")
        }
        let rest = target.dropFirst("http://".count)
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let (host, port) = try authority(String(rest[..<authorityEnd]), defaultPort: 80)
        var originForm = String(rest[authorityEnd...])
        if originForm.isEmpty || originForm.hasPrefix("?") { originForm = "/" + originForm }
        return ProxyTarget(host: host, port: port, isConnect: false, originForm: originForm)
    }

    /// Whether the host is a loopback name or address: the only places authmock's proxy goes.
    public var isLoopback: Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" { return true }
        let parts = h.split(separator: ".")
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    private static func authority(_ text: String, defaultPort: Int?) throws(ProxyTargetError) -> (String, Int) {
        guard !text.isEmpty else { throw ProxyTargetError(status: 400, "the target has no host") }
        guard !text.contains("@") else { throw ProxyTargetError(status: 400, "userinfo in the proxy target is not allowed") }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw ProxyTargetError(status: 400, "unterminated IPv6 address in '\(text)'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { throw ProxyTargetError(status: 400, "bad authority '\(text)'") }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = Substring(text)
        }
        guard !host.isEmpty, host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" }) else {
            throw ProxyTargetError(status: 400, "the target has no valid host ('\(text.prefix(100))')")
        }
        let port: Int
        if let portText {
            // `port = *DIGIT` (RFC 3986 §3.2.3): Int(_:) would also take a sign.
            guard portText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(portText),
                (1...65535).contains(value)
            else { throw ProxyTargetError(status: 400, "bad port in '\(text.prefix(100))'") }
            port = value
        } else if let defaultPort {
            port = defaultPort
        } else {
            throw ProxyTargetError(status: 400, "CONNECT needs host:port, got '\(text.prefix(100))'")
        }
        return (String(host), port)
    }
}

public struct ProxyTargetError: Error, Equatable {
    public var status: Int
    public var reason: String
    init(status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
}
