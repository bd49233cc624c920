import AuthMockCore
import AuthMockServer
import AuthMockCertificates
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a case gives its client: placeholder values, the inputs that count as given for `when:`, the
/// environment, and the URL's authority. Every input is a ``ClientInput``, the one list of placeholders.
extension CheckRunner {
    // MARK: - Inputs

    struct Inputs {
        /// Placeholder values, by placeholder name.
        var values: [String: String]
        /// Which inputs the case gives (for profiles' `when:`), by placeholder name.
        var given: Set<String>
        var environment: [String: String]
        /// `host:port` of the URL.
        var authority: String
        /// The AUTHMOCK_* variables the client got, by name (the cell page's reproduce block).
        var variables: [String: String] = [:]
    }

    /// Variables that would send the client's loopback requests elsewhere: never inherited.
    static let proxyVariables: Set<String> = ["http_proxy", "https_proxy", "all_proxy", "no_proxy", "ftp_proxy"]

    /// The environment every client starts from: the runner's, without AUTHMOCK_* and proxy variables.
    var clientEnvironment: [String: String] {
        environment.filter { !$0.key.hasPrefix("AUTHMOCK_") && !Self.proxyVariables.contains($0.key.lowercased()) }
    }

    func inputs(for item: ConformanceCase, server: AuthMockServer, directory: URL) throws -> Inputs {
        let request = item.definition.request
        var values = Self.requestValues(item, server: server)
        Self.addUserValues(item, server: server, to: &values)
        Self.addSecondTransfer(item, server: server, to: &values)
        try Self.placeCredentials(item, directory: directory, in: &values)
        if let tls = server.tls {
            try Self.addTLSValues(tls, give: item.definition.give, to: &values)
        }
        try Self.addFiles(item, directory: directory, to: &values)

        var given = Set(ClientInput.allCases.filter { $0.isGivenWhenSet && values[$0] != nil })
        if request.method != "GET" { given.insert(.method) }
        if request.repeatCount > 1 { given.insert(.repeat) }
        if request.parallel > 1 { given.insert(.parallel) }

        let named = Dictionary(uniqueKeysWithValues: values.map { ($0.key.rawValue, $0.value) })
        var environment = clientEnvironment
        for (input, value) in values { environment[input.environmentName] = value }
        environment.merge(profile.environment(values: named)) { $1 }

        let authority = URLComponents(string: values[.url]!).map { "\($0.host ?? ""):\($0.port ?? 0)" } ?? ""
        return Inputs(
            values: named, given: Set(given.map(\.rawValue)), environment: environment, authority: authority,
            variables: Dictionary(uniqueKeysWithValues: values.map { ($0.key.environmentName, $0.value) })
        )
    }

    /// What the case asks the client to fetch, and how: always given.
    static func requestValues(_ item: ConformanceCase, server: AuthMockServer) -> [ClientInput: String] {
        let request = item.definition.request
        let url = request.plainHTTP ? server.httpURL ?? server.url : server.url
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        var values: [ClientInput: String] = [
            .url: base + request.path, .caseName: item.id, .method: request.method,
            .repeat: String(request.repeatCount), .parallel: String(request.parallel),
        ]
        if let timeout = item.definition.give.timeout {
            // Whole seconds where they are whole: some clients (wget) take no fractions.
            values[.timeout] = timeout == timeout.rounded() ? String(Int(timeout)) : String(timeout)
        }
        return values
    }

    /// The user and the proxy's user, with the passwords the case gives (right or wrong).
    static func addUserValues(_ item: ConformanceCase, server: AuthMockServer, to values: inout [ClientInput: String]) {
        let give = item.definition.give
        if let user = item.scenario.users.first {
            // A user known by a token alone is given as the token, not as a name with an empty password.
            if user.token == nil || !user.password.isEmpty {
                values[.user] = user.name
                values[.password] = give.password == .right ? user.password : Self.wrong(user.password)
                values[.domain] = user.domain
            }
            values[.token] = user.token
        }
        if let oauth = item.scenario.oauth, let client = oauth.clients.first {
            let base = server.url.hasSuffix("/") ? String(server.url.dropLast()) : server.url
            values[.tokenURL] = base + oauth.tokenPath
            values[.clientID] = client.id
            values[.clientSecret] = client.secret
        }
        if let proxyURL = server.proxyURL {
            values[.proxy] = proxyURL
            if give.proxyCA, let proxyTLS = server.proxyTLS { values[.proxyCAFile] = proxyTLS.caFile }
            if let user = item.scenario.proxy?.users.first {
                values[.proxyUser] = user.name
                values[.proxyPassword] = give.proxyPassword == .right ? user.password : Self.wrong(user.password)
            }
        }
        if let socksURL = server.socksURL {
            values[.socksProxy] = socksURL
            if let user = item.scenario.socks5?.users.first {
                values[.socksUser] = user.name
                values[.socksPassword] = give.socksPassword == .right ? user.password : Self.wrong(user.password)
            }
        }
    }

    /// The second transfer's URL and credentials (`then:`): always the right passwords.
    static func addSecondTransfer(
        _ item: ConformanceCase, server: AuthMockServer, to values: inout [ClientInput: String]
    ) {
        guard let then = item.definition.then, let url = values[.url] else { return }
        let path = item.definition.request.path
        let base = url.hasSuffix(path) ? String(url.dropLast(path.count)) : url
        values[.url2] = (then.host == .other ? otherHost(base) : base) + then.path
        if let user = pick(then.user, from: item.scenario.users) {
            values[.user2] = user.name
            values[.password2] = user.password
        }
        if server.proxyURL != nil, let user = pick(then.proxyUser, from: item.scenario.proxy?.users ?? []) {
            values[.proxyUser2] = user.name
            values[.proxyPassword2] = user.password
        }
    }

    static func pick(_ identity: CaseTransfer.Identity, from users: [User]) -> User? {
        switch identity {
        case .first: users.first
        case .second: users.count > 1 ? users[1] : nil
        case .none: nil
        }
    }

    /// The URL with the other loopback name (`localhost` ↔ `127.0.0.1`): another host on the same port.
    static func otherHost(_ url: String) -> String {
        for (name, other) in [("//localhost:", "//127.0.0.1:"), ("//127.0.0.1:", "//localhost:")]
        where url.contains(name) {
            return url.replacing(name, with: other)
        }
        return url
    }

    /// Moves the user's credentials where the case says the application supplies them (`credentials-in:`):
    /// into a header, the URL's userinfo or a netrc file written to the case's directory, instead of
    /// `{user}`/`{password}`.
    static func placeCredentials(
        _ item: ConformanceCase, directory: URL, in values: inout [ClientInput: String]
    ) throws {
        let give = item.definition.give
        guard give.credentialsIn != .arguments, let user = values[.user], let password = values[.password] else {
            return
        }
        values[.user] = nil
        values[.password] = nil
        switch give.credentialsIn {
        case .arguments:
            break
        case .header:
            let value = AppCredentials.headerValue(name: give.header, user: user, password: password)
            values[.header] = "\(give.header): \(value)"
            values[.headerName] = give.header
            values[.headerValue] = value
        case .userinfo:
            values[.url] = values[.url].map { AppCredentials.withUserinfo($0, user: user, password: password) }
        case .netrc:
            let host = values[.url].flatMap { URLComponents(string: $0)?.host } ?? "127.0.0.1"
            let home = directory.appendingPathComponent("home")
            try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
            let file = home.appendingPathComponent(".netrc")
            let text = AppCredentials.netrc(give.netrc, firstHost: host, user: user, password: password)
            try Data(text.utf8).write(to: file)
            // Readable by its owner only: Python's netrc module refuses a ~/.netrc others can read.
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
            values[.netrcFile] = file.path
            values[.home] = home.path
        }
    }

    /// The files a case gives, written to its directory: gss-ntlmssp's credentials file and the body; and
    /// in the cookie cases the path of a cookie jar there, for clients whose cookie engine needs a file.
    static func addFiles(_ item: ConformanceCase, directory: URL, to values: inout [ClientInput: String]) throws {
        if let user = item.scenario.users.first, let password = values[.password] {
            // gss-ntlmssp's credentials file (DOMAIN:user:password), for clients whose Negotiate goes
            // through GSS-API.
            let file = directory.appendingPathComponent("ntlm-users")
            var lines = "\(user.domain ?? ""):\(user.name):\(password)\n"
            if let second = item.scenario.users.first(where: { $0.name == values[.user2] }), second.name != user.name {
                lines += "\(second.domain ?? ""):\(second.name):\(second.password)\n"
            }
            try Data(lines.utf8).write(to: file)
            values[.ntlmUserFile] = file.path
        }
        if item.definition.features.contains("cookies") {
            // Not created: a client's cookie engine writes it (curl `-c`) or reads nothing from it yet.
            values[.cookieJar] = directory.appendingPathComponent("cookies.txt").path
        }
        if let body = item.definition.request.body {
            let file = directory.appendingPathComponent("body.bin")
            try Data(body).write(to: file)
            // On standard input (a pipe the runner fills from the file) the body is `-`, as curl names it.
            if item.definition.request.bodyOnStdin {
                values[.bodyStdin] = "-"
            } else {
                values[.bodyFile] = file.path
            }
        }
    }

    /// The CA file, pin and client certificate a case gives the client.
    static func addTLSValues(_ tls: TLSInfo, give: CaseInputs, to values: inout [ClientInput: String]) throws {
        if give.ca { values[.caFile] = tls.caFile }
        switch give.pin {
        case .none: break
        case .right: values[.pinSHA256] = tls.pinSHA256
        case .wrong: values[.pinSHA256] = try TLSIdentity.unrelatedPin()
        }
        switch give.certificatePin {
        case .none: break
        case .right: values[.certSHA256] = tls.fingerprintSHA256
        case .wrong: values[.certSHA256] = TLSIdentity.unrelatedFingerprint()
        }
        if give.clientCertificate, let user = values[.user], let files = tls.clientCerts?[user] {
            values[.clientCert] = files.certFile
            values[.clientKey] = files.keyFile
        }
    }

    /// A password the server rejects, as close to the right one as a typo.
    static func wrong(_ password: String) -> String { password + "-wrong" }
}
