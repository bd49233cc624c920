extension Engine {
    /// Verifies `Authorization: Basic <base64(user:password)>` (RFC 7617).
    ///
    /// - Parameter token: what follows the scheme name, white space included.
    func verifyBasic(_ token: Substring, options: BasicChallenge, presented: inout PresentedCredentials) -> AuthOutcome {
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
        guard let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else {
            return .badRequest(.basicMalformed, "decoded Basic credentials have no ':' between user-id and password")
        }
        let userBytes = Array(decoded[..<colon])
        let passwordBytes = Array(decoded[(colon + 1)...])
        // Bytes that are not UTF-8 are read as ISO-8859-1, the encoding clients used before RFC 7617.
        let isUTF8 = String(validating: decoded, as: UTF8.self) != nil
        let user = isUTF8 ? String(decoding: userBytes, as: UTF8.self) : Self.latin1String(userBytes)
        let password = isUTF8 ? String(decoding: passwordBytes, as: UTF8.self) : Self.latin1String(passwordBytes)
        presented.user = user
        presented.password = password

        // Compare against a fixed dummy for unknown users too, so both paths take the same time.
        let known = activeUser(named: user)
        let matchesUTF8 = passwordMatches(known ?? User(name: user, password: "\u{0}authmock-no-such-user"), passwordBytes)
        // The same password in ISO-8859-1 (only differs from UTF-8 outside ASCII; only for clear passwords).
        let latin1 = known.flatMap { $0.knowsPassword ? Self.latin1($0.password) : nil }
        let matchesLatin1 = latin1.map { constantTimeEquals(passwordBytes, $0) } ?? false

        guard let known else {
            if matchesRetiredPassword(of: user, { passwordMatches($0, passwordBytes) }) {
                return .challenge(.credentialStalePassword, "'\(user)' was removed; these credentials were valid before")
            }
            return .challenge(.basicUnknownUser, "no user named '\(user)' in the scenario")
        }
        // With charset="UTF-8", anything that is not UTF-8 (user-id or password) is the wrong encoding.
        if options.charsetUTF8, !isUTF8, matchesUTF8 || matchesLatin1 {
            return .challenge(.basicWrongCharset, "the credentials were sent in ISO-8859-1, but the challenge asked for charset=\"UTF-8\"")
        }
        if matchesUTF8 {
            return .granted(user: known.name, verdict: .basicOK)
        }
        if matchesLatin1 {
            guard !options.charsetUTF8 else {
                return .challenge(.basicWrongCharset, "the credentials were sent in ISO-8859-1, but the challenge asked for charset=\"UTF-8\"")
            }
            return .granted(user: known.name, verdict: .basicOK)
        }
        if matchesRetiredPassword(of: known.name, { passwordMatches($0, passwordBytes) }) {
            return .challenge(.credentialStalePassword, "\(known.name)'s old password, which was changed")
        }
        return .challenge(.basicBadPassword, "wrong password for '\(known.name)'")
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
