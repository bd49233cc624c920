/// One `name=value` pair of a challenge or of credentials (RFC 9110 §11.2).
public struct AuthParameter: Sendable, Hashable, Codable {
    /// The name as the peer wrote it; compare it case-insensitively.
    public var name: String
    /// The value, with quoted-pairs already unescaped.
    public var value: String
    /// Whether the value was sent as a quoted-string rather than a token.
    public var quoted: Bool

    public init(name: String, value: String, quoted: Bool) {
        self.name = name
        self.value = value
        self.quoted = quoted
    }
}

/// A parsed challenge (`WWW-Authenticate`) or credentials (`Authorization`): a scheme followed by either a
/// token68 or a list of parameters.
public struct AuthHeaderValue: Sendable, Hashable {
    public var scheme: String
    public var token68: String?
    public var parameters: [AuthParameter]

    public init(scheme: String, token68: String? = nil, parameters: [AuthParameter] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// The first parameter of that name (case-insensitive).
    public subscript(parameter name: String) -> String? {
        parameters.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    /// Renders the value in the canonical form: `Scheme token68` or `Scheme a="b", c=d`.
    public var rendered: String {
        if let token68 { return "\(scheme) \(token68)" }
        if parameters.isEmpty { return scheme }
        let list = parameters.map { "\($0.name)=\($0.quoted ? AuthHeader.quote($0.value) : $0.value)" }
        return "\(scheme) " + list.joined(separator: ", ")
    }
}

/// A syntax error in an authentication header, with a sentence that says what was wrong.
public struct AuthSyntaxError: Error, Equatable, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// Parsers for the authentication header grammar of RFC 9110 §11 (with RFC 7235's token68).
///
/// One parser serves both directions: a `WWW-Authenticate` value may hold several challenges, and an
/// `Authorization` value is one challenge-shaped set of credentials.
public enum AuthHeader {
    /// Parses a `WWW-Authenticate` or `Proxy-Authenticate` value, which may hold several challenges.
    public static func parseChallenges(_ value: String) throws(AuthSyntaxError) -> [AuthHeaderValue] {
        var scanner = Scanner(Array(value.utf8))
        var challenges: [AuthHeaderValue] = []
        while true {
            let separatorStart = scanner.index
            scanner.skipListSeparators()
            if scanner.atEnd { break }
            // `#challenge`: challenges are separated by commas, not just spaces.
            if !challenges.isEmpty, !scanner.sawComma(since: separatorStart) {
                throw AuthSyntaxError(reason: "expected ',' before the challenge at offset \(scanner.index)")
            }
            challenges.append(try scanner.challenge())
        }
        guard !challenges.isEmpty else { throw AuthSyntaxError(reason: "the header holds no challenge") }
        return challenges
    }

    /// Parses an `Authorization` or `Proxy-Authorization` value: exactly one scheme with its credentials.
    public static func parseCredentials(_ value: String) throws(AuthSyntaxError) -> AuthHeaderValue {
        var scanner = Scanner(Array(value.utf8))
        scanner.skipWhitespace()
        guard !scanner.atEnd else { throw AuthSyntaxError(reason: "the header is empty; expected an auth-scheme") }
        let credentials = try scanner.challenge()
        scanner.skipListSeparators()
        guard scanner.atEnd else {
            throw AuthSyntaxError(reason: "unexpected text after the credentials at offset \(scanner.index)")
        }
        return credentials
    }

    /// Quotes a value as an HTTP quoted-string, escaping `"` and `\`.
    ///
    /// It walks Unicode scalars, not characters: a backslash followed by a combining mark (`\` U+0300) is one
    /// `Character` that equals neither `"` nor `\`, and would go out unescaped (found by FuzzAuthorization).
    public static func quote(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        out.append("\"")
        for scalar in value.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out.append("\\") }
            out.append(scalar)
        }
        out.append("\"")
        return String(out)
    }

    static func isTokenChar(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
            UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
            UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    static func isToken68Char(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"),
            UInt8(ascii: "/"):
            return true
        default:
            return false
        }
    }
}

private struct Scanner {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { atEnd ? nil : bytes[index] }

    mutating func skipWhitespace() {
        while let c = peek, c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") { index += 1 }
    }

    mutating func skipListSeparators() {
        while let c = peek, c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") || c == UInt8(ascii: ",") { index += 1 }
    }

    mutating func token() -> String? {
        let start = index
        while let c = peek, AuthHeader.isTokenChar(c) { index += 1 }
        return index > start ? String(decoding: bytes[start..<index], as: UTF8.self) : nil
    }

    /// `auth-scheme [ 1*SP ( token68 / #auth-param ) ]`, stopping before the next challenge's scheme.
    mutating func challenge() throws(AuthSyntaxError) -> AuthHeaderValue {
        guard let scheme = token() else {
            throw AuthSyntaxError(reason: "expected an auth-scheme at offset \(index), found \(describe(peek))")
        }
        var result = AuthHeaderValue(scheme: scheme)
        guard let c = peek, c == UInt8(ascii: " ") || c == UInt8(ascii: "\t") else {
            if let c = peek, c != UInt8(ascii: ",") {
                throw AuthSyntaxError(reason: "expected a space after the scheme '\(scheme)', found \(describe(c))")
            }
            return result
        }
        skipWhitespace()
        if let token68 = token68() {
            result.token68 = token68
            return result
        }
        var seenParameter = false
        while true {
            let elementStart = index
            skipListSeparators()
            if atEnd { break }
            if seenParameter && !sawComma(since: elementStart) {
                throw AuthSyntaxError(
                    reason: "expected ',' between parameters at offset \(index), found \(describe(peek))"
                )
            }
            guard let name = token() else {
                throw AuthSyntaxError(reason: "expected a parameter name at offset \(index), found \(describe(peek))")
            }
            skipWhitespace()
            guard peek == UInt8(ascii: "=") else {
                // A token not followed by '=' starts the next challenge (only valid in a challenge list).
                // Back up to before the separator, so the list parser sees the comma too.
                index = elementStart
                break
            }
            index += 1
            skipWhitespace()
            let parameter: AuthParameter
            if peek == UInt8(ascii: "\"") {
                parameter = AuthParameter(name: name, value: try quotedString(), quoted: true)
            } else if let value = token() {
                parameter = AuthParameter(name: name, value: value, quoted: false)
            } else {
                throw AuthSyntaxError(
                    reason: "parameter '\(name)' has no value (expected a token or a quoted-string at offset \(index))"
                )
            }
            result.parameters.append(parameter)
            seenParameter = true
            skipWhitespace()
            if let c = peek, c != UInt8(ascii: ",") {
                throw AuthSyntaxError(
                    reason: "expected ',' after parameter '\(name)' at offset \(index), found \(describe(c))"
                )
            }
        }
        return result
    }

    func sawComma(since start: Int) -> Bool {
        bytes[start..<index].contains(UInt8(ascii: ","))
    }

    /// A token68 is only recognised when it is the whole remainder of this challenge
    /// (followed by the end or a comma), which tells it apart from `name=value`.
    private mutating func token68() -> String? {
        let start = index
        var end = index
        while end < bytes.count, AuthHeader.isToken68Char(bytes[end]) { end += 1 }
        guard end > start else { return nil }
        var afterEquals = end
        while afterEquals < bytes.count, bytes[afterEquals] == UInt8(ascii: "=") { afterEquals += 1 }
        var next = afterEquals
        while next < bytes.count, bytes[next] == UInt8(ascii: " ") || bytes[next] == UInt8(ascii: "\t") { next += 1 }
        guard next == bytes.count || bytes[next] == UInt8(ascii: ",") else { return nil }
        // `name=` followed by a comma is an empty parameter value, not a token68, when the name is a token.
        index = afterEquals
        return String(decoding: bytes[start..<afterEquals], as: UTF8.self)
    }

    private mutating func quotedString() throws(AuthSyntaxError) -> String {
        let open = index
        index += 1
        // Most quoted-strings hold no quoted-pair and no control character: the text between the quotes is the
        // value, made into a string at once. At the first backslash or control character the loop below takes
        // over from there, with what came before it, and says exactly what it always said.
        let start = index
        while let c = peek, c != UInt8(ascii: "\\"), c >= 0x20 || c == 0x09, c != 0x7F {
            index += 1
            if c == UInt8(ascii: "\"") { return String(decoding: bytes[start..<(index - 1)], as: UTF8.self) }
        }
        var value = Array(bytes[start..<index])
        while let c = peek {
            index += 1
            switch c {
            case UInt8(ascii: "\""):
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard let escaped = peek else { break }
                guard escaped == 0x09 || escaped >= 0x20 && escaped != 0x7F else {
                    throw AuthSyntaxError(
                        reason: "control character 0x\(String(escaped, radix: 16)) after '\\' at offset \(index)"
                    )
                }
                value.append(escaped)
                index += 1
            case 0x00...0x08, 0x0A...0x1F, 0x7F:
                throw AuthSyntaxError(
                    reason: "control character 0x\(String(c, radix: 16)) inside a quoted-string at offset \(index - 1)"
                )
            default:
                value.append(c)
            }
        }
        throw AuthSyntaxError(reason: "unterminated quoted-string starting at offset \(open)")
    }

    private func describe(_ c: UInt8?) -> String {
        guard let c else { return "the end of the header" }
        if c >= 0x21 && c < 0x7F { return "'\(Character(UnicodeScalar(c)))'" }
        return "byte 0x\(String(c, radix: 16))"
    }
}
