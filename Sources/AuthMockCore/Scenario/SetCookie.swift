/// A cookie a resource sets (`set-cookies:`): one `Set-Cookie` field of its answers (RFC 6265 §4.1), and
/// what the journal looks for when a request brings it back in `Cookie` (§5.4).
///
/// ```yaml
/// set-cookies:
///   - name: session
///     value: s3cr3t
///     domain: authmock.localhost   # absent: host-only (§5.3 step 6)
///     path: /account               # absent: the default path of the request (§5.1.4)
///     secure: true
///     http-only: true
/// ```
public struct SetCookie: Sendable, Equatable {
    public var name: String
    public var value: String
    /// The `Domain` attribute; nil makes a host-only cookie.
    public var domain: String?
    /// The `Path` attribute; nil lets the client take the request's default path.
    public var path: String?
    public var secure = false
    public var httpOnly = false

    public init(
        name: String, value: String, domain: String? = nil, path: String? = nil, secure: Bool = false,
        httpOnly: Bool = false
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.path = path
        self.secure = secure
        self.httpOnly = httpOnly
    }

    /// The value of the `Set-Cookie` field: `session=s3cr3t; Domain=authmock.localhost; Path=/; Secure`.
    public var fieldValue: String {
        var parts = ["\(name)=\(value)"]
        if let domain { parts.append("Domain=\(domain)") }
        if let path { parts.append("Path=\(path)") }
        if secure { parts.append("Secure") }
        if httpOnly { parts.append("HttpOnly") }
        return parts.joined(separator: "; ")
    }

    /// The `name=value` pairs of `Cookie` fields (RFC 6265 §4.2.1: pairs separated by `;`), in order; a pair
    /// without `=` is a name with an empty value, as browsers read it.
    public static func pairs(inCookieFields fields: [String]) -> [(name: String, value: String)] {
        fields.flatMap { field in
            field.split(separator: ";", omittingEmptySubsequences: true).compactMap { piece in
                let pair = String(piece).trimmingASCIIWhitespace
                guard !pair.isEmpty else { return nil }
                guard let equals = pair.firstIndex(of: "=") else { return (name: "", value: String(pair)) }
                return (
                    name: String(pair[..<equals]).trimmingASCIIWhitespace,
                    value: String(pair[pair.index(after: equals)...]).trimmingASCIIWhitespace
                )
            }
        }
    }

    /// The names of `cookies` that the `Cookie` fields carry with their value, in the order of `cookies`.
    /// Values are compared in constant time: a session cookie is a credential.
    public static func returned(_ cookies: [SetCookie], inCookieFields fields: [String]) -> [String] {
        guard !cookies.isEmpty, !fields.isEmpty else { return [] }
        let pairs = pairs(inCookieFields: fields)
        var names: [String] = []
        for cookie in cookies where !names.contains(cookie.name) {
            let carried = pairs.reduce(false) { found, pair in
                let same = pair.name == cookie.name
                    && constantTimeEquals(Array(pair.value.utf8), Array(cookie.value.utf8))
                return found || same
            }
            if carried { names.append(cookie.name) }
        }
        return names
    }
}

extension String {
    /// Without leading and trailing spaces and tabs, scalar by scalar (a blank before a combining mark
    /// goes too, as a byte-wise reader would drop it).
    var trimmingASCIIWhitespace: String {
        var scalars = Substring(self).unicodeScalars[...]
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
