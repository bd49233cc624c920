#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Digest credentials as read from the field: every parameter, and the ones the checks use.
struct DigestCredentials {
    var params: DigestParameters
    /// `username`, or `username*` decoded; with userhash, the hash.
    var claimedUser: String
    var realm: String
    var nonce: String
    var uri: String
    /// Lower-cased.
    var response: String
    var qop: DigestQOP?
    /// As announced; MD5 when absent.
    var algorithmToken: String

    var nc: String { params["nc"]?.value ?? "" }
    var cnonce: String { params["cnonce"]?.value ?? "" }
    var usesUserhash: Bool { params["userhash"]?.value.lowercased() == "true" }
}

/// Step 1 of ``Engine/verifyDigest(_:request:now:random:presented:)``: the field read into ``DigestCredentials``.
extension Engine {
    // MARK: - 1. Parse

    /// Parameters RFC 7616 §3.4 sends as quoted-strings; a token there is a client bug worth a 400. (A switch,
    /// not a set: no hash of every parameter's name on every request.)
    private static func mustBeQuoted(_ name: String) -> Bool {
        switch name {
        case "username", "realm", "nonce", "uri", "response", "cnonce", "opaque": true
        default: false
        }
    }

    /// Step 1: the field as Digest credentials that name this request. Every fault here is a 400.
    static func parseDigest(_ field: String, target: String, presented: inout PresentedCredentials) throws(AuthRefusal)
        -> DigestCredentials
    {
        let params = try digestParameters(field)
        presented.params = params.values
        for name in ["realm", "nonce", "uri", "response"] where params[name] == nil {
            throw .badRequest(.digestMalformed, "missing parameter '\(name)'")
        }
        for (name, parameter) in params where !parameter.quoted && mustBeQuoted(name) {
            throw .badRequest(.digestMalformed, "parameter '\(name)' must be a quoted-string (RFC 7616 §3.4)")
        }
        let claimedUser = try digestUsername(params)
        presented.user = claimedUser
        let credentials = DigestCredentials(
            params: params, claimedUser: claimedUser, realm: params["realm"]!.value, nonce: params["nonce"]!.value,
            uri: params["uri"]!.value, response: params["response"]!.value.lowercased(), qop: try digestQOP(params),
            algorithmToken: params["algorithm"]?.value ?? "MD5"
        )
        guard sameResource(credentials.uri, target) else {
            throw .badRequest(
                .digestURIMismatch,
                "uri \"\(credentials.uri)\" differs from the request target \"\(target)\" (RFC 7616 §3.4.6)"
            )
        }
        return credentials
    }

    /// The auth-params of the field, by lower-cased name, each at most once.
    private static func digestParameters(_ field: String) throws(AuthRefusal) -> DigestParameters {
        let credentials: AuthHeaderValue
        do throws(AuthSyntaxError) {
            credentials = try AuthHeader.parseCredentials(field)
        } catch {
            throw AuthRefusal(outcome: .unparseable(error.reason))
        }
        guard credentials.token68 == nil else {
            throw .badRequest(.digestMalformed, "Digest credentials must be a parameter list, not a single token")
        }
        var params = DigestParameters()
        params.entries.reserveCapacity(credentials.parameters.count)
        for parameter in credentials.parameters {
            // Clients send the names in lower case: a new string only for one that is not.
            let name = parameter.name.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") })
                ? parameter.name.lowercased() : parameter.name
            guard params[name] == nil else {
                throw .badRequest(.digestMalformed, "parameter '\(name)' appears more than once")
            }
            params.entries.append((name, parameter))
        }
        return params
    }

    /// `username`, or `username*` (RFC 8187) decoded: exactly one of them.
    private static func digestUsername(_ params: DigestParameters) throws(AuthRefusal) -> String {
        switch (params["username"], params["username*"]) {
        case (.some(let plain), .none):
            return plain.value
        case (.none, .some(let extended)):
            guard params["userhash"]?.value.lowercased() != "true" else {
                throw .badRequest(.digestMalformed, "username* cannot be combined with userhash=true (RFC 7616 §3.4.4)")
            }
            guard !extended.quoted, let decoded = decodeExtendedValue(extended.value) else {
                throw .badRequest(.digestMalformed, "username* is not an RFC 8187 ext-value (UTF-8''percent-encoded)")
            }
            return decoded
        case (.some, .some):
            throw .badRequest(.digestMalformed, "both username and username* were sent; RFC 7616 §3.4.4 allows one")
        case (.none, .none):
            throw .badRequest(.digestMalformed, "missing parameter 'username'")
        }
    }

    /// The qop used, if any, with the cnonce and nc it requires.
    private static func digestQOP(_ params: DigestParameters) throws(AuthRefusal) -> DigestQOP? {
        guard let qopToken = params["qop"]?.value else { return nil }
        guard let qop = DigestQOP(rawValue: qopToken.lowercased()) else {
            throw .badRequest(.digestMalformed, "qop '\(qopToken)' is neither auth nor auth-int")
        }
        guard params["cnonce"] != nil else {
            throw .badRequest(.digestMalformed, "qop is present but cnonce is missing")
        }
        guard let nc = params["nc"]?.value else {
            throw .badRequest(.digestMalformed, "qop is present but nc is missing")
        }
        guard nc.utf8.count == 8, nc.utf8.allSatisfy(\.isHexDigit) else {
            throw .badRequest(.digestMalformed, "nc '\(nc)' is not 8 hexadecimal digits")
        }
        return qop
    }

    // MARK: - Helpers

    /// Whether a Digest `uri` names the request target. Through a proxy the request-target is
    /// absolute-form (`http://host/path`) while clients may put either form in `uri` (RFC 2617 §3.2.2
    /// notes proxies may change the Request-Line), so absolute- and origin-form of the same resource match;
    /// anything else, such as a missing query, does not.
    static func sameResource(_ uri: String, _ target: String) -> Bool {
        if uri == target { return true }
        func originForm(_ text: String) -> String? {
            let lower = text.lowercased()
            guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return nil }
            let rest = text.dropFirst(scheme.count)
            let path = rest.drop { $0 != "/" && $0 != "?" }
            return path.isEmpty ? "/" : path.hasPrefix("?") ? "/" + path : String(path)
        }
        switch (originForm(uri), originForm(target)) {
        case (nil, .some(let targetPath)): return uri == targetPath
        case (.some(let uriPath), nil): return uriPath == target
        default: return false
        }
    }

    /// Decodes an RFC 8187 ext-value in UTF-8 (`UTF-8''J%C3%A4s%C3%B8n`); the language tag is ignored.
    static func decodeExtendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        return PercentEncoding.decode(String(parts[2]))
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}

/// A Digest field's auth-params by lower-cased name, each at most once, in the field's order. Searched in
/// order: a field has about ten, and hashing every name into a dictionary and every lookup out of it cost
/// more than the search (10k instructions a request).
struct DigestParameters: Sequence {
    var entries: [(name: String, parameter: AuthParameter)] = []

    subscript(name: String) -> AuthParameter? {
        entries.first { $0.name == name }?.parameter
    }

    /// Each parameter's value by name, as the journal's credentials record them.
    var values: [String: String] {
        Dictionary(entries.lazy.map { ($0.name, $0.parameter.value) }, uniquingKeysWith: { first, _ in first })
    }

    func makeIterator() -> IndexingIterator<[(name: String, parameter: AuthParameter)]> {
        entries.makeIterator()
    }
}
