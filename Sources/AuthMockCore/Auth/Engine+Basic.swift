extension Engine {
    /// Verifies `Authorization: Basic <base64(user:password)>` (RFC 7617).
    ///
    /// - Parameter token: what follows the scheme name, white space included.
    func verifyBasic(_ token: Substring, options: BasicChallenge, presented: inout PresentedCredentials)
        -> AuthOutcome
    {
        let text = token.trimmingOWS()
        guard !text.isEmpty else {
            return .badRequest(.basicMalformed, "no credentials after 'Basic'")
        }
        guard let decoded = Base64.decodeStrict(text.utf8) else {
            if text.contains("=\"") || (text.contains("=") && text.contains(",")) {
                return .badRequest(.basicMalformed, "Basic credentials must be one base64 token, not a parameter list")
            }
            return .badRequest(.basicMalformed, "Basic credentials are not valid base64 (RFC 4648 §4, padded)")
        }
        guard let parts = BasicCredentials(decoded) else {
            return .badRequest(.basicMalformed, "decoded Basic credentials have no ':' between user-id and password")
        }
        let user = parts.user
        let passwordBytes = parts.password
        let isUTF8 = parts.isUTF8
        presented.user = user
        presented.password = isUTF8 ? String(decoding: passwordBytes, as: UTF8.self) : Self.latin1String(passwordBytes)

        let known = activeUser(named: user)
        let (matchesUTF8, matchesLatin1) = basicPasswordMatches(parts, known: known)
        guard let known else {
            if matchesRetiredPassword(of: user, { passwordMatches($0, passwordBytes) }) {
                return .challenge(
                    .credentialStalePassword, "'\(user)' was removed; these credentials were valid before"
                )
            }
            return .challenge(.basicUnknownUser, "no user named '\(user)' in the scenario")
        }
        // With charset="UTF-8", anything that is not UTF-8 (user-id or password) is the wrong encoding.
        if options.charsetUTF8, !isUTF8, matchesUTF8 || matchesLatin1 {
            return .challenge(
                .basicWrongCharset,
                "the credentials were sent in ISO-8859-1, but the challenge asked for charset=\"UTF-8\""
            )
        }
        if matchesUTF8 {
            return .granted(user: known.name, verdict: .basicOK)
        }
        if matchesLatin1 {
            guard !options.charsetUTF8 else {
                return .challenge(
                    .basicWrongCharset,
                    "the credentials were sent in ISO-8859-1, but the challenge asked for charset=\"UTF-8\""
                )
            }
            return .granted(user: known.name, verdict: .basicOK)
        }
        if matchesRetiredPassword(of: known.name, { passwordMatches($0, passwordBytes) }) {
            return .challenge(.credentialStalePassword, "\(known.name)'s old password, which was changed")
        }
        return .challenge(.basicBadPassword, "wrong password for '\(known.name)'")
    }

    /// Whether the password of `parts` is `known`'s, as sent and read as ISO-8859-1.
    private func basicPasswordMatches(_ parts: BasicCredentials, known: User?) -> (utf8: Bool, latin1: Bool) {
        let passwordBytes = parts.password
        // Unknown users are compared with a fixed dummy in clear. (A user from a file costs a hash, so the
        // time taken can tell a hashed user from an unknown one; authmock is a test tool, not a vault.)
        let matchesUTF8 = passwordMatches(
            known ?? User(name: parts.user, password: "\u{0}authmock-no-such-user"), passwordBytes
        )
        // The same password in ISO-8859-1 (only differs from UTF-8 outside ASCII): against a clear password,
        // its Latin-1 bytes; against a hash (made from UTF-8), the bytes read as Latin-1 and re-encoded.
        let matchesLatin1: Bool
        if let known, !known.knowsPassword {
            matchesLatin1 = !parts.isUTF8 && passwordMatches(known, parts.latin1PasswordAsUTF8)
        } else {
            matchesLatin1 =
                known.flatMap { Self.latin1($0.password) }.map { constantTimeEquals(passwordBytes, $0) } ?? false
        }
        return (matchesUTF8, matchesLatin1)
    }

    /// The password pairs a Basic check of `parts` will hash with crypt(3), for the shell to run first
    /// off the event loop: the current user's hash (and the Latin-1 reading), and any retired hash.
    func basicHashChecks(_ parts: BasicCredentials) -> [(stored: StoredPassword, candidate: [UInt8], user: String)] {
        guard let record = scenarioState.users.first(where: { $0.user.name == parts.user }) else { return [] }
        var checks: [(stored: StoredPassword, candidate: [UInt8], user: String)] = []
        // The current secret (a removed user's last one is checked as retired) and the retired ones.
        for (index, secret) in ([record.user] + record.retired).enumerated() {
            guard let stored = secret.stored, case .crypt = stored else { continue }
            checks.append((stored, parts.password, parts.user))
            // `verifyBasic` tries the ISO-8859-1 reading against an active user's current hash only.
            if index == 0, !record.removed, !parts.isUTF8 {
                checks.append((stored, parts.latin1PasswordAsUTF8, parts.user))
            }
        }
        return checks
    }

    static func latin1String(_ bytes: [UInt8]) -> String {
        String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// The ISO-8859-1 bytes of a string, or nil when it has characters outside Latin-1 or is plain ASCII
    /// (where both encodings agree and there is nothing to tell apart).
    static func latin1(_ text: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var nonASCII = false
        for scalar in text.unicodeScalars {
            guard scalar.value < 256 else { return nil }
            if scalar.value >= 128 { nonASCII = true }
            bytes.append(UInt8(scalar.value))
        }
        return nonASCII ? bytes : nil
    }
}

/// `user-id:password` as decoded from a Basic token. Bytes that are not UTF-8 are read as ISO-8859-1,
/// the encoding clients used before RFC 7617.
package struct BasicCredentials {
    package var user: String
    package var password: [UInt8]
    var isUTF8: Bool

    /// The credentials of an `Authorization: Basic …` value as the engine reads them; nil when the value
    /// is not Basic, not strict base64, or has no ':'.
    package init?(field: String) {
        let (scheme, token) = Engine.schemeAndToken(field)
        guard AuthScheme(token: scheme) == .basic, let decoded = Base64.decodeStrict(token.trimmingOWS().utf8) else {
            return nil
        }
        self.init(decoded)
    }

    init?(_ decoded: [UInt8]) {
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let userBytes = Array(decoded[..<colon])
        password = Array(decoded[(colon + 1)...])
        // ASCII (nearly every client's) is UTF-8 without building a String to say so.
        isUTF8 = decoded.allSatisfy { $0 < 0x80 } || String(validating: decoded, as: UTF8.self) != nil
        user = isUTF8 ? String(decoding: userBytes, as: UTF8.self) : Engine.latin1String(userBytes)
    }

    /// The password bytes read as ISO-8859-1 and written as UTF-8 (what a hash made from UTF-8 expects).
    var latin1PasswordAsUTF8: [UInt8] { Array(Engine.latin1String(password).utf8) }
}

extension BasicChallenge: SchemeOptions {
    static let keys = ["scheme", "charset"]

    static func read(_ fields: Fields, scheme: AuthScheme, reader: ScenarioReader) -> Challenge {
        reader.rejectKeys(fields, notIn: keys, scheme: scheme.token)
        return .basic(BasicChallenge(charsetUTF8: fields["charset"].map(reader.charset) ?? false))
    }

    func summary(_ scheme: AuthScheme) -> String {
        charsetUTF8 ? "\(scheme.token) charset=UTF-8" : scheme.token
    }

    func fixedChallenge(_ scheme: AuthScheme, realm: String) -> String? {
        var parameters = [AuthParameter(name: "realm", value: realm, quoted: true)]
        if charsetUTF8 { parameters.append(AuthParameter(name: "charset", value: "UTF-8", quoted: true)) }
        return AuthHeaderValue(scheme: scheme.token, parameters: parameters).rendered
    }

    /// Basic is a token68 (RFC 7617): read it directly, so base64 faults are named as such.
    func verify(
        _ attempt: Engine.Attempt, engine: inout Engine, random: inout some RandomNumberGenerator,
        presented: inout PresentedCredentials
    ) -> Engine.AuthOutcome {
        engine.verifyBasic(attempt.token, options: self, presented: &presented)
    }
}
