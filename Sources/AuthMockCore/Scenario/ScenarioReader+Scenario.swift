
/// The scenario's own sections: the root, users and user files, and the rules that span sections.
extension ScenarioReader {
    /// Reads a scenario file's root. The runner's sections (`case:`, `expect:`) are accepted and left to
    /// `sections`, which is called with the scenario read so far, before the rules that span sections:
    /// where those problems have always been reported, so that a file's diagnostics keep their order.
    package func scenario(_ root: YAMLNode, sections: (_ fields: Fields, _ scenario: Scenario) -> Void) -> Scenario? {
        guard
            let fields = mapping(
                root, "the scenario", allowed: ScenarioLoader.keys["scenario"]!, required: ["version", "name"]
            )
        else {
            return nil
        }
        if let node = fields["version"], let version = int(node, "version", in: 0...Int.max),
            version != Scenario.schemaVersion
        {
            report(
                node, "schema version \(version) is not supported",
                hint: "this authmock reads `version: \(Scenario.schemaVersion)`"
            )
        }
        let name = fields["name"].flatMap { string($0, "name") } ?? ""
        if let node = fields["name"], !name.isEmpty, !Self.isIdentifier(name) {
            report(
                node, "name '\(name)' has characters other than letters, digits, '.', '_' and '-'",
                hint: "use a short identifier such as `digest-sha256`"
            )
        }
        let description = fields["description"].flatMap { string($0, "description", allowEmpty: true) } ?? ""
        let realm = self.realm(fields)

        let reportedBeforeUsers = diagnostics.count
        let users = fields["users"].map { self.users($0, realm: realm) } ?? []
        let usersHadErrors = diagnostics.count > reportedBeforeUsers
        let reportedBefore = diagnostics.count
        let challenges = fields["challenges"].map(challenges) ?? []
        let challengesHadErrors = diagnostics.count > reportedBefore
        let style = challengeStyle(fields)
        let nonce = fields["nonce"].map(noncePolicy) ?? NoncePolicy()
        let unauthorized = fields["unauthorized"].map { self.unauthorized($0) } ?? UnauthorizedResponse()
        let resources = fields["resources"].map { self.resources($0, challenges: challenges) } ?? [Resource(path: "/")]
        let tls = fields["tls"].map(tlsSettings)
        let oauth = fields["oauth"].flatMap { self.oauth($0, users: users) }
        let clients = oauth?.clients.map(\.id) ?? []
        let timeline = fields["timeline"].map { timelineSteps($0, users: users, clients: clients) } ?? []
        let proxy = fields["proxy"].flatMap(proxySettings)
        let secondPort = fields["second-port"].flatMap { bool($0, "second-port") } ?? false
        let faults = fields["faults"].map { self.faults($0, what: "faults") } ?? []
        let http2 = fields["http2"].map { self.http2($0, tls: tls != nil) } ?? HTTP2Policy()
        let subdomains = fields["subdomains"].flatMap { bool($0, "subdomains") } ?? false
        var scenario = Scenario(
            name: name, description: description, realm: realm, users: users, challenges: challenges,
            challengeStyle: style, nonce: nonce, unauthorized: unauthorized, resources: resources, tls: tls,
            timeline: timeline, proxy: proxy, secondPort: secondPort, faults: faults, http2: http2
        )
        scenario.subdomains = subdomains
        scenario.socks5 = fields["socks5"].flatMap(socks5Settings)
        scenario.oauth = oauth
        sections(fields, scenario)
        checkAcrossSections(
            scenario, fields: fields, root: root, usersHadErrors: usersHadErrors,
            challengesHadErrors: challengesHadErrors
        )
        return scenario
    }

    /// The root's `realm:`: text, or pieces for a hostile size (`[{repeat: r, times: 20000}]`).
    private func realm(_ fields: Fields) -> String {
        var realm = "authmock"
        if let node = fields["realm"] {
            if case .sequence = node {
                realm = pieces(node, "realm").map { RawChallenge(pieces: $0).value } ?? realm
            } else if let text = string(node, "realm") {
                realm = text
                if Self.hasControlCharacter(realm) {
                    report(
                        node, "realm contains a line break or control character",
                        hint: "it is sent in a header: keep it on one line"
                    )
                }
            }
        }
        return realm
    }

    /// The root's `challenge-style:`; separate fields when absent or unknown.
    private func challengeStyle(_ fields: Fields) -> ChallengeStyle {
        var style = ChallengeStyle.separateFields
        if let node = fields["challenge-style"], let text = string(node, "challenge-style") {
            if let parsed = ChallengeStyle(rawValue: text) {
                style = parsed
            } else {
                report(
                    node, "challenge-style '\(text)' is not known",
                    hint: Suggestion.hint(for: text, in: ChallengeStyle.allCases.map(\.rawValue))
                )
            }
        }
        return style
    }

    /// `http2: offer`, or a mapping with `mode:` and `connection-auth:`. TLS modes need `tls:`, prior
    /// knowledge needs plain HTTP.
    func http2(_ node: YAMLNode, tls: Bool) -> HTTP2Policy {
        var settings = HTTP2Policy()
        var modeNode = node
        if case .mapping = node {
            guard let fields = mapping(node, "http2", allowed: ScenarioLoader.keys["http2"]!, required: ["mode"]) else {
                return settings
            }
            guard let mode = fields["mode"] else { return settings }
            modeNode = mode
            if let auth = fields["connection-auth"] {
                settings.connectionAuth =
                    choice(auth, "http2.connection-auth", HTTP2Policy.ConnectionAuth.self) ?? .reset
            }
        }
        guard let mode = choice(modeNode, "http2", HTTP2Policy.Mode.self) else { return settings }
        switch mode {
        case .offer where !tls, .only where !tls:
            report(
                modeNode, "http2: \(mode.rawValue) negotiates h2 in the TLS handshake, and this scenario has no `tls:`",
                hint: "add `tls:`, or write `http2: prior-knowledge` for h2 over plain HTTP"
            )
        case .priorKnowledge where tls:
            report(
                modeNode, "http2: prior-knowledge is h2 over plain HTTP, and this scenario serves TLS",
                hint: "write `http2: offer` (ALPN h2 and http/1.1) or `http2: only`"
            )
        case .off where settings.connectionAuth != .reset:
            report(
                modeNode, "http2.connection-auth has no effect when HTTP/2 is off",
                hint: "write `mode: offer`, or remove `connection-auth`"
            )
        default:
            break
        }
        settings.mode = mode
        return settings
    }

    /// Rules that span sections (skipped where a section's own errors already explain the gap).
    func checkAcrossSections(
        _ scenario: Scenario, fields: Fields, root: YAMLNode, usersHadErrors: Bool, challengesHadErrors: Bool
    ) {
        if let node = fields["resources"] {
            checkLinks(
                node, secondPort: scenario.secondPort, plainHTTP: scenario.tls?.plainHTTP == true,
                subdomains: scenario.subdomains
            )
        }
        if scenario.resources.contains(where: \.protected), scenario.challenges.isEmpty, !challengesHadErrors {
            report(
                fields["challenges"] ?? root, "protected resources need at least one challenge",
                hint: "add `challenges:` with `- scheme: Basic` or `- scheme: Digest`"
            )
        }
        checkBearer(scenario, fields: fields, usersNode: fields["users"])
        // Bearer tokens may all come from the token endpoint's clients (client credentials).
        let needsUsers = scenario.challenges.contains {
            $0.isAccepted && !($0.authScheme == .bearer && scenario.oauth != nil)
        }
        if let node = fields["users"] { checkUserFileFits(scenario.users, challenges: scenario.challenges, at: node) }
        if needsUsers, scenario.users.isEmpty, !usersHadErrors {
            report(
                fields.entries["challenges"]?.key ?? root, "Basic and Digest challenges need users",
                hint: "add `users:` with `- name: alice` and `password: …`"
            )
        }
    }

    /// `{name}` in resource headers must name a listener the scenario has; otherwise a redirect would
    /// point nowhere and a client would be blamed for it.
    func checkLinks(_ resourcesNode: YAMLNode, secondPort: Bool, plainHTTP: Bool, subdomains: Bool) {
        guard case .sequence(let items) = resourcesNode else { return }
        for item in items {
            guard case .mapping(let resource) = item, let headersNode = resource["headers"],
                case .mapping(let headers) = headersNode
            else { continue }
            for (_, valueNode) in headers {
                guard case .scalar(let scalar) = valueNode else { continue }
                for name in Self.placeholderNames(in: scalar.string) {
                    switch name {
                    case "second_url" where !secondPort:
                        report(
                            valueNode, "{second_url} names the second port, which this scenario does not open",
                            hint: "add `second-port: true`"
                        )
                    case "http_url" where !plainHTTP:
                        report(
                            valueNode, "{http_url} names the plain-HTTP listener, which this scenario does not open",
                            hint: "add `plain-http: true` under tls:"
                        )
                    case "subdomain_url" where !subdomains, "sibling_url" where !subdomains:
                        report(
                            valueNode, "{\(name)} names this server under a loopback name, which it is not given",
                            hint: "add `subdomains: true`"
                        )
                    case _ where Engine.linkNames.contains(name):
                        break
                    default:
                        if let close = Suggestion.closest(to: name, in: Engine.linkNames) {
                            report(
                                valueNode, "{\(name)} is not a listener's name",
                                hint: "did you mean {\(close)}? "
                                    + "(known: \(Engine.linkNames.map { "{\($0)}" }.joined(separator: ", ")))"
                            )
                        }
                    }
                }
            }
        }
    }
    // MARK: - Users

    func users(_ node: YAMLNode, realm: String) -> [User] {
        if case .mapping = node { return usersFromFile(node, realm: realm) }
        guard let items = sequence(node, "users") else { return [] }
        var users: [User] = []
        var seen: [String: Int] = [:]
        for item in items {
            guard
                let fields = mapping(item, "a user", allowed: ScenarioLoader.keys["user"]!, required: ["name"])
            else { continue }
            // A user known by a Bearer token alone needs no password.
            if fields["password"] == nil, fields["token"] == nil {
                report(item, "a user has no 'password'", hint: "add `password: …`")
                continue
            }
            guard let name = fields["name"].flatMap({ string($0, "a user's name") }) else { continue }
            var password = ""
            if let node = fields["password"] {
                guard let text = string(node, "a user's password", allowEmpty: true) else { continue }
                password = text
            }
            let token = fields["token"].flatMap { bearerToken($0, "a user's token") }
            let scope = fields["scope"].flatMap { self.scope($0, "a user's scope") }
            let domain = fields["domain"].flatMap { string($0, "a user's domain") }
            if name.contains(":") {
                report(
                    fields["name"], "user name '\(name)' contains ':'",
                    hint: "Basic separates user and password with ':', so names cannot hold one"
                )
            }
            if let line = seen[name] {
                report(fields["name"], "user '\(name)' is listed twice", hint: "keep one; the first is on line \(line)")
            }
            seen[name] = fields["name"]?.mark?.line ?? 0
            var user = User(name: name, password: password, domain: domain)
            user.token = token
            user.scope = scope
            users.append(user)
        }
        return users
    }

    /// `users: {htpasswd: FILE}` or `users: {htdigest: FILE}`, relative to the scenario file.
    func usersFromFile(_ node: YAMLNode, realm: String) -> [User] {
        guard let fields = mapping(node, "users (a user file)", allowed: ScenarioLoader.keys["users file"]!) else {
            return []
        }
        let kinds = ScenarioLoader.keys["users file"]!.filter { fields[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first, let pathNode = fields[kind],
            let path = string(pathNode, "users.\(kind)")
        else {
            if kinds.count != 1 {
                report(
                    node, "users: takes one user file, htpasswd or htdigest",
                    hint: "write `users: {htpasswd: users.htpasswd}`, or list the users"
                )
            }
            return []
        }
        let resolved = ScenarioFileReader.resolve(path, relativeTo: file)
        let text: String
        do {
            text = try files.read(resolved)
        } catch {
            report(
                pathNode, "cannot read the \(kind) file '\(resolved)' (\(ScenarioFileReader.reason(error)))",
                hint: "the path is relative to the scenario file's directory"
            )
            return []
        }
        let users: [User]
        let fileDiagnostics: [ScenarioDiagnostic]
        if kind == "htpasswd" {
            (users, fileDiagnostics) = UserFile.htpasswd(text, file: resolved)
        } else {
            let read = UserFile.htdigest(text, file: resolved)
            (users, fileDiagnostics) = (read.users.filter { $0.realm == realm }.map(\.user), read.diagnostics)
            if users.isEmpty, read.diagnostics.isEmpty, !read.users.isEmpty {
                let realms = Array(Set(read.users.map(\.realm))).sorted().map { "'\($0)'" }.joined(separator: ", ")
                report(
                    pathNode, "no user in '\(resolved)' belongs to the realm '\(realm)'",
                    hint: "htdigest entries are made for one realm; this file has \(realms): "
                        + "set `realm:` to one of them"
                )
                return []
            }
        }
        diagnostics += fileDiagnostics
        // Judged by this file's own problems, not by any found earlier in the scenario.
        if users.isEmpty, fileDiagnostics.isEmpty {
            report(
                pathNode, "the \(kind) file '\(resolved)' holds no users",
                hint: "add one with "
                    + "`\(kind == "htpasswd" ? "htpasswd -B FILE alice" : "htdigest FILE '\(realm)' alice")`"
            )
        }
        return users
    }

    /// What a user file cannot do: htpasswd hashes serve Basic only; htdigest entries serve Basic and
    /// Digest with MD5 or MD5-sess. NTLM and Negotiate need the password itself.
    func checkUserFileFits(_ users: [User], challenges: [Challenge], at node: YAMLNode) {
        let fromHtpasswd = users.contains { if case .htdigest? = $0.stored { false } else { $0.stored != nil } }
        let fromHtdigest = users.contains { if case .htdigest? = $0.stored { true } else { false } }
        guard fromHtpasswd || fromHtdigest else { return }
        for challenge in challenges {
            switch challenge {
            case .basic, .custom, .raw, .bearer:
                continue
            case .digest(let digest):
                if fromHtpasswd {
                    report(
                        node, "Digest cannot use an htpasswd file: its hashes cannot make Digest's H(A1)",
                        hint: "use an htdigest file (`htdigest -c FILE realm name`), or list the users with passwords"
                    )
                    return
                }
                if let other = digest.algorithm, other != .md5, other != .md5Sess {
                    report(
                        node, "Digest with \(other.token) cannot use an htdigest file: it holds MD5 hashes only",
                        hint: "offer `algorithm: MD5` (or MD5-sess), or list the users with passwords"
                    )
                    return
                }
            case .ntlm, .negotiate:
                report(
                    node, "NTLM and Negotiate need the users' passwords, which a user file does not hold",
                    hint: "list the users with `name:` and `password:`"
                )
                return
            }
        }
    }
}
