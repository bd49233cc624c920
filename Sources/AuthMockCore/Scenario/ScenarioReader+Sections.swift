
/// The scenario's other sections: nonce, 401, resources, proxy, TLS, and resource headers.
extension ScenarioReader {
    // MARK: - Nonce, 401, resources

    func noncePolicy(_ node: YAMLNode) -> NoncePolicy {
        var policy = NoncePolicy()
        guard let fields = mapping(node, "nonce", allowed: ScenarioLoader.keys["nonce"]!) else { return policy }
        if let node = fields["lifetime"] { policy.lifetime = duration(node, "nonce.lifetime") }
        if let node = fields["max-uses"] { policy.maxUses = int(node, "nonce.max-uses", in: 1...1_000_000_000) }
        if let node = fields["strict-nc"] { policy.strictNC = bool(node, "nonce.strict-nc") ?? true }
        if let node = fields["stale-first"] {
            policy.staleFirst = int(node, "nonce.stale-first", in: 0...1_000_000) ?? 0
        }
        if let node = fields["remember"] {
            policy.remember = int(node, "nonce.remember", in: 1...10_000_000) ?? policy.remember
        }
        if let node = fields["size"] {
            policy.size = int(node, "nonce.size", in: NoncePolicy.minimumSize...Self.rawValueLimit) ?? policy.size
        }
        return policy
    }

    func unauthorized(_ node: YAMLNode, proxy: Bool = false) -> UnauthorizedResponse {
        var response =
            proxy ? UnauthorizedResponse(body: "407 Proxy Authentication Required\n") : UnauthorizedResponse()
        let what = proxy ? "proxy.unauthorized" : "unauthorized"
        guard let fields = mapping(node, what, allowed: ScenarioLoader.keys[what]!) else { return response }
        if let node = fields["chunked"] { response.chunked = bool(node, "\(what).chunked") ?? false }
        if let node = fields["close"] { response.close = bool(node, "\(what).close") ?? false }
        if let node = fields["status"], let status = int(node, "\(what).status", in: 401...407) {
            if status == 401 || status == 407 {
                response.status = status
            } else {
                report(
                    node, "proxy.unauthorized.status must be 407, or 401 to play a broken proxy",
                    hint: "write 407 or 401"
                )
            }
        }
        if let node = fields["challenge"] { response.sendChallenge = bool(node, "\(what).challenge") ?? true }
        if let node = fields["before-body"] {
            response.beforeBody = choice(node, "\(what).before-body", UnauthorizedResponse.BeforeBody.self) ?? .close
        }
        if let node = fields["body"] { response.body = string(node, "\(what).body", allowEmpty: true) ?? response.body }
        if let node = fields["content-type"] {
            response.contentType = headerValue(node, "\(what).content-type") ?? response.contentType
        }
        return response
    }

    /// - Parameter challenges: the scenario's, which a resource's `schemes:` chooses among.
    func resources(_ node: YAMLNode, challenges: [Challenge]) -> [Resource] {
        guard let items = sequence(node, "resources") else { return [] }
        if items.isEmpty {
            report(
                node, "resources is an empty list",
                hint: "list at least one path, or leave `resources` out to protect /"
            )
        }
        var result: [Resource] = []
        var seen: [String: Int] = [:]
        for item in items {
            guard
                let fields = mapping(item, "a resource", allowed: ScenarioLoader.keys["resource"]!, required: ["path"]),
                let pathNode = fields["path"], let path = string(pathNode, "path")
            else { continue }
            if !path.hasPrefix("/") {
                report(
                    pathNode, "path '\(path)' does not start with '/'",
                    hint: "write it as it appears in the request, e.g. /private"
                )
            } else if ControlPlane.isControl(path)
                || ControlPlane.prefix.hasPrefix(path.filter { $0 != "*" }) && path.hasSuffix("*")
                    && path.count > 2
            {
                report(
                    pathNode, "path '\(path)' is under the reserved control prefix \(ControlPlane.prefix)",
                    hint: "choose another path"
                )
            }
            if path.dropLast().contains("*") || path.contains("?") || path.contains(where: \.isWhitespace) {
                report(
                    pathNode, "path '\(path)' has '*' before its end, a '?' or white space",
                    hint: "paths are exact, or a prefix ending in '*', without query"
                )
            }
            if let line = seen[path] {
                report(pathNode, "path '\(path)' is listed twice", hint: "keep one; the first is on line \(line)")
            }
            seen[path] = pathNode.mark?.line ?? 0

            let protected = fields["protected"].flatMap { bool($0, "protected") } ?? true
            var resource = Resource(path: path, protected: protected)
            if let node = fields["status"] { resource.status = int(node, "status", in: 200...599) ?? 200 }
            if let node = fields["body"] { resource.body = string(node, "body", allowEmpty: true) ?? resource.body }
            if let node = fields["content-type"] {
                resource.contentType = headerValue(node, "content-type") ?? resource.contentType
            }
            if let node = fields["headers"] { resource.headers = headers(node) }
            if let node = fields["set-cookies"] { resource.setCookies = setCookies(node) }
            if let node = fields["schemes"] {
                resource.schemes = resourceSchemes(node, challenges: challenges, protected: protected)
            }
            resource.scope = fields["scope"].flatMap { resourceScope($0, challenges: challenges) }
            result.append(resource)
        }
        return result
    }

    /// A resource's `scope:`, which only a Bearer token can have.
    private func resourceScope(_ node: YAMLNode, challenges: [Challenge]) -> String? {
        if !challenges.contains(where: { $0.authScheme == .bearer }) {
            report(
                node, "scope is for Bearer tokens, and the scenario offers no Bearer challenge",
                hint: "add `- scheme: Bearer` to challenges, or remove scope"
            )
        }
        return scope(node, "a resource's scope")
    }

    /// A resource's `schemes:`: which of the scenario's accepted challenges it offers and accepts.
    private func resourceSchemes(_ node: YAMLNode, challenges: [Challenge], protected: Bool) -> [String]? {
        let offered = challenges.filter(\.isAccepted).map(\.scheme)
        let hint = "name schemes the scenario's challenges offer: "
            + "\(offered.isEmpty ? "none yet" : offered.joined(separator: ", "))"
        guard protected else {
            report(
                node, "schemes has no effect on a resource with protected: false",
                hint: "remove it, or protect the resource"
            )
            return nil
        }
        let names = checkedStrings(node, "schemes", item: "a scheme") { name in
            offered.contains { $0.equalsIgnoringASCIICase(name) }
                ? nil : ("scheme '\(name)' is not one of the scenario's challenges", hint)
        }
        guard let names else { return nil }
        if names.isEmpty, case .sequence(let items) = node, items.isEmpty {
            report(node, "schemes is an empty list", hint: hint)
        }
        return names.isEmpty ? nil : names.map { name in offered.first { $0.equalsIgnoringASCIICase(name) }! }
    }

    // MARK: - Proxy

    func proxySettings(_ node: YAMLNode) -> ProxySettings? {
        guard let fields = mapping(node, "proxy", allowed: ScenarioLoader.keys["proxy"]!) else { return nil }
        let realm = fields["realm"].flatMap { string($0, "proxy.realm") } ?? "authmock proxy"
        if let node = fields["realm"], Self.hasControlCharacter(realm) {
            report(
                node, "proxy.realm contains a line break or control character",
                hint: "it is sent in a header: keep it on one line"
            )
        }
        let users = fields["users"].map { self.users($0, realm: realm) } ?? []
        let challenges = fields["challenges"].map(challenges) ?? []
        if challenges.contains(where: \.isAccepted), users.isEmpty {
            report(
                fields.entries["challenges"]?.key ?? node, "proxy challenges need proxy users",
                hint: "add `users:` under `proxy:`"
            )
        }
        if let node = fields["users"] { checkUserFileFits(users, challenges: challenges, at: node) }
        var settings = ProxySettings(realm: realm, users: users, challenges: challenges)
        if let node = fields["unauthorized"] { settings.unauthorized = unauthorized(node, proxy: true) }
        if let node = fields["faults"] { settings.faults = faults(node, what: "proxy.faults", triggers: [.challenge]) }
        if let node = fields["tls"] { settings.tls = proxyTLS(node) }
        return settings
    }

    /// `proxy.tls: true` (a certificate the scenario's CA signs), `false`, or `{identity: KIND}`.
    func proxyTLS(_ node: YAMLNode) -> ProxyTLSSettings? {
        guard case .mapping = node else {
            if case .scalar(let scalar) = node, scalar.style == .plain, ["true", "false"].contains(scalar.string) {
                return scalar.string == "true" ? ProxyTLSSettings() : nil
            }
            report(
                node, "proxy.tls must be true, false or a mapping, found \(describe(node))",
                hint: "write `tls: true`, or `tls: {identity: self-signed}` for another certificate"
            )
            return nil
        }
        var settings = ProxyTLSSettings()
        guard let fields = mapping(node, "proxy.tls", allowed: ScenarioLoader.keys["proxy.tls"]!) else { return nil }
        if let node = fields["identity"] {
            settings.identity = choice(node, "proxy.tls.identity", IdentityKind.self) ?? settings.identity
        }
        return settings
    }

    // MARK: - TLS

    func tlsSettings(_ node: YAMLNode) -> TLSSettings {
        var settings = TLSSettings()
        guard let fields = mapping(node, "tls", allowed: ScenarioLoader.keys["tls"]!) else { return settings }
        if let node = fields["identity"] {
            settings.identity = choice(node, "tls.identity", IdentityKind.self) ?? settings.identity
        }
        if let node = fields["key"] { settings.keyType = choice(node, "tls.key", KeyType.self) ?? settings.keyType }
        if let node = fields["hosts"], let items = sequence(node, "tls.hosts") {
            let hosts = items.compactMap { string($0, "a host") }
            if hosts.isEmpty {
                report(
                    node, "tls.hosts is empty", hint: "list the names clients connect to, e.g. [localhost, 127.0.0.1]"
                )
            }
            for (item, host) in zip(items, hosts) where host.contains(where: { $0.isWhitespace || $0 == "/" }) {
                report(
                    item, "host '\(host)' is not a DNS name or IP address",
                    hint: "write a name such as localhost or an address such as 127.0.0.1"
                )
            }
            settings.hosts = hosts.isEmpty ? settings.hosts : hosts
        }
        if let node = fields["intermediate"] { settings.intermediate = bool(node, "tls.intermediate") ?? false }
        if let node = fields["client-certificate"] {
            settings.clientCertificate = choice(node, "tls.client-certificate", ClientCertificateMode.self) ?? .none
        }
        if let node = fields["plain-http"] { settings.plainHTTP = bool(node, "tls.plain-http") ?? false }
        if let node = fields["rotate"],
            let rotate = mapping(node, "tls.rotate", allowed: ScenarioLoader.keys["tls.rotate"]!)
        {
            if let node = rotate["after-requests"] {
                settings.rotateAfterRequests = int(node, "tls.rotate.after-requests", in: 1...1_000_000)
            }
            if let node = rotate["keep-key"] { settings.rotateKeepsKey = bool(node, "tls.rotate.keep-key") ?? true }
        }
        if let node = fields["min-version"] {
            settings.minVersion = choice(node, "tls.min-version", TLSProtocolVersion.self) ?? settings.minVersion
        }
        if let node = fields["max-version"] {
            settings.maxVersion = choice(node, "tls.max-version", TLSProtocolVersion.self) ?? settings.maxVersion
        }
        if settings.minVersion > settings.maxVersion, let node = fields["max-version"] ?? fields["min-version"] {
            report(
                node,
                "tls.max-version \(settings.maxVersion.rawValue) is older than tls.min-version "
                    + "\(settings.minVersion.rawValue)",
                hint: "give a max-version at or above min-version (both default to 1.2 and 1.3)"
            )
        }
        return settings
    }

    // MARK: - Headers

    func headerValue(_ node: YAMLNode, _ what: String) -> String? {
        guard let value = string(node, what, allowEmpty: true) else { return nil }
        if Self.hasControlCharacter(value) {
            report(
                node, "\(what) contains a line break or control character",
                hint: "header values are one line of visible characters"
            )
            return nil
        }
        return value
    }

    func headers(_ node: YAMLNode) -> [HeaderField] {
        guard case .mapping(let mapping) = node else {
            report(node, "headers must be a mapping of name: value, found \(describe(node))")
            return []
        }
        var result: [HeaderField] = []
        for (keyNode, valueNode) in mapping {
            guard let name = string(keyNode, "a header name") else { continue }
            guard Self.isToken(name) else {
                report(keyNode, "header name '\(name)' is not an HTTP token", hint: "use letters, digits and -")
                continue
            }
            if HeaderField.framingNames.contains(name.lowercased()) {
                report(keyNode, "header '\(name)' is set by the server itself", hint: "leave it out")
                continue
            }
            if let value = headerValue(valueNode, "header '\(name)'") { result.append(HeaderField(name, value)) }
        }
        return result
    }
}
