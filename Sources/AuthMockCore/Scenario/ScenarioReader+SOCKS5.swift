
/// The scenario's `socks5:` section: the SOCKS5 listener's methods, users and fault.
extension ScenarioReader {
    func socks5Settings(_ node: YAMLNode) -> SOCKS5Settings? {
        guard let fields = mapping(node, "socks5", allowed: ScenarioLoader.keys["socks5"]!) else { return nil }
        var methods: [SOCKS5Method] = [.usernamePassword]
        if let node = fields["methods"], let items = sequence(node, "socks5.methods") {
            if items.isEmpty {
                report(node, "socks5.methods is an empty list", hint: "write [username-password], [none] or both")
            }
            var read: [SOCKS5Method] = []
            for item in items {
                guard let method = choice(item, "socks5 method", SOCKS5Method.self) else { continue }
                if read.contains(method) {
                    report(item, "socks5 method '\(method.rawValue)' is listed twice", hint: "list each once")
                } else {
                    read.append(method)
                }
            }
            if !read.isEmpty { methods = read }
        }
        let users = fields["users"].map(socks5Users) ?? []
        if methods.contains(.usernamePassword), users.isEmpty {
            report(
                fields.entries["users"]?.key ?? node, "socks5 takes username-password but has no users",
                hint: "add `users:` with a name and a password, or write `methods: [none]`"
            )
        }
        let fault = fields["fault"].flatMap { choice($0, "socks5.fault", SOCKS5Fault.self) }
        return SOCKS5Settings(methods: methods, users: users, fault: fault)
    }

    /// `- {name, password}`: RFC 1929 carries each in at most 255 bytes, and neither may be empty.
    private func socks5Users(_ node: YAMLNode) -> [SOCKS5User] {
        guard let items = sequence(node, "socks5.users") else { return [] }
        var users: [SOCKS5User] = []
        for item in items {
            guard
                let fields = mapping(
                    item, "a socks5 user", allowed: ScenarioLoader.keys["socks5 user"]!, required: ["name", "password"]
                )
            else { continue }
            let name = fields["name"].flatMap { string($0, "socks5 user name") }
            let password = fields["password"].flatMap { string($0, "socks5 user password") }
            for (key, value) in [("name", name), ("password", password)] {
                if let value, value.utf8.count > 255, let node = fields[key] {
                    report(
                        node, "socks5 user \(key) is \(value.utf8.count) bytes, more than RFC 1929's 255",
                        hint: "shorten it; a client cannot send it"
                    )
                }
            }
            if let name, users.contains(where: { $0.name == name }), let node = fields["name"] {
                report(node, "socks5 user '\(name)' appears twice", hint: "give each user once")
            }
            if let name, let password { users.append(SOCKS5User(name: name, password: password)) }
        }
        return users
    }
}
