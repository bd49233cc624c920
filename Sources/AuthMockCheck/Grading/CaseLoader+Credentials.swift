import AuthMockCore

/// Reads where a case puts the user's credentials (`case.give.credentials-in`, `header`, `netrc`): the
/// credentials an application supplies itself, in a header it sets, in the URL or in a netrc file.
extension ScenarioReader {
    /// The `credentials-in:`, `header:` and `netrc:` keys of `case.give`, into `inputs`.
    func credentialInputs(_ fields: Fields, hasUsers: Bool, into inputs: inout CaseInputs) {
        for key in ["credentials-in", "header", "netrc"] where !hasUsers {
            if let keyNode = fields.entries[key]?.key {
                report(
                    keyNode, "case.give.\(key) cannot be given: the scenario has no users whose passwords it knows",
                    hint: "add a user with a password, or remove it"
                )
            }
        }
        if let node = fields["credentials-in"] {
            inputs.credentialsIn = choice(node, "case.give.credentials-in", CaseInputs.CredentialPlace.self)
                ?? .arguments
        } else if fields["header"] != nil {
            inputs.credentialsIn = .header
        } else if fields["netrc"] != nil {
            inputs.credentialsIn = .netrc
        }
        if let node = fields["header"], let name = string(node, "case.give.header") {
            if !Self.isToken(name) {
                report(node, "header '\(name)' is not a header name", hint: "write a token such as X-Api-Key")
            } else if inputs.credentialsIn != .header {
                report(
                    node, "case.give.header names the header of credentials-in: header",
                    hint: "write credentials-in: header, or remove header"
                )
            } else {
                inputs.header = name
            }
        }
        if let node = fields["netrc"] {
            if inputs.credentialsIn != .netrc {
                report(
                    node, "case.give.netrc lists the entries of credentials-in: netrc",
                    hint: "write credentials-in: netrc, or remove netrc"
                )
            }
            if let items = sequence(node, "case.give.netrc") {
                if items.isEmpty {
                    report(
                        node, "case.give.netrc is an empty list", hint: "give at least one entry, e.g. {machine: first}"
                    )
                }
                inputs.netrc = items.compactMap(netrcEntry)
            }
        }
    }

    /// One `{machine: first|other|default, login: right|none, password: right|none}`.
    private func netrcEntry(_ node: YAMLNode) -> CaseInputs.NetrcEntry? {
        let allowed = CaseLoader.keys["case.give.netrc"]!
        guard let fields = mapping(node, "a netrc entry", allowed: allowed, required: ["machine"]) else { return nil }
        var entry = CaseInputs.NetrcEntry()
        guard let machineNode = fields["machine"],
            let machine = choice(machineNode, "netrc.machine", CaseInputs.NetrcEntry.Machine.self)
        else { return nil }
        entry.machine = machine
        if let node = fields["login"] {
            entry.login = choice(node, "netrc.login", CaseInputs.NetrcEntry.Part.self) ?? .right
        }
        if let node = fields["password"] {
            entry.password = choice(node, "netrc.password", CaseInputs.NetrcEntry.Part.self) ?? .right
        }
        return entry
    }
}
