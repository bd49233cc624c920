import Testing
@testable import AuthMockCore

struct AuthHeaderTests {
    /// Several challenges in one field, each with parameters, as RFC 9110 §11.6.1 allows.
    @Test func severalChallengesInOneField() throws {
        let value = #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple", Digest realm="x", nonce="n""#
        let challenges = try AuthHeader.parseChallenges(value)
        #expect(challenges.map(\.scheme) == ["Newauth", "Basic", "Digest"])
        #expect(challenges[0][parameter: "title"] == #"Login to "apps""#)
        #expect(challenges[0][parameter: "type"] == "1")
        #expect(challenges[1][parameter: "REALM"] == "simple")
        #expect(challenges[2][parameter: "nonce"] == "n")
    }

    /// A bare scheme followed by another challenge, and a token68 challenge.
    @Test func bareSchemesAndToken68() throws {
        let challenges = try AuthHeader.parseChallenges("Negotiate, NTLM TlRMTVNTUAABAAAA==, Basic realm=\"r\"")
        #expect(challenges.map(\.scheme) == ["Negotiate", "NTLM", "Basic"])
        #expect(challenges[1].token68 == "TlRMTVNTUAABAAAA==")
    }

    /// Credentials parse around optional whitespace and an empty list element: three parameters, and a bare
    /// `nc` value is marked as not quoted.
    @Test func credentialsWithOptionalWhitespace() throws {
        let value = try AuthHeader.parseCredentials("Digest username = \"a\" ,realm=\"r\",, nc=00000001 ")
        #expect(value.scheme == "Digest")
        #expect(value.parameters.map(\.name) == ["username", "realm", "nc"])
        #expect(value.parameters[2].quoted == false)
    }

    /// `Digest username` is a valid token68 by the grammar; the Digest layer is what refuses it.
    @Test(arguments: [("Digest username", "username"), ("Digest username=", "username=")])
    func token68IsSyntaxNotSemantics(value: String, token68: String) throws {
        #expect(try AuthHeader.parseCredentials(value).token68 == token68)
    }

    /// Basic credentials are one token68 (RFC 7617 §2), with no parameters.
    @Test func basicToken68() throws {
        let value = try AuthHeader.parseCredentials("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(value.token68 == "QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(value.parameters.isEmpty)
    }

    /// Broken credentials are syntax errors with a reason, never a crash.
    @Test(arguments: [
        "", "   ", "Digest username=\"open", "Digest a=\"b\", c", "Digest a=\"b\", c=", "Digest a=\"b\" c=\"d\"",
        "Digest a=\"x\u{1}y\"", "Basic abc def", "=abc", "Digest a=b, Basic realm=\"x\"",
    ])
    func malformedCredentials(value: String) {
        #expect(throws: AuthSyntaxError.self) { try AuthHeader.parseCredentials(value) }
    }

    /// `#challenge` needs commas: `Newauth foo bar` is not three challenges.
    @Test func challengesNeedCommas() throws {
        #expect(throws: AuthSyntaxError.self) { try AuthHeader.parseChallenges("Newauth foo bar") }
        #expect(try AuthHeader.parseChallenges("Newauth, foo, bar").map(\.scheme) == ["Newauth", "foo", "bar"])
    }

    /// A quoted-pair escapes only HTAB, SP, VCHAR and obs-text.
    @Test func quotedPairRejectsControlCharacters() {
        #expect(throws: AuthSyntaxError.self) { try AuthHeader.parseCredentials("X a=\"b\\\u{1}c\"") }
    }

    /// A quoted-string without a quoted-pair is read in one go; at the first backslash or control character the
    /// escaping loop takes over with what came before: the values and the errors (offsets included) are the same.
    @Test func quotedStringsReadWholeOrEscaped() throws {
        #expect(try AuthHeader.parseCredentials("X a=\"plain t\u{E9}xt\"")[parameter: "a"] == "plain t\u{E9}xt")
        #expect(try AuthHeader.parseCredentials(#"X a="before\"after", b="x""#)[parameter: "a"] == #"before"after"#)
        #expect(try AuthHeader.parseCredentials(#"X a="", b="x""#)[parameter: "b"] == "x")
        #expect(try AuthHeader.parseCredentials("X a=\"tab\there\"")[parameter: "a"] == "tab\there")
        for (field, reason) in [
            ("X a=\"abc\u{1}d\"", "control character 0x1 inside a quoted-string at offset 8"),
            ("X a=\"abc\u{7F}\"", "control character 0x7f inside a quoted-string at offset 8"),
            ("X a=\"ab\\\u{1}\"", "control character 0x1 after '\\' at offset 8"),
            ("X a=\"abc", "unterminated quoted-string starting at offset 4"),
            ("X a=\"ab\\", "unterminated quoted-string starting at offset 4"),
        ] {
            do throws(AuthSyntaxError) {
                _ = try AuthHeader.parseCredentials(field)
                Issue.record("accepted \(field.debugDescription)")
            } catch {
                #expect(error.reason == reason, "\(field.debugDescription)")
            }
        }
    }

    /// `quote` escapes `"` and `\` with a backslash, and parsing the quoted-string gives the original text back.
    @Test func quoteEscapes() throws {
        let quoted = AuthHeader.quote(#"a "b" \c"#)
        #expect(quoted == #""a \"b\" \\c""#)
        let parsed = try AuthHeader.parseCredentials("X v=\(quoted)")
        #expect(parsed[parameter: "v"] == #"a "b" \c"#)
    }

    /// A backslash or a quote followed by a combining mark is still escaped. FuzzAuthorization found
    /// `D e="\\\<U+0300>ple!\\ "`: it parsed, but its rendering did not parse back to the same value.
    @Test(arguments: ["\\\u{300}ple!", "\"\u{301}", "a\\\\\u{300}\\"])
    func quoteEscapesBeforeCombiningMarks(value: String) throws {
        let quoted = AuthHeader.quote(value)
        let escapes = value.unicodeScalars.filter { $0 == "\\" || $0 == "\"" }.count
        #expect(quoted.unicodeScalars.filter { $0 == "\\" }.count == value.unicodeScalars.filter { $0 == "\\" }.count + escapes)
        #expect(try AuthHeader.parseCredentials("D e=\(quoted)")[parameter: "e"] == value)
    }

    @Test func fuzzerFoundCombiningMarkRoundTrips() throws {
        let parsed = try AuthHeader.parseCredentials("D e=\"\\\\\\\u{300}ple!\\\\ \", o=x")
        #expect(parsed[parameter: "e"] == "\\\u{300}ple!\\ ")
        #expect(try AuthHeader.parseCredentials(parsed.rendered) == parsed)
    }

    /// A challenge rendered as a field value (a realm with quotes in it, a bare algorithm) parses back to the same value.
    @Test func renderedRoundTrips() throws {
        let value = AuthHeaderValue(
            scheme: "Digest",
            parameters: [AuthParameter(name: "realm", value: "a \"quoted\" realm", quoted: true), AuthParameter(name: "algorithm", value: "SHA-256", quoted: false)]
        )
        #expect(try AuthHeader.parseChallenges(value.rendered) == [value])
    }
}
