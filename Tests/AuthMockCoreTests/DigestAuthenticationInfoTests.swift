import Foundation
import Testing
@testable import AuthMockCore

/// `authentication-info:` on a Digest challenge (RFC 7616 §3.5): rspauth right or forged, and a nextnonce the
/// engine remembers and recognises when it comes back.
struct DigestAuthenticationInfoTests {
    let alice = DigestClient(user: "alice", password: "wonderland")

    func scenario(_ info: String, qop: String = "auth", proxy: Bool = false) throws -> Scenario {
        try load(
            """
            version: 1
            name: info
            users: [{name: alice, password: wonderland}]
            challenges:
              - scheme: Digest
                algorithm: SHA-256
                qop: \(qop)
                authentication-info: \(info)
            resources: [{path: /, body: "Hello, {user}!"}]
            """
        )
    }

    /// RFC 7616 §3.9.1's request (Mufasa, "Circle of Life"): rspauth is the response with an empty method,
    /// A2 = ":" uri. The RFC prints no rspauth; these values were computed independently with Python's hashlib.
    @Test(arguments: [
        (DigestAlgorithm.md5, "9b712497bc9f91499fbcca1dfc5f09a5"),
        (DigestAlgorithm.sha256, "86d3b25618d41854ca5039a5d7e53ff6355d5134a9b1fb088a78ac3c462195a0"),
    ])
    func rspauthOfTheRFCExample(algorithm: DigestAlgorithm, expected: String) {
        let inputs = DigestInputs(
            algorithm: algorithm, username: "Mufasa", realm: "http-auth@example.org", password: "Circle of Life",
            method: "GET", uri: "/dir/index.html", nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", qop: .auth,
            nc: "00000001", cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        )
        #expect(inputs.rspauth(responseBody: []) == expected)
        #expect(inputs.rspauth(responseBody: []) != inputs.response, "the method is left out of A2")
        var noQOP = inputs
        noQOP.qop = nil
        #expect(noQOP.rspauth(responseBody: []) == nil, "RFC 2069 answers have no rspauth")
    }

    /// A right rspauth is the one a verifying client computes; qop, cnonce and nc echo the request.
    @Test func rightRspauthIsTheOneTheClientComputes() throws {
        var h = Harness(try scenario("{rspauth: right}"))
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let ok = h.send(authorization: alice.authorization(for: challenge))
        #expect(ok.status == 200)
        #expect(ok.verdict == .digestOK)
        let info = try #require(ok.response.headers.values("Authentication-Info").first)
        let fields = try #require(try AuthHeader.parseChallenges("X " + info).first)
        let expected = DigestInputs(
            algorithm: .sha256, username: "alice", realm: "authmock", password: "wonderland", method: "",
            uri: "/", nonce: challenge[parameter: "nonce"]!, qop: .auth, nc: "00000001", cnonce: "0a4f113b"
        ).response
        #expect(fields[parameter: "rspauth"] == expected)
        #expect(fields[parameter: "qop"] == "auth")
        #expect(fields[parameter: "cnonce"] == "0a4f113b")
        #expect(fields[parameter: "nc"] == "00000001")
        #expect(fields[parameter: "nextnonce"] == nil)
        #expect(ok.entry?.detail == "authenticated as alice; sent Authentication-Info with a right rspauth")
    }

    /// A forged rspauth has the algorithm's length and hex digits, and is not the right one.
    @Test func forgedRspauthIsWellFormedAndWrong() throws {
        var h = Harness(try scenario("{rspauth: forged}"))
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let ok = h.send(authorization: alice.authorization(for: challenge))
        let info = try #require(ok.response.headers.values("Authentication-Info").first)
        let rspauth = try #require(try AuthHeader.parseChallenges("X " + info).first?[parameter: "rspauth"])
        let right = DigestInputs(
            algorithm: .sha256, username: "alice", realm: "authmock", password: "wonderland", method: "",
            uri: "/", nonce: challenge[parameter: "nonce"]!, qop: .auth, nc: "00000001", cnonce: "0a4f113b"
        ).response
        #expect(rspauth.count == 64 && rspauth.allSatisfy(\.isHexDigit))
        #expect(rspauth != right)
        #expect(ok.entry?.detail?.hasSuffix("with a forged rspauth") == true)
    }

    /// auth-int: the rspauth covers the body of the response the client gets.
    @Test func authIntRspauthCoversTheResponseBody() throws {
        var h = Harness(try scenario("{rspauth: right}", qop: "auth-int"))
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let ok = h.send(authorization: alice.authorization(for: challenge, qop: .authInt))
        #expect(ok.status == 200)
        let info = try #require(ok.response.headers.values("Authentication-Info").first)
        let rspauth = try #require(try AuthHeader.parseChallenges("X " + info).first?[parameter: "rspauth"])
        let inputs = DigestInputs(
            algorithm: .sha256, username: "alice", realm: "authmock", password: "wonderland", method: "GET",
            uri: "/", nonce: challenge[parameter: "nonce"]!, qop: .authInt, nc: "00000001", cnonce: "0a4f113b"
        )
        #expect(rspauth == inputs.rspauth(responseBody: ok.response.body))
        #expect(rspauth != inputs.rspauth(responseBody: []))
    }

    /// The nextnonce is remembered: the next request with it is granted as `digest.nextnonce-used`; the
    /// challenge's own nonce goes on being `digest.ok`. Without rspauth, qop, cnonce and nc are left out.
    @Test func nextnonceIsIssuedAndRecognised() throws {
        var h = Harness(try scenario("{nextnonce: true, rspauth: none}"))
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let first = h.send(authorization: alice.authorization(for: challenge))
        #expect(first.verdict == .digestOK)
        let info = try #require(first.response.headers.values("Authentication-Info").first)
        #expect(info.hasPrefix("nextnonce=\""))
        #expect(!info.contains("rspauth") && !info.contains("qop"))
        let next = try #require(try AuthHeader.parseChallenges("X " + info).first?[parameter: "nextnonce"])
        #expect(next != challenge[parameter: "nonce"])

        var nextChallenge = challenge
        nextChallenge.parameters = challenge.parameters.map {
            $0.name == "nonce" ? AuthParameter(name: "nonce", value: next, quoted: true) : $0
        }
        let second = h.send(authorization: alice.authorization(for: nextChallenge))
        #expect(second.status == 200)
        #expect(second.verdict == .digestNextnonceUsed)
        #expect(second.entry?.detail?.hasPrefix("authenticated as alice with the nextnonce of an earlier") == true)

        var again = alice
        again.nc = 2
        let reused = h.send(authorization: again.authorization(for: challenge))
        #expect(reused.verdict == .digestOK, "the old nonce is still valid; using it is allowed (SHOULD)")
    }

    /// On the proxy hop the field is Proxy-Authentication-Info.
    @Test func proxyHopSendsProxyAuthenticationInfo() throws {
        let scenario = try load(
            """
            version: 1
            name: info
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            proxy:
              users: [{name: carrier, password: pigeon}]
              challenges:
                - scheme: Digest
                  authentication-info: {rspauth: right}
            """
        )
        var random = RandomSource.seeded(1)
        var engine = Engine(
            scenario: try #require(scenario.proxyScenario), configuration: .init(hop: .proxy), random: &random
        )
        var journal = JournalLog(capacity: 10)
        let target = "http://127.0.0.1:1/"
        let challenged = engine.handle(Request(method: "GET", target: target), now: t0, random: &random, journal: &journal)
        let value = try #require(challenged.response.headers.values("Proxy-Authenticate").first)
        let challenge = try #require(try AuthHeader.parseChallenges(value).first)
        let answer = DigestClient(user: "carrier", password: "pigeon").authorization(for: challenge, uri: target)
        let ok = engine.handle(
            Request(method: "GET", target: target, headers: [HeaderField("Proxy-Authorization", answer)]), now: t0,
            random: &random, journal: &journal
        )
        #expect(ok.response.status == 200)
        #expect(ok.response.headers.values("Proxy-Authentication-Info").count == 1)
        #expect(ok.response.headers.values("Authentication-Info").isEmpty)
        #expect(ok.entry?.detail?.hasSuffix("sent Proxy-Authentication-Info with a right rspauth") == true)
    }

    /// Off by default; a bad value or an empty header is refused with its place.
    @Test func readerDefaultsAndDiagnostics() throws {
        let head = "version: 1\nname: x\nusers: [{name: a, password: b}]\nchallenges:\n  - scheme: Digest\n"
        let plain = try load(head)
        guard case .digest(let digest) = plain.challenges[0] else { Issue.record("not Digest"); return }
        #expect(digest.authenticationInfo == nil)
        let fake = diagnostics(head + "    authentication-info: {rspauth: fake}\n")
        #expect(fake.first?.hasPrefix("bad.yaml:6:") == true && fake.first?.contains("rspauth 'fake' is not known") == true, "\(fake)")
        let empty = diagnostics(head + "    authentication-info: {rspauth: none}\n")
        #expect(empty.first?.contains("sends nothing") == true, "\(empty)")
        #expect(!diagnostics(head + "    authentication-info: {next: true}\n").isEmpty)
        let both = try load(head + "    authentication-info: {nextnonce: true}\n")
        guard case .digest(let info) = both.challenges[0] else { Issue.record("not Digest"); return }
        #expect(info.authenticationInfo == DigestAuthenticationInfo(nextnonce: true, rspauth: .right))
    }
}
