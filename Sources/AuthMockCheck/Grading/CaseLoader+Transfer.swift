internal import AuthMockCore

/// Reads `case.then:`, a second transfer in the same client run.
extension ScenarioReader {
    /// The `then:` entry of a case whose features are `features`: a case with a second transfer needs the
    /// feature `transfers`, so that clients that make one transfer skip it.
    func caseTransfer(
        _ entry: (key: YAMLNode, value: YAMLNode), features: [String], context: CaseContext
    ) -> CaseTransfer? {
        if !features.contains("transfers") {
            report(
                entry.key, "a case with `then:` needs the feature transfers",
                hint: "add transfers to case.features, so that clients that make one transfer skip it"
            )
        }
        let node = entry.value
        guard let fields = mapping(node, "case.then", allowed: CaseLoader.keys["case.then"]!, required: ["path"]) else {
            return nil
        }
        var transfer = CaseTransfer()
        if let node = fields["path"], let path = string(node, "case.then.path") {
            if path.hasPrefix("/"), !path.contains(where: \.isWhitespace) {
                transfer.path = path
            } else {
                report(node, "path '\(path)' must start with '/' and hold no white space", hint: "e.g. /two")
            }
        }
        if let node = fields["host"] {
            transfer.host = choice(node, "case.then.host", CaseTransfer.Host.self) ?? .same
        }
        if let node = fields["as"] {
            transfer.user = identity(node, "case.then.as", users: context.userCounts.users, noun: "users")
        }
        if let node = fields["proxy-as"] {
            if context.userCounts.proxyUsers == nil {
                report(node, "case.then.proxy-as needs a proxy", hint: "add a `proxy:` section, or remove proxy-as")
            }
            transfer.proxyUser = identity(
                node, "case.then.proxy-as", users: context.userCounts.proxyUsers ?? 0, noun: "proxy users"
            )
        }
        return transfer
    }

    /// `first`, `second` or `none`; `first` and `second` need that many users whose passwords are known.
    private func identity(_ node: YAMLNode, _ field: String, users: Int, noun: String) -> CaseTransfer.Identity {
        guard let identity = choice(node, field, CaseTransfer.Identity.self) else { return .first }
        let needed = identity == .second ? 2 : identity == .first ? 1 : 0
        if users < needed {
            report(
                node, "\(field): \(identity.rawValue) needs \(needed) \(noun) whose passwords the scenario knows",
                hint: "add a user to the scenario, or write none"
            )
        }
        return identity
    }
}

extension ScenarioReader.CaseContext {
    /// How many users and proxy users have passwords the scenario knows (nil: no proxy), for `as: second`.
    static func userCounts(_ scenario: Scenario) -> (users: Int, proxyUsers: Int?) {
        let known = { (users: [User]) in users.allSatisfy(\.knowsPassword) ? users.count : 0 }
        return (known(scenario.users), scenario.proxy.map { known($0.users) })
    }
}
