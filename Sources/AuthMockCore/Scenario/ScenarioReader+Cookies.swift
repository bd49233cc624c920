
/// A resource's `set-cookies:`: the cookies its answers set, each checked against RFC 6265 §4.1.1.
extension ScenarioReader {
    func setCookies(_ node: YAMLNode) -> [SetCookie] {
        guard let items = sequence(node, "set-cookies") else { return [] }
        if items.isEmpty {
            report(
                node, "set-cookies is an empty list", hint: "list a cookie such as `- name: session`, or leave it out"
            )
        }
        var result: [SetCookie] = []
        for item in items {
            guard
                let fields = mapping(item, "a cookie", allowed: ScenarioLoader.keys["set-cookie"]!, required: ["name"]),
                let nameNode = fields["name"], let name = string(nameNode, "set-cookies.name")
            else { continue }
            if !Self.isToken(name) {
                report(nameNode, "cookie name '\(name)' is not an HTTP token", hint: "use letters, digits, - and _")
            } else if result.contains(where: { $0.name == name }) {
                report(nameNode, "cookie '\(name)' is set twice by this resource", hint: "keep one")
            }
            var cookie = SetCookie(name: name, value: "authmock-\(name)")
            if let node = fields["value"], let value = string(node, "set-cookies.value", allowEmpty: true) {
                if !value.unicodeScalars.allSatisfy(Self.isCookieOctet) {
                    report(
                        node, "cookie value '\(value)' has a character a cookie value cannot hold",
                        hint: "RFC 6265 §4.1.1: visible ASCII without space, '\"', ',', ';' or '\\'"
                    )
                }
                cookie.value = value
            }
            if let node = fields["domain"], let domain = string(node, "set-cookies.domain") {
                let allowed = !domain.isEmpty && domain.unicodeScalars.allSatisfy(Self.isHostScalar)
                if !allowed || domain.hasSuffix(".") || domain.contains("..") {
                    report(
                        node, "domain '\(domain)' is not a host name", hint: "write a name such as authmock.localhost"
                    )
                }
                cookie.domain = domain
            }
            if let node = fields["path"], let path = string(node, "set-cookies.path") {
                if !path.hasPrefix("/") || path.contains(";") || Self.hasControlCharacter(path) {
                    report(node, "path '\(path)' is not a cookie path", hint: "start it with '/', without ';'")
                }
                cookie.path = path
            }
            if let node = fields["secure"] { cookie.secure = bool(node, "set-cookies.secure") ?? false }
            if let node = fields["http-only"] { cookie.httpOnly = bool(node, "set-cookies.http-only") ?? false }
            result.append(cookie)
        }
        return result
    }

    /// RFC 6265 §4.1.1 cookie-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E.
    static func isCookieOctet(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x21, 0x23...0x2B, 0x2D...0x3A, 0x3C...0x5B, 0x5D...0x7E: true
        default: false
        }
    }

    /// Letters, digits, '-' and '.' (a leading '.' is allowed and ignored by clients, §5.2.3).
    static func isHostScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "-", ".": true
        default: false
        }
    }
}
