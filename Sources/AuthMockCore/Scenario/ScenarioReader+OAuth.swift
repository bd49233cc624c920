/// The `oauth:` section, the users' Bearer tokens and scopes, and the rules that tie them to the challenges.
extension ScenarioReader {
    func oauth(_ node: YAMLNode, users: [User]) -> OAuthSettings? {
        guard let fields = mapping(node, "oauth", allowed: ScenarioLoader.keys["oauth"]!, required: ["clients"]) else {
            return nil
        }
        var settings = OAuthSettings(clients: [])
        if let pathNode = fields["token-path"], let path = string(pathNode, "oauth.token-path") {
            if !path.hasPrefix("/") || path.contains("*") || path.contains("?") || path.contains(where: \.isWhitespace)
            {
                report(
                    pathNode, "oauth.token-path '\(path)' is not a plain path",
                    hint: "write a path such as /oauth/token")
            } else if ControlPlane.isControl(path) {
                report(
                    pathNode, "oauth.token-path '\(path)' is under the reserved control prefix \(ControlPlane.prefix)",
                    hint: "choose another path, such as /oauth/token"
                )
            }
            settings.tokenPath = path
        }
        settings.clients = fields["clients"].map(oauthClients) ?? []
        if let grantsNode = fields["grants"] {
            let names = OAuthGrant.allCases.map(\.rawValue)
            let grants = checkedStrings(grantsNode, "grants", item: "a grant type") { name in
                names.contains(name)
                    ? nil
                    : (
                        "grant type '\(name)' is not one authmock's token endpoint takes",
                        Suggestion.hint(for: name, in: names, noun: "grant types")
                    )
            }
            if let grants {
                if grants.isEmpty { report(grantsNode, "oauth.grants is empty", hint: "name at least one grant type") }
                settings.grants = grants.compactMap(OAuthGrant.init(rawValue:))
            }
        }
        settings.scope = fields["scope"].flatMap { scope($0, "oauth.scope") }
        tokenPolicies(fields, into: &settings)
        if settings.grants.contains(.password),
            let hashed = users.first(where: { $0.stored != nil })
        {
            report(
                fields["grants"],
                "the password grant checks passwords in clear, and '\(hashed.name)' comes from a file",
                hint: "list the users with `password:`, or leave out the password grant"
            )
        }
        return settings
    }

    /// `access-token:` and `refresh-token:`.
    private func tokenPolicies(_ fields: Fields, into settings: inout OAuthSettings) {
        if let tokenNode = fields["access-token"],
            let token = mapping(tokenNode, "oauth.access-token", allowed: ScenarioLoader.keys["oauth.access-token"]!)
        {
            if let lifetime = token["lifetime"] { settings.accessToken.lifetime = duration(lifetime, "lifetime") }
            settings.accessToken.uses = token["uses"].flatMap { int($0, "uses", in: 1...1_000_000_000) }
            if let node = token["format"], let name = string(node, "format") {
                if let format = AccessTokenFormat(rawValue: name) {
                    settings.accessToken.format = format
                } else {
                    report(node, "access token format '\(name)' is not known", hint: "write opaque or jwt")
                }
            }
        }
        if let refreshNode = fields["refresh-token"],
            let refresh = mapping(
                refreshNode, "oauth.refresh-token", allowed: ScenarioLoader.keys["oauth.refresh-token"]!
            )
        {
            settings.refreshToken.rotate = refresh["rotate"].flatMap { bool($0, "rotate") } ?? true
            settings.refreshToken.reuseDetection =
                refresh["reuse-detection"].flatMap { bool($0, "reuse-detection") } ?? true
        }
    }

    private func oauthClients(_ node: YAMLNode) -> [OAuthClient] {
        guard let items = sequence(node, "oauth.clients") else { return [] }
        if items.isEmpty { report(node, "oauth.clients is empty", hint: "add a client: `- {id: app, secret: s3cret}`") }
        var clients: [OAuthClient] = []
        for item in items {
            guard
                let fields = mapping(
                    item, "an OAuth client", allowed: ScenarioLoader.keys["oauth client"]!, required: ["id"]
                ),
                let idNode = fields["id"], let id = string(idNode, "a client's id")
            else { continue }
            if clients.contains(where: { $0.id == id }) {
                report(idNode, "client '\(id)' is listed twice", hint: "give each client its own id")
            }
            if Self.hasControlCharacter(id) || id.contains(":") {
                report(
                    idNode, "client id '\(id)' has a ':' or a control character", hint: "use letters, digits, '-', '_'")
            }
            let secret = fields["secret"].flatMap { string($0, "a client's secret") }
            clients.append(OAuthClient(id: id, secret: secret, scope: fields["scope"].flatMap { scope($0, "scope") }))
        }
        return clients
    }

    /// A Bearer token as RFC 6750 §2.1 writes it (`b64token`); nil (reported) otherwise.
    func bearerToken(_ node: YAMLNode, _ what: String) -> String? {
        guard let token = string(node, what) else { return nil }
        guard BearerToken.isValid(token) else {
            report(
                node, "\(what) '\(token)' is not a Bearer token (RFC 6750 §2.1)",
                hint: "use letters, digits and -._~+/, with '=' only at the end"
            )
            return nil
        }
        return token
    }

    /// Space-separated scope tokens (RFC 6749 §3.3); nil (reported) otherwise.
    func scope(_ node: YAMLNode, _ what: String) -> String? {
        guard let text = string(node, what) else { return nil }
        let tokens = text.split(separator: " ", omittingEmptySubsequences: false)
        let valid = tokens.allSatisfy { token in
            !token.isEmpty
                && token.unicodeScalars.allSatisfy {
                    $0.value == 0x21 || (0x23...0x7E).contains($0.value) && $0 != "\\"
                }
        }
        guard valid else {
            report(
                node, "\(what) '\(text)' is not a list of scope tokens (RFC 6749 §3.3)",
                hint: "separate printable ASCII words (no '\"' or '\\') with single spaces, e.g. 'read write'"
            )
            return nil
        }
        return text
    }

    /// Bearer's rules across sections: tokens and `oauth:` need a Bearer challenge, tokens are unique, and the
    /// token endpoint is not one of the resources.
    func checkBearer(_ scenario: Scenario, fields: Fields, usersNode: YAMLNode?) {
        let offersBearer =
            scenario.challenges.contains { $0.authScheme == .bearer }
            || scenario.proxy?.challenges.contains { $0.authScheme == .bearer } == true
        if let oauth = scenario.oauth, let node = fields["oauth"] {
            if !offersBearer {
                report(
                    node, "oauth issues Bearer tokens, and no challenge accepts them", hint: "add `- scheme: Bearer`")
            }
            if let resource = scenario.resources.first(where: { $0.matches(path: oauth.tokenPath) }) {
                report(
                    node, "the token endpoint \(oauth.tokenPath) is also served by the resource \(resource.path)",
                    hint: "set oauth.token-path to a path no resource matches"
                )
            }
        }
        var seen: Set<String> = []
        for user in scenario.users {
            guard let token = user.token else { continue }
            if !offersBearer {
                report(
                    usersNode, "\(user.name) has a token, and no challenge accepts Bearer",
                    hint: "add `- scheme: Bearer`")
            }
            if !seen.insert(token).inserted {
                report(usersNode, "two users have the token '\(token)'", hint: "give each user a token of their own")
            }
        }
    }
}

/// What a Bearer token may look like.
enum BearerToken {
    /// RFC 6750 §2.1: `1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`.
    static func isValid(_ token: some StringProtocol) -> Bool {
        isValid(token.utf8)
    }

    static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var sawPadding = false
        var count = 0
        for byte in bytes {
            if byte == UInt8(ascii: "=") {
                guard count > 0 else { return false }
                sawPadding = true
            } else {
                guard !sawPadding, isTokenCharacter(byte) else { return false }
                count += 1
            }
        }
        return count > 0
    }

    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
            UInt8(ascii: "/"):
            true
        default: false
        }
    }
}
