import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// Server behaviours the suite relies on: engine rules that its cases assume, among them that the journal
/// records a body's digest as the judge computes it.
struct ConformanceEngineTests {
    /// `nonce.stale-first: 1` calls the first nonce stale on its first correct use, and only that one.
    @Test func staleFirst() throws {
        var harness = Harness(try loadScenario("""
            version: 1
            name: s
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Digest}]
            nonce: {stale-first: 1}
            """))
        let client = DigestClient(user: "alice", password: "wonderland")
        let first = harness.send()
        let stale = harness.send(authorization: client.authorization(for: try #require(first.digestChallenge("MD5"))))
        #expect(stale.verdict == .digestStaleNonce)
        #expect(stale.digestChallenge("MD5")?[parameter: "stale"] == "true")
        let ok = harness.send(authorization: client.authorization(for: try #require(stale.digestChallenge("MD5"))))
        #expect(ok.verdict == .digestOK)
    }

    /// An auth-int response computed over an empty body, as curl 7.88 sends it, is named for what it is.
    @Test func authIntWithoutBody() throws {
        var harness = Harness(try loadScenario("""
            version: 1
            name: s
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Digest, qop: auth-int}]
            """))
        let challenge = try #require(harness.send("POST").digestChallenge("MD5"))
        let client = DigestClient(user: "alice", password: "wonderland")
        let body = Array("name=alice".utf8)
        let wrong = harness.send(authorization: client.authorization(for: challenge, method: "POST", qop: .authInt), "POST", body: body)
        #expect(wrong.verdict == .digestAuthIntWithoutBody)
        let right = harness.send(
            authorization: DigestClient(user: "alice", password: "wonderland", nc: 2).authorization(for: challenge, method: "POST", body: body, qop: .authInt),
            "POST", body: body
        )
        #expect(right.verdict == .digestOK)
        #expect(right.entry?.bodySHA256 == Judge.sha256Hex(body))
    }

    /// Resource headers name the server's other listeners; the shell fills them in.
    @Test func linksInResourceHeaders() throws {
        var harness = Harness(try loadScenario("""
            version: 1
            name: s
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            resources:
              - path: /
                status: 302
                headers: {Location: "{other_host_url}landing"}
            """))
        harness.engine.setLinks(["other_host_url": "http://localhost:8080/", "unknown": "x"])
        let answer = harness.send(authorization: basic("alice", "wonderland"))
        #expect(answer.status == 302)
        #expect(answer.response.headers.first("Location") == "http://localhost:8080/landing")
        #expect(harness.engine.links == ["other_host_url": "http://localhost:8080/"])
    }

    /// A proxy may be scripted to answer 401 (a broken proxy), with WWW-Authenticate, chunked and closing.
    @Test func brokenProxyChallenge() throws {
        let scenario = try loadScenario("""
            version: 1
            name: p
            users: []
            challenges: []
            resources: [{path: /, protected: false}]
            proxy:
              users: [{name: carrier, password: pigeon}]
              challenges: [{scheme: Basic}]
              unauthorized: {status: 401, chunked: true, close: true}
            """)
        var random = RandomSource.seeded(1)
        var proxy = Engine(scenario: try #require(scenario.proxyScenario), configuration: .init(hop: .proxy), random: &random)
        var journal = JournalLog()
        let answer = proxy.handle(Request(method: "CONNECT", target: "localhost:8443"), now: t0, random: &random, journal: &journal)
        #expect(answer.status == 401)
        #expect(answer.response.headers.first("WWW-Authenticate") == "Basic realm=\"authmock proxy\"")
        #expect(answer.response.headers.first("Proxy-Authenticate") == nil)
        #expect(answer.response.chunked && answer.response.closeConnection)
        #expect(answer.entry?.challenges == ["Basic realm=\"authmock proxy\""])
    }
}
