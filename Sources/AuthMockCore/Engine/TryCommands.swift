/// The commands a person can paste to talk to a running `serve`: a curl that gets a token from the token
/// endpoint, and a curl that authenticates as the first user against the first protected path. The banner
/// prints them (`get token`, `try`) and the live page shows them while its journal is empty, so both are
/// built here, from the scenario and where the shell bound it.
public struct TryCommands: Sendable, Equatable {
    /// Where the shell bound the scenario, and the files a client needs for it.
    public struct Where: Sendable {
        /// The origin's base URL, ending in `/`.
        public var url: String
        /// The CA file that signs the origin's certificate (with TLS).
        public var caFile: String?
        /// Per user, the client certificate and key files (`--cert`, `--key`).
        public var clientCerts: [String: (certFile: String, keyFile: String)]
        /// The forward proxy's URL, and the CA file of an HTTPS proxy.
        public var proxyURL: String?
        public var proxyCAFile: String?

        public init(
            url: String, caFile: String? = nil, clientCerts: [String: (certFile: String, keyFile: String)] = [:],
            proxyURL: String? = nil, proxyCAFile: String? = nil
        ) {
            self.url = url
            self.caFile = caFile
            self.clientCerts = clientCerts
            self.proxyURL = proxyURL
            self.proxyCAFile = proxyCAFile
        }
    }

    /// `curl … grant_type=… TOKEN_URL`, with an `oauth:` section whose grants a curl can use.
    public var token: String?
    /// `curl --digest -u alice:wonderland http://127.0.0.1:8080/`, with a user to try.
    public var curl: String?

    /// The commands, in the banner's order.
    public var all: [String] { [token, curl].compactMap { $0 } }

    public init(scenario: Scenario, where bound: Where) {
        token = Self.tokenCommand(scenario, bound)
        curl = Self.curlCommand(scenario, bound)
    }

    /// Client credentials when the token endpoint takes them, else the first user's password.
    static func tokenCommand(_ scenario: Scenario, _ bound: Where) -> String? {
        guard let oauth = scenario.oauth, let client = oauth.clients.first else { return nil }
        let grants = oauth.grants.map(\.rawValue)
        var words = ["curl"]
        if let caFile = bound.caFile { words += ["--cacert", shellQuote(caFile)] }
        if let secret = client.secret {
            words += ["-u", shellQuote("\(client.id):\(secret)")]
        } else {
            words += ["-d", shellQuote("client_id=\(client.id)")]
        }
        if grants.contains("client_credentials") {
            words += ["-d", "grant_type=client_credentials"]
        } else if let user = scenario.users.first(where: \.knowsPassword), grants.contains("password") {
            words += ["-d", "grant_type=password", "-d", shellQuote("username=\(user.name)"),
                      "-d", shellQuote("password=\(user.password)")]
        } else {
            return nil
        }
        return (words + [shellQuote(bound.url + String(oauth.tokenPath.dropFirst()))]).joined(separator: " ")
    }

    static func curlCommand(_ scenario: Scenario, _ bound: Where) -> String? {
        guard let user = scenario.users.first else { return nil }
        let resource = scenario.resources.first(where: \.protected) ?? scenario.resources.first
        let path = resource.map { $0.path.hasSuffix("*") ? String($0.path.dropLast()) : $0.path } ?? "/"
        let target = shellQuote(bound.url + String(path.dropFirst()))
        if scenario.challenges.first?.authScheme == .bearer {
            let staticToken = scenario.users.first { $0.token != nil }?.token
            guard let token = staticToken ?? (scenario.oauth != nil ? "ACCESS_TOKEN" : nil) else { return nil }
            var words = ["curl"]
            if let caFile = bound.caFile { words += ["--cacert", shellQuote(caFile)] }
            words += ["-H", shellQuote("Authorization: Bearer \(token)")]
            return (words + [target]).joined(separator: " ")
        }
        var words = ["curl"]
        if let proxy = bound.proxyURL {
            words += ["-x", proxy]
            if let caFile = bound.proxyCAFile { words += ["--proxy-cacert", shellQuote(caFile)] }
            if let user = scenario.proxy?.users.first {
                words += ["--proxy-anyauth", "--proxy-user", shellQuote("\(user.name):\(password(user))")]
            }
        }
        switch scenario.http2.mode {
        case .only: words.append("--http2")
        case .priorKnowledge: words.append("--http2-prior-knowledge")
        case .off, .offer: break
        }
        if let caFile = bound.caFile {
            words += ["--cacert", shellQuote(caFile)]
            if let client = bound.clientCerts[user.name] {
                words += ["--cert", shellQuote(client.certFile), "--key", shellQuote(client.keyFile)]
            }
        }
        return (words + [flag(scenario), "-u", shellQuote("\(user.name):\(password(user))"), target])
            .joined(separator: " ")
    }

    /// `--anyauth` when Basic and Digest are both offered, `--digest` for Digest alone, else `--basic`.
    static func flag(_ scenario: Scenario) -> String {
        let schemes = Set(scenario.challenges.compactMap(\.authScheme))
        switch (schemes.contains(.basic), schemes.contains(.digest)) {
        case (true, true): return "--anyauth"
        case (false, true): return "--digest"
        default: return "--basic"
        }
    }

    /// The password for the try-command; a placeholder when only a hash is known.
    public static func password(_ user: User) -> String {
        user.knowsPassword ? user.password : "PASSWORD"
    }

    /// The text as one shell word: as it is when it is safe, else in single quotes.
    public static func shellQuote(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "@%+=:,./-_".unicodeScalars.contains($0))
        }
        return safe ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
