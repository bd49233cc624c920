import AuthMockCore
import AuthMockServer

/// The human-readable start-up text (stderr): where, who, and a curl command that works.
struct Banner {
    var scenario: Scenario
    var ready: ReadyInfo
    /// Where the listeners are bound (`0.0.0.0:8080`), and whether all of them are loopback addresses.
    var bound: [String] = []
    var loopbackOnly = true
    /// The machine's addresses a wildcard listener takes connections on.
    var reach: [String] = []

    var text: String {
        var lines = [
            "authmock \(AuthMockCommand.version) serving \"\(scenario.name)\""
                + (scenario.description.isEmpty ? "" : ": \(scenario.description)")
        ]
        lines.append("  listening  \(ready.url)  (\(ready.protocols.joined(separator: ", ")))")
        if !loopbackOnly {
            let addresses = reach.isEmpty ? "" : "every address of this machine: \(reach.joined(separator: ", ")); "
            lines.append("  bound      \(bound.joined(separator: ", "))  (\(addresses)reachable beyond loopback)")
        }
        if let http = ready.httpURL { lines.append("  plain      \(http)") }
        if let proxy = ready.proxy {
            let users = proxy.users.map(Self.describe).joined(separator: ", ")
            lines.append("  proxy      \(proxy.url)" + (users.isEmpty ? " (open)" : "  users \(users)"))
            if let tls = proxy.tls { lines.append("  proxy tls  trust \(tls.caFile)") }
        }
        if let socks = ready.socks5 {
            let users = socks.users.map { "\($0.name):\($0.password)" }.joined(separator: ", ")
            lines.append("  socks5     \(socks.url)" + (users.isEmpty ? " (open)" : "  users \(users)"))
        }
        if let tls = ready.tls {
            lines.append("  tls        \(tls.identity ?? "certificate from --cert"): trust \(tls.caFile)")
            lines.append("  pin        \(tls.curlPin)  (sha256 of the leaf: \(tls.fingerprintSHA256))")
            for (user, files) in (tls.clientCerts ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("  client     \(user): --cert \(files.certFile) --key \(files.keyFile)")
            }
        }
        if !scenario.users.isEmpty {
            let users = scenario.users.map(Self.describe).joined(separator: ", ")
            lines.append("  users      \(users)")
        }
        lines.append("  offers     " + scenario.challenges.map(\.summary).joined(separator: "; "))
        if let oauth = ready.oauth {
            lines.append("  token      \(oauth.tokenURL)  (grants \(oauth.grants.joined(separator: ", ")))")
        }
        if let command = tokenCommand { lines.append("  get token  \(command)") }
        if let command = curlCommand { lines.append("  try        \(command)") }
        lines += controlLines
        return lines.joined(separator: "\n")
    }

    /// Where the control plane is and what it needs: the token off loopback, JSON for POSTs everywhere.
    var controlLines: [String] {
        let token = ready.controlToken ?? "TOKEN"
        let header = Self.shellQuote("Authorization: Bearer \(token)")
        if loopbackOnly {
            return [
                "  control    \(ready.control)  (loopback only; token optional: Authorization: Bearer \(token))",
                "  journal    curl -s \(ready.journal)",
            ]
        }
        return [
            "  control    \(ready.control)  needs Authorization: Bearer \(token) (not loopback only);"
                + " POSTs need Content-Type: application/json",
            "  journal    curl -s -H \(header) \(ready.journal)",
        ]
    }

    /// A curl command that asks the token endpoint for a token: client credentials when it takes them,
    /// else the first user's password.
    var tokenCommand: String? {
        guard let oauth = ready.oauth, let client = oauth.clients.first else { return nil }
        var words = ["curl"]
        if let tls = ready.tls { words += ["--cacert", Self.shellQuote(tls.caFile)] }
        if let secret = client.secret {
            words += ["-u", Self.shellQuote("\(client.id):\(secret)")]
        } else {
            words += ["-d", Self.shellQuote("client_id=\(client.id)")]
        }
        if oauth.grants.contains("client_credentials") {
            words += ["-d", "grant_type=client_credentials"]
        } else if let user = scenario.users.first(where: \.knowsPassword), oauth.grants.contains("password") {
            words += ["-d", "grant_type=password", "-d", Self.shellQuote("username=\(user.name)"),
                      "-d", Self.shellQuote("password=\(user.password)")]
        } else {
            return nil
        }
        return (words + [Self.shellQuote(oauth.tokenURL)]).joined(separator: " ")
    }

    /// A curl command that authenticates as the first user against the first protected path.
    var curlCommand: String? {
        guard let user = scenario.users.first else { return nil }
        let resource = scenario.resources.first(where: \.protected) ?? scenario.resources.first
        let path = resource.map { $0.path.hasSuffix("*") ? String($0.path.dropLast()) : $0.path } ?? "/"
        let schemes = Set(scenario.challenges.compactMap(\.authScheme))
        let flag: String
        switch (schemes.contains(.basic), schemes.contains(.digest)) {
        case (true, true): flag = "--anyauth"
        case (false, true): flag = "--digest"
        default: flag = "--basic"
        }
        if scenario.challenges.first?.authScheme == .bearer {
            let staticToken = scenario.users.first { $0.token != nil }?.token
            guard let token = staticToken ?? (ready.oauth != nil ? "ACCESS_TOKEN" : nil) else { return nil }
            var words = ["curl"]
            if let tls = ready.tls { words += ["--cacert", Self.shellQuote(tls.caFile)] }
            words += ["-H", Self.shellQuote("Authorization: Bearer \(token)")]
            return (words + [Self.shellQuote(ready.url + String(path.dropFirst()))]).joined(separator: " ")
        }
        var words = ["curl"]
        if let proxy = ready.proxy {
            words += ["-x", proxy.url]
            if let tls = proxy.tls { words += ["--proxy-cacert", Self.shellQuote(tls.caFile)] }
            if let user = proxy.users.first {
                words += ["--proxy-anyauth", "--proxy-user", Self.shellQuote("\(user.name):\(Self.password(user))")]
            }
        }
        switch scenario.http2.mode {
        case .only: words.append("--http2")
        case .priorKnowledge: words.append("--http2-prior-knowledge")
        case .off, .offer: break
        }
        if let tls = ready.tls {
            words += ["--cacert", Self.shellQuote(tls.caFile)]
            if let client = tls.clientCerts?[user.name] {
                words += ["--cert", Self.shellQuote(client.certFile), "--key", Self.shellQuote(client.keyFile)]
            }
        }
        words += [
            flag, "-u", Self.shellQuote("\(user.name):\(Self.password(user))"),
            Self.shellQuote(ready.url + String(path.dropFirst())),
        ]
        return words.joined(separator: " ")
    }

    /// `alice / wonderland`, `bob (token bob-admin-token)`, or for a user from a file
    /// `alice (bcrypt, users.htpasswd:3)`.
    static func describe(_ user: User) -> String {
        let token = user.token.map { " (token \($0))" } ?? ""
        if user.token != nil, user.password.isEmpty, user.stored == nil { return user.name + token }
        guard let stored = user.stored else { return "\(user.name) / \(user.password)" + token }
        return "\(user.name) (\(stored.scheme)\(user.source.map { ", " + $0 } ?? ""))"
    }

    /// The password for the try-command; a placeholder when only a hash is known.
    static func password(_ user: User) -> String {
        user.knowsPassword ? user.password : "PASSWORD"
    }

    static func shellQuote(_ text: String) -> String {
        let safe = text.unicodeScalars.allSatisfy {
            $0.isASCII
                && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "@%+=:,./-_".unicodeScalars.contains($0))
        }
        return safe ? text : "'" + text.replacing("'", with: "'\\''") + "'"
    }
}
