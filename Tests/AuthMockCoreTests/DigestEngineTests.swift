import Testing
import Foundation
@testable import AuthMockCore

/// Digest rules of RFC 7616, each checked against the engine with no network.
struct DigestEngineTests {
    let alice = DigestClient(user: "alice", password: "wonderland")

    func digest() throws -> Harness { Harness(try loadShipped("digest.yaml")) }

    /// No credentials: one challenge per algorithm, SHA-256 first, each with its own nonce and opaque.
    @Test func challengesOfferBothAlgorithmsInOrder() throws {
        var h = try digest()
        let first = h.send()
        #expect(first.status == 401)
        #expect(first.verdict == .noCredentials)
        #expect(first.challenges.map { $0[parameter: "algorithm"] } == ["SHA-256", "MD5"])
        let nonces = first.challenges.compactMap { $0[parameter: "nonce"] }
        #expect(Set(nonces).count == 2)
        #expect(first.challenges.allSatisfy { $0[parameter: "qop"] == "auth" && $0[parameter: "opaque"] != nil })
        #expect(first.challenges.allSatisfy { $0[parameter: "realm"] == "authmock@example.org" })
        #expect(first.entry?.challenges?.count == 2)
    }

    /// A correct response to the SHA-256 or the MD5 challenge gets 200, `digest.ok` and the greeting; the journal
    /// names the user and the algorithm the client announced.
    @Test(arguments: ["SHA-256", "MD5"])
    func correctResponseIsAccepted(algorithm: String) throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge(algorithm))
        let ok = h.send(authorization: alice.authorization(for: challenge))
        #expect(ok.status == 200)
        #expect(ok.verdict == .digestOK)
        #expect(ok.response.bodyText == "Hello, alice!\n")
        #expect(ok.entry?.credentials?.user == "alice")
        #expect(ok.entry?.credentials?.params?["algorithm"] == algorithm)
    }

    /// A wrong password is a bad response and never `stale=true`, not even with an expired nonce.
    @Test func wrongPasswordIsNeverStale() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let wrong = DigestClient(user: "alice", password: "nope")
        let fresh = h.send(authorization: wrong.authorization(for: challenge))
        #expect(fresh.status == 401)
        #expect(fresh.verdict == .digestBadResponse)
        #expect(fresh.challenges.allSatisfy { $0[parameter: "stale"] == nil })

        h.now = t0.addingTimeInterval(3600)
        let expired = h.send(authorization: wrong.authorization(for: challenge))
        #expect(expired.verdict == .digestBadResponse)
        #expect(expired.challenges.allSatisfy { $0[parameter: "stale"] == nil })
    }

    /// Past its lifetime, a nonce with the right credentials earns `stale=true` and fresh nonces, which work.
    @Test func expiredNonceIsStaleAndRecoverable() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        h.now = t0.addingTimeInterval(29)
        #expect(h.send(authorization: alice.authorization(for: challenge)).status == 200)
        h.now = t0.addingTimeInterval(31)
        var second = alice
        second.nc = 2
        let stale = h.send(authorization: second.authorization(for: challenge))
        #expect(stale.status == 401)
        #expect(stale.verdict == .digestStaleNonce)
        #expect(stale.challenges.count == 2)
        #expect(stale.challenges.allSatisfy { $0[parameter: "stale"] == "true" })
        let renewed = try #require(stale.digestChallenge("SHA-256"))
        #expect(renewed[parameter: "nonce"] != challenge[parameter: "nonce"])
        #expect(h.send(authorization: alice.authorization(for: renewed)).status == 200)
    }

    /// After `max-uses` successful uses the next use is stale.
    @Test func nonceUseLimit() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("MD5"))
        var client = alice
        for nc in 1...5 {
            client.nc = nc
            #expect(h.send(authorization: client.authorization(for: challenge)).verdict == .digestOK)
        }
        client.nc = 6
        let sixth = h.send(authorization: client.authorization(for: challenge))
        #expect(sixth.verdict == .digestStaleNonce)
        #expect(sixth.entry?.detail?.contains("5") == true)
    }

    /// An nc seen before with the nonce is a replay, refused (and not called stale); one that arrives out of
    /// order, as parallel connections deliver them, is not (RFC 7616 §3.4: a replay is an nc seen twice).
    @Test func ncReplayIsRefused() throws {
        var scenario = try loadShipped("digest.yaml")
        scenario.nonce = NoncePolicy()  // no use limit: the nonce serves every nc below
        var h = Harness(scenario)
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        var client = alice
        func send(nc: Int) -> Exchange {
            client.nc = nc
            return h.send(authorization: client.authorization(for: challenge))
        }
        #expect(send(nc: 3).status == 200)
        let replay = send(nc: 3)
        #expect(replay.verdict == .digestNCReplay)
        #expect(replay.entry?.detail == "nc 00000003 was already used with this nonce (a replay)")
        #expect(replay.challenges.allSatisfy { $0[parameter: "stale"] == nil })
        #expect(send(nc: 2).verdict == .digestOK, "out of order, never seen")
        #expect(send(nc: 2).verdict == .digestNCReplay)
        #expect(send(nc: 0x40).verdict == .digestOK)
        #expect(send(nc: 4).verdict == .digestOK, "60 below the highest: inside the window")
        #expect(send(nc: 3).verdict == .digestNCReplay, "seen before the window moved")
        #expect(send(nc: 0x60).verdict == .digestOK)
        let old = send(nc: 0x1F)
        #expect(old.verdict == .digestNCReplay)
        #expect(old.entry?.detail?.contains("more than 64 below the highest nc seen for this nonce (00000060)") == true)
    }

    /// The window: anything new is admitted once, in any order; a jump past the width forgets what it held.
    @Test func ncWindowAdmitsEachValueOnce() {
        var window = NCWindow()
        #expect(window.admit(1) == .admitted)
        #expect(window.admit(3) == .admitted)
        #expect(window.admit(2) == .admitted)
        #expect(window.admit(2) == .seen && window.admit(1) == .seen && window.admit(3) == .seen)
        #expect(window.admit(200) == .admitted)
        #expect(window.admit(3) == .tooOld(highest: 200))
        #expect(window.admit(137) == .admitted && window.admit(136) == .tooOld(highest: 200))
        #expect(window.admit(UInt32.max) == .admitted && window.admit(UInt32.max) == .seen)
    }

    /// With `strict-nc: false` any nc is accepted (for replaying one header in load tests).
    @Test func ncCheckCanBeDisabled() throws {
        var scenario = try loadShipped("digest.yaml")
        scenario.nonce = NoncePolicy(strictNC: false)
        var h = Harness(scenario)
        let header = alice.authorization(for: try #require(h.send().digestChallenge("SHA-256")))
        for _ in 0..<3 { #expect(h.send(authorization: header).verdict == .digestOK) }
    }

    /// The client must answer with the nonce of the challenge whose algorithm it uses.
    @Test func nonceMustBelongToTheAlgorithmsChallenge() throws {
        var h = try digest()
        let first = h.send()
        var crossed = try #require(first.digestChallenge("SHA-256"))
        let md5 = try #require(first.digestChallenge("MD5"))
        crossed.parameters = crossed.parameters.map { $0.name == "algorithm" ? AuthParameter(name: "algorithm", value: "MD5", quoted: false) : $0 }
        crossed.parameters = crossed.parameters.map { $0.name == "opaque" ? AuthParameter(name: "opaque", value: md5[parameter: "opaque"]!, quoted: true) : $0 }
        let answer = h.send(authorization: alice.authorization(for: crossed))
        #expect(answer.status == 401)
        #expect(answer.verdict == .digestNonceAlgorithmMismatch)
    }

    /// The uri must be the request target, query included (400 per RFC 7616 §3.4.6).
    @Test func uriMustMatchTargetIncludingQuery() throws {
        var h = try digest()
        let challenge = try #require(h.send("GET", "/search?q=rabbit").digestChallenge("SHA-256"))
        let withoutQuery = h.send(authorization: alice.authorization(for: challenge, uri: "/search"), "GET", "/search?q=rabbit")
        #expect(withoutQuery.status == 400)
        #expect(withoutQuery.verdict == .digestURIMismatch)
        let right = h.send(authorization: alice.authorization(for: challenge, uri: "/search?q=rabbit"), "GET", "/search?q=rabbit")
        #expect(right.status == 200)
    }

    /// Leaving out the challenge's opaque, or sending another one, is an opaque mismatch: RFC 7616 §3.3 asks the
    /// client to return it unchanged.
    @Test func opaqueMustBeEchoed() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let missing = h.send(authorization: alice.authorization(for: challenge, omitting: ["opaque"]))
        #expect(missing.verdict == .digestOpaqueMismatch)
        let changed = h.send(authorization: alice.authorization(for: challenge, overrides: ["opaque": "other"]))
        #expect(changed.verdict == .digestOpaqueMismatch)
    }

    /// A nonce this server never issued (a real one with a character changed: the last, or the first to a
    /// character of standard base64 that base64url has not, or one more character) is an unknown nonce, and
    /// the 401 does not say `stale=true`: stale is for nonces it issued.
    @Test(arguments: ["last", "plus", "slash", "longer"])
    func forgedNonceIsUnknownNotStale(change: String) throws {
        var h = try digest()
        var challenge = try #require(h.send().digestChallenge("SHA-256"))
        let nonce = challenge[parameter: "nonce"]!
        let forged = switch change {
        case "last": String(nonce.dropLast()) + (nonce.last == "A" ? "B" : "A")
        case "plus": "+" + nonce.dropFirst()
        case "slash": "/" + nonce.dropFirst()
        default: nonce + "A"
        }
        challenge.parameters = challenge.parameters.map { $0.name == "nonce" ? AuthParameter(name: "nonce", value: forged, quoted: true) : $0 }
        let answer = h.send(authorization: alice.authorization(for: challenge))
        #expect(answer.verdict == .digestUnknownNonce)
        #expect(answer.challenges.allSatisfy { $0[parameter: "stale"] == nil })
    }

    /// A reset forgets every nonce: a client holding one is told it is stale, and recovers.
    @Test func resetMakesHeldNoncesStale() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        h.pair.reset(at: h.now)
        #expect(h.journal.count == 0)
        #expect(h.send(authorization: alice.authorization(for: challenge)).verdict == .digestStaleNonce)
    }

    /// An answer to the SHA-256 challenge that names what the scenario does not have.
    struct Unoffered: Sendable, CustomTestStringConvertible {
        var what: String
        var user = "alice"
        var password = "wonderland"
        var overrides: [String: String] = [:]
        var verdict: Verdict
        /// The status, where the test checks it.
        var status: Int? = nil
        var testDescription: String { what }
    }

    /// An answer naming a user, an algorithm or a realm the scenario does not have is refused with the verdict
    /// that names it (a wrong realm with 401).
    @Test(arguments: [
        Unoffered(what: "an unknown user", user: "mallory", password: "x", verdict: .digestUnknownUser),
        Unoffered(what: "an algorithm not offered", overrides: ["algorithm": "SHA-512-256"], verdict: .digestAlgorithmNotOffered),
        Unoffered(what: "another realm", overrides: ["realm": "elsewhere"], verdict: .digestWrongRealm, status: 401),
    ])
    func unknownUserAlgorithmOrRealmIsRefused(_ c: Unoffered) throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let answer = h.send(authorization: DigestClient(user: c.user, password: c.password).authorization(for: challenge, overrides: c.overrides))
        #expect(answer.verdict == c.verdict)
        if let status = c.status { #expect(answer.status == status) }
    }

    /// Syntax faults are 400s that name the fault.
    @Test(arguments: [
        ("Digest username=\"alice\", username=\"bob\", realm=\"r\", nonce=\"n\", uri=\"/\", response=\"x\"", "appears more than once", .digestMalformed),
        ("Digest username=\"alice\", realm=\"r\", uri=\"/\", response=\"x\"", "missing parameter 'nonce'", .digestMalformed),
        ("Digest username=alice, realm=\"r\", nonce=\"n\", uri=\"/\", response=\"x\"", "must be a quoted-string", .digestMalformed),
        ("Digest username=\"alice\", realm=\"r\", nonce=\"n\", uri=\"/\", response=\"x\", qop=auth, nc=1, cnonce=\"c\"", "8 hexadecimal", .digestMalformed),
        ("Digest username=\"alice\", realm=\"r\", nonce=\"n\", uri=\"/\", response=\"x\", qop=auth, nc=00000001", "cnonce is missing", .digestMalformed),
        ("Digest username=\"alice\", realm=\"r\", nonce=\"n\", uri=\"/\", response=\"x\", qop=bogus, nc=00000001, cnonce=\"c\"", "neither auth", .digestMalformed),
        ("Digest realm=\"r\", nonce=\"n\", uri=\"/\", response=\"x\"", "missing parameter 'username'", .digestMalformed),
        ("Digest dXNlcjpwYXNz", "parameter list", .digestMalformed),
        ("Digest username=\"a\", realm=\"r", "malformed", .malformedAuthorization),
    ] as [(String, String, Verdict)])
    func malformedCredentialsAre400(header: String, expectedDetail: String, verdict: Verdict) throws {
        var h = try digest()
        let answer = h.send(authorization: header)
        #expect(answer.status == 400)
        #expect(answer.verdict == verdict)
        // The fault is named both to the client (the body) and in the journal.
        #expect(answer.response.bodyText.contains(expectedDetail), "\(answer.response.bodyText)")
        #expect((answer.entry?.detail ?? "").contains(expectedDetail), "\(answer.entry?.detail ?? "")")
    }

    /// nc must be exactly 8 hex digits: a sign is not a digit.
    @Test func signedNCIsMalformed() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let answer = h.send(authorization: alice.authorization(for: challenge, overrides: ["nc": "+0000001"]))
        #expect(answer.status == 400)
        #expect(answer.verdict == .digestMalformed)
    }

    /// username* with userhash=true is refused (RFC 7616 §3.4.4), and a bad %-escape is not decoded.
    @Test func extendedUsernameRules() throws {
        #expect(Engine.decodeExtendedValue("UTF-8''%+f") == nil)
        #expect(Engine.decodeExtendedValue("UTF-8''a%20b") == "a b")
        var h = Harness(try loadShipped("digest-modern.yaml"))
        let challenge = try #require(h.send("GET", "/doe.json").digestChallenge("SHA-512-256"))
        let client = DigestClient(user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?")
        let header = client.authorization(for: challenge, uri: "/doe.json", userhash: true)
            .replacingOccurrences(of: "username=", with: "username*=UTF-8''x, ignored=")
        let answer = h.send(authorization: header, "GET", "/doe.json")
        #expect(answer.status == 400)
        #expect(answer.entry?.detail?.contains("userhash") == true)
    }

    /// A huge parameter value is just a wrong value: 401, and no crash.
    @Test func hugeValuesAreHandled() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let huge = String(repeating: "A", count: 200_000)
        let answer = h.send(authorization: alice.authorization(for: challenge, overrides: ["response": huge]))
        #expect(answer.verdict == .digestBadResponse)
        let hugeNonce = h.send(authorization: alice.authorization(for: challenge, overrides: ["nonce": huge]))
        #expect(hugeNonce.verdict == .digestUnknownNonce)
    }

    /// auth-int covers the body: the same header with another body fails.
    @Test func authIntCoversTheBody() throws {
        var h = Harness(try loadShipped("digest-modern.yaml"))
        let challenge = try #require(h.send("POST", "/upload").digestChallenge("SHA-512-256"))
        let client = DigestClient(user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?")
        let body = Array("payload".utf8)
        let header = client.authorization(for: challenge, method: "POST", uri: "/upload", body: body, qop: .authInt)
        #expect(h.send(authorization: header, "POST", "/upload", body: body).verdict == .digestOK)
        var next = client
        next.nc = 2
        let tampered = next.authorization(for: challenge, method: "POST", uri: "/upload", body: body, qop: .authInt)
        #expect(h.send(authorization: tampered, "POST", "/upload", body: Array("tampered".utf8)).verdict == .digestBadResponse)
    }

    /// userhash: the hashed name resolves to the user (RFC 7616 §3.4.4), and username* works too.
    @Test func userhashAndExtendedUsername() throws {
        var h = Harness(try loadShipped("digest-modern.yaml"))
        let challenge = try #require(h.send("GET", "/doe.json").digestChallenge("SHA-512-256"))
        #expect(challenge[parameter: "userhash"] == "true")
        #expect(challenge[parameter: "charset"] == "UTF-8")
        var client = DigestClient(user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?")
        let hashed = h.send(authorization: client.authorization(for: challenge, uri: "/doe.json", userhash: true), "GET", "/doe.json")
        #expect(hashed.verdict == .digestOK)
        #expect(hashed.entry?.credentials?.user == "J\u{E4}s\u{F8}n Doe")
        client.nc = 2
        let extended = client.authorization(for: challenge, uri: "/doe.json")
            .replacingOccurrences(of: "username=\"J\u{E4}s\u{F8}n Doe\"", with: "username*=UTF-8''J%C3%A4s%C3%B8n%20Doe")
        #expect(h.send(authorization: extended, "GET", "/doe.json").verdict == .digestOK)
    }

    /// A client that announces SHA-512-256 but hashes with SHA-256 is named as such (curl 7.x does this).
    @Test func substitutedAlgorithmIsDiagnosed() throws {
        var h = Harness(try loadShipped("digest-modern.yaml"))
        var challenge = try #require(h.send("GET", "/doe.json").digestChallenge("SHA-512-256"))
        let client = DigestClient(user: "J\u{E4}s\u{F8}n Doe", password: "Secret, or not?")
        // Compute everything with SHA-256, then claim SHA-512-256.
        challenge.parameters = challenge.parameters.map { $0.name == "algorithm" ? AuthParameter(name: "algorithm", value: "SHA-256", quoted: false) : $0 }
        let lying = client.authorization(for: challenge, uri: "/doe.json", overrides: ["algorithm": "SHA-512-256"])
        let plain = h.send(authorization: lying, "GET", "/doe.json")
        #expect(plain.verdict == .digestAlgorithmSubstituted)
        #expect(plain.entry?.detail == "the response was computed with SHA-256, but the client announced algorithm=SHA-512-256")
        let hashed = client.authorization(for: challenge, uri: "/doe.json", userhash: true, overrides: ["algorithm": "SHA-512-256"])
        let answer = h.send(authorization: hashed, "GET", "/doe.json")
        #expect(answer.verdict == .digestAlgorithmSubstituted)
        #expect(answer.entry?.credentials?.user == "J\u{E4}s\u{F8}n Doe")
    }

    /// RFC 2069 mode: no qop in the challenge; qop in the answer is refused, none is accepted.
    @Test func rfc2069Compatibility() throws {
        var h = Harness(try loadShipped("rfc2069.yaml"))
        let challenge = try #require(h.send().digestChallenge("MD5"))
        #expect(challenge[parameter: "qop"] == nil)
        #expect(challenge[parameter: "algorithm"] == nil)
        #expect(h.send(authorization: alice.authorization(for: challenge, qop: .auth)).verdict == .digestQOPNotOffered)
        let legacy = alice.authorization(for: challenge, qop: nil, omitting: ["algorithm"])
        #expect(h.send(authorization: legacy).verdict == .digestOK)
    }

    /// When qop is offered, leaving it out is refused.
    @Test func missingQOPIsRefused() throws {
        var h = try digest()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        #expect(h.send(authorization: alice.authorization(for: challenge, qop: nil)).verdict == .digestQOPMissing)
    }

    /// Nonce memory is bounded: the oldest are evicted, and an evicted nonce is stale, not unknown.
    @Test func nonceMemoryIsBounded() throws {
        var scenario = try loadShipped("digest.yaml")
        scenario.nonce.remember = 3
        var h = Harness(scenario)
        let oldest = try #require(h.send().digestChallenge("SHA-256"))
        for _ in 0..<5 { h.send() }
        #expect(h.engine.state.rememberedNonces == 3)
        #expect(h.send(authorization: alice.authorization(for: oldest)).verdict == .digestStaleNonce)
    }

    /// The same seed gives the same nonces: runs can be repeated.
    @Test func deterministicUnderSeed() throws {
        var a = try digest(), b = try digest()
        #expect(a.send().response == b.send().response)
    }
}
