import Testing
import Foundation
@testable import AuthMockCore

struct ScenarioLoaderTests {
    static let shipped = (try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("scenarios").path))?
        .filter { $0.hasSuffix(".yaml") }.sorted() ?? []

    /// Every shipped scenario loads, and starts with a comment header saying what it is for.
    @Test func shippedScenariosLoad() throws {
        #expect(Self.shipped.count >= 6)
        for name in Self.shipped {
            let scenario = try loadShipped(name)
            #expect(scenario.name + ".yaml" == name)
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent("scenarios/\(name)"), encoding: .utf8)
            #expect(text.hasPrefix("# "), "\(name) needs a comment header")
            #expect(text.contains("For:"), "\(name)'s header should say what it is for")
        }
    }

    /// The shipped digest.yaml loads with its realm, its two challenges (SHA-256 then MD5), its nonce policy, its
    /// users and an unprotected /public.
    @Test func digestScenarioReadsAsWritten() throws {
        let scenario = try loadShipped("digest.yaml")
        #expect(scenario.realm == "authmock@example.org")
        #expect(scenario.challenges == [
            .digest(DigestChallenge(algorithm: .sha256, qop: [.auth], opaque: .generated)),
            .digest(DigestChallenge(algorithm: .md5, qop: [.auth], opaque: .generated)),
        ])
        #expect(scenario.nonce == NoncePolicy(lifetime: 30, maxUses: 5, strictNC: true))
        #expect(scenario.users.map(\.name) == ["alice", "bob"])
        #expect(scenario.resource(forPath: "/public")?.protected == false)
    }

    /// What a minimal scenario leaves out gets its default: realm `authmock`, one protected resource `/`,
    /// challenges in separate fields, and a 401 that sends its challenges.
    @Test func defaults() throws {
        let scenario = try load("""
            version: 1
            name: tiny
            users: [{name: a, password: b}]
            challenges: [{scheme: Basic}]
            """)
        #expect(scenario.realm == "authmock")
        #expect(scenario.resources == [Resource(path: "/")])
        #expect(scenario.challengeStyle == .separateFields)
        #expect(scenario.unauthorized.sendChallenge)
    }

    /// Typos are reported at the key, with the closest valid key.
    @Test func unknownKeyHasPositionAndSuggestion() {
        let found = diagnostics("""
            version: 1
            name: x
            users:
              - name: alice
                pasword: secret
            challenges:
              - scheme: Digest
                algoritm: SHA-256
            """)
        #expect(found.contains("bad.yaml:5:5: unknown key 'pasword' in a user — did you mean 'password'? (expected keys: name, password, domain, token, scope)"))
        #expect(found.contains("bad.yaml:4:5: a user has no 'password' — add `password: …`"))
        #expect(found.contains { $0.hasPrefix("bad.yaml:8:5: unknown key 'algoritm' in a challenge — did you mean 'algorithm'?") })
    }

    /// Wrong types and values are each reported at the value with what is wrong (an unknown algorithm naming
    /// SHA-256, an unknown qop, a userhash that is not a boolean, a lifetime that is not a duration, max-uses 0,
    /// a path without its `/`, a status that is not a number), and nothing else is.
    @Test func wrongTypesAndValues() {
        let found = diagnostics("""
            version: 1
            name: x
            users:
              - name: alice
                password: secret
            challenges:
              - scheme: Digest
                algorithm: SHA-1
                qop: [auth, everything]
                userhash: maybe
            nonce:
              lifetime: soon
              max-uses: 0
            resources:
              - path: private
                status: abc
            """)
        #expect(found.contains { $0.hasPrefix("bad.yaml:8:16: unknown Digest algorithm 'SHA-1' — ") && $0.contains("SHA-256") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:9:17: unknown qop 'everything'") })
        #expect(found.contains("bad.yaml:10:15: userhash must be true or false, found 'maybe' — write true or false, unquoted"))
        #expect(found.contains { $0.hasPrefix("bad.yaml:12:13: nonce.lifetime 'soon' is not a positive duration") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:13:13: nonce.max-uses is 0, out of range") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:15:11: path 'private' does not start with '/'") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:16:13: status must be a whole number, found 'abc'") })
        #expect(found.count == 7)
    }

    /// Basic challenges without users are refused, saying how to add one; a scenario without challenges is told
    /// that protected resources need one.
    @Test func missingUsersAndChallenges() {
        let found = diagnostics("""
            version: 1
            name: x
            challenges:
              - scheme: Basic
            """)
        #expect(found == ["bad.yaml:3:1: Basic and Digest challenges need users — add `users:` with `- name: alice` and `password: …`"])
        let none = diagnostics("version: 1\nname: x\n")
        #expect(none.contains { $0.contains("protected resources need at least one challenge") })
    }

    /// A misspelt scheme is one diagnostic at the value, suggesting the closest scheme and pointing to `custom:`
    /// for schemes authmock does not know.
    @Test func unknownSchemePointsToCustom() {
        let found = diagnostics("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges:
              - scheme: Digst
            """)
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("bad.yaml:5:13: unknown scheme 'Digst' — did you mean 'Digest'?"))
        #expect(found[0].contains("custom:"))
    }

    /// In one file, each problem is reported: another schema version, a ':' in a user name, a user listed twice,
    /// a second Basic challenge, a charset other than UTF-8, and a resource under the control prefix.
    @Test func versionDuplicatesAndReservedPaths() {
        let found = diagnostics("""
            version: 2
            name: x
            users: [{name: "a:b", password: b}, {name: "a:b", password: c}]
            challenges: [{scheme: Basic}, {scheme: Basic, charset: latin1}]
            resources:
              - path: /_authmock/journal
            """)
        #expect(found.contains("bad.yaml:1:10: schema version 2 is not supported — this authmock reads `version: 1`"))
        #expect(found.contains { $0.contains("contains ':'") })
        #expect(found.contains { $0.contains("user 'a:b' is listed twice") })
        #expect(found.contains { $0.contains("a second Basic challenge") })
        #expect(found.contains { $0.contains("charset 'latin1' is not allowed") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:6:11: path '/_authmock/journal' is under the reserved control prefix") })
    }

    /// The YAML reader refuses duplicate keys while composing; the diagnostic points at the second one.
    @Test func duplicateKeys() {
        let found = diagnostics("""
            version: 1
            name: x
            users:
              - name: a
                password: b
                password: c
            name: y
            """)
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("bad.yaml:"))
        #expect(found[0].contains("appears twice in the same mapping — keep one; the first is on line"))
    }

    /// Anything sent in a header must be free of control characters; tabs are fine.
    @Test func headerValuesRefuseControlCharacters() {
        let found = diagnostics("""
            version: 1
            name: x
            realm: "a\\u0001b"
            users: [{name: a, password: b}]
            challenges:
              - scheme: Basic
              - custom: "Newauth realm=\\"x\\u0007\\""
            resources:
              - path: /
                headers: {X-Tab: "a\\tb", X-Bell: "a\\u0007b"}
            """)
        #expect(found.contains { $0.hasPrefix("bad.yaml:3:8: realm contains a line break or control character") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:7:13: custom challenge contains a line break or control character") })
        #expect(found.contains { $0.contains("header 'X-Bell' contains a line break or control character") })
        #expect(!found.contains { $0.contains("X-Tab") })
        #expect(found.count == 3)
    }

    /// The fields the server frames its answers with are refused in a resource's `headers`, whatever their case.
    @Test func framingHeadersAreTheServers() {
        let found = diagnostics("""
            version: 1
            name: x
            resources:
              - path: /
                protected: false
                headers: {content-length: "3", Transfer-Encoding: chunked, CONNECTION: close, X-Ok: fine}
            """)
        for name in ["content-length", "Transfer-Encoding", "CONNECTION"] {
            #expect(found.contains { $0.contains("header '\(name)' is set by the server itself — leave it out") })
        }
        #expect(found.count == 3)
    }

    /// The tls section loads as written; an unknown identity (with a suggestion), key type or client-certificate
    /// mode, and a misspelt key of `rotate`, are each reported at their position.
    @Test func tlsSection() throws {
        let scenario = try load("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges: [{scheme: Basic}]
            tls:
              identity: wrong-host
              key: rsa-2048
              hosts: [example.test, 10.0.0.1]
              client-certificate: optional
              plain-http: true
              rotate: {after-requests: 3, keep-key: false}
            """)
        #expect(scenario.tls == TLSSettings(
            identity: .wrongHost, keyType: .rsa2048, hosts: ["example.test", "10.0.0.1"], clientCertificate: .optional, plainHTTP: true,
            rotateAfterRequests: 3, rotateKeepsKey: false
        ))
        let found = diagnostics("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges: [{scheme: Basic}]
            tls:
              identity: expird
              key: dsa
              client-certificate: sometimes
              rotate: {after-request: 3}
            """)
        #expect(found.contains { $0.hasPrefix("bad.yaml:6:13: tls.identity 'expird' is not known — did you mean 'expired'?") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:7:8: tls.key 'dsa' is not known") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:8:23: tls.client-certificate 'sometimes' is not known") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:9:12: unknown key 'after-request' in tls.rotate — did you mean 'after-requests'?") })
    }

    /// A -sess algorithm with `qop: none` is refused at the algorithm: session keys hash the cnonce, which only a
    /// qop exchange carries.
    @Test func sessionAlgorithmNeedsQOP() {
        let found = diagnostics("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges:
              - scheme: Digest
                algorithm: MD5-sess
                qop: none
            """)
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("bad.yaml:6:16: MD5-sess needs a qop"))
    }

    /// A Digest key (`qop`) on a Basic challenge is refused by name, with the keys Basic takes.
    @Test func basicKeysOnDigestAreNamed() {
        let found = diagnostics("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges:
              - scheme: Basic
                qop: auth
            """)
        #expect(found == ["bad.yaml:6:5: 'qop' does not apply to Basic challenges — Basic takes: scheme, charset"])
    }

    /// A YAML syntax error (an unclosed flow sequence) is one diagnostic, with a position in the file, that says so.
    @Test func yamlSyntaxErrorHasPosition() {
        let found = diagnostics("version: 1\nname: [unclosed\nusers: x\n")
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("bad.yaml:"))
        #expect(found[0].contains("YAML syntax"))
    }

    /// An empty file is told what a scenario starts with, and a file holding a list that a scenario is a mapping,
    /// both at 1:1.
    @Test func emptyAndNonMappingFiles() {
        #expect(diagnostics("") == ["bad.yaml:1:1: the file holds no scenario — start with `version: 1` and `name: …`, then users, challenges and resources"])
        #expect(diagnostics("- a\n- b\n").first?.hasPrefix("bad.yaml:1:1: the scenario must be a mapping, found a list") == true)
    }

    /// A fixed opaque goes out quoted without escapes, so a quote or backslash in it is refused, also when a
    /// combining mark follows it and makes one Character of the pair.
    @Test(arguments: ["a\\\\\u{301}b", "a\\\"\u{301}b", "a\\\\b"])
    func opaqueWithQuoteOrBackslashIsRefused(value: String) {
        let problems = diagnostics("""
            version: 1
            name: x
            users: [{name: alice, password: w}]
            challenges:
              - scheme: Digest
                opaque: "\(value)"
            """)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("bad.yaml:6:13: opaque must not contain quotes, backslashes or control characters") == true, "\(problems)")
    }

    /// NTLM's domain and server are limited to 256 code points, not Characters: one Character with
    /// 11,000 combining marks passed, and the first NEGOTIATE then trapped on the CHALLENGE's 16-bit
    /// lengths. Found with FuzzScenarioLoader.
    @Test(arguments: ["domain", "server"])
    func ntlmNamesAreLimitedInCodePoints(key: String) {
        let long = "A" + String(repeating: "\u{0301}", count: 11_000)
        let problems = diagnostics("""
            version: 1
            name: x
            users: [{name: alice, password: w}]
            challenges:
              - scheme: NTLM
                \(key): "\(long)"
            """)
        #expect(problems.count == 1)
        #expect(problems.first?.hasPrefix("bad.yaml:6:13: \(key) is longer than 256 characters") == true, "\(problems)")
    }

    /// A custom challenge that does not parse as a challenge (an unterminated quoted-string) is refused at its value.
    @Test func customChallengeMustParse() {
        let found = diagnostics("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges:
              - custom: 'Newauth realm="unterminated'
              - scheme: Basic
            """)
        #expect(found.count == 1)
        #expect(found[0].hasPrefix("bad.yaml:5:13: custom challenge is not a valid challenge"))
    }
}

/// The TLS version bounds and the cn-only identity (issue 16).
struct TLSVersionSettingsTests {
    @Test func versionBoundsLoadAndAreCheckedAgainstEachOther() throws {
        let scenario = try load("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges: [{scheme: Basic}]
            tls: {identity: cn-only, min-version: "1.0", max-version: 1.1}
            """)
        #expect(scenario.tls?.identity == .cnOnly)
        #expect(scenario.tls?.minVersion == .v1_0)
        #expect(scenario.tls?.maxVersion == .v1_1)
        let defaults = try #require(try load("version: 1\nname: x\nusers: [{name: a, password: b}]\nchallenges: [{scheme: Basic}]\ntls: {}\n").tls)
        #expect(defaults.minVersion == .v1_2 && defaults.maxVersion == .v1_3)

        let found = diagnostics("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            tls:
              min-version: "1.3"
              max-version: "1.2"
            """)
        #expect(found.contains("bad.yaml:6:16: tls.max-version 1.2 is older than tls.min-version 1.3 — give a max-version at or above min-version (both default to 1.2 and 1.3)"), "\(found)")
        let unknown = diagnostics("version: 1\nname: x\nusers: [{name: a, password: b}]\ntls: {max-version: \"2.0\"}\n")
        #expect(unknown.contains { $0.hasPrefix("bad.yaml:4:20: tls.max-version '2.0' is not known") }, "\(unknown)")
    }

    /// The answer that triggers a rotation closes its connection: the client's next request handshakes
    /// again and meets the renewed certificate (a kept-alive connection would still show the old one).
    @Test func theRequestThatRotatesClosesItsConnection() throws {
        var scenario = try load("version: 1\nname: x\nusers: [{name: a, password: b}]\nresources: [{path: /, protected: false}]\n")
        scenario.tls = TLSSettings(rotateAfterRequests: 2, rotateKeepsKey: false)
        var random = RandomSource.seeded(3)
        var engine = Engine(scenario: scenario, random: &random)
        var journal = JournalLog()
        func send(_ exchange: Int, tls: Bool = true) -> Exchange {
            let connection = ConnectionInfo(id: 1, exchange: exchange, remote: nil, tls: tls ? TLSFacts(version: "TLSv1.3") : nil)
            return engine.handle(Request(method: "GET", target: "/", connection: connection), now: t0, random: &random, journal: &journal)
        }
        let first = send(1)
        #expect(first.actions.isEmpty && !first.response.closeConnection)
        let second = send(2)
        #expect(second.actions == [.rotateCertificate(keepKey: false)])
        #expect(second.response.closeConnection)
        // Cleartext requests (plain-http beside TLS) neither count nor close.
        #expect(!send(3, tls: false).response.closeConnection)
    }
}
