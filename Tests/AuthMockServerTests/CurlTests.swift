@testable import AuthMockServer
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// The real server, in-process on a free port, driven by curl. Serialized: each test owns one server
/// and a handful of curl runs, and the machine has two cores.
@Suite(.serialized)
struct CurlTests {
    /// `curl --digest` succeeds on digest.yaml: 401, then SHA-256 (the first challenge) on the same connection.
    @Test func digestSucceeds() async throws {
        try await withServer(try shipped("digest.yaml")) { server in
            let (status, body, _) = try await curl(["--digest", "-u", "alice:wonderland", server.url])
            #expect(status == 200)
            #expect(body == "Hello, alice!\n")
            let journal = server.journal
            #expect(journal.map(\.verdict) == [.noCredentials, .digestOK])
            #expect(journal.map(\.connection) == [journal[0].connection, journal[0].connection])
            #expect(journal.map(\.exchange) == [1, 2])
            #expect(journal[1].credentials?.params?["algorithm"] == "SHA-256")
            #expect(journal[1].credentials?.params?["opaque"] != nil)
        }
    }

    /// A wrong password gets 401 and the journal says why.
    @Test func digestWrongPassword() async throws {
        try await withServer(try shipped("digest.yaml")) { server in
            let (status, _, _) = try await curl(["--digest", "-u", "alice:not-it", server.url])
            #expect(status == 401)
            #expect(server.journal.last?.verdict == .digestBadResponse)
            #expect(server.journal.last?.detail?.contains("alice") == true)
            #expect(server.journal.count == 2, "curl must not retry a rejected password")
        }
    }

    /// The Digest uri carries the query string, and the server checks it.
    @Test func digestWithQuery() async throws {
        try await withServer(try shipped("digest.yaml")) { server in
            let (status, body, _) = try await curl(["--digest", "-u", "alice:wonderland", server.url + "search?q=rabbit&page=2"])
            #expect(status == 200)
            #expect(body == "Results for alice.\n")
            #expect(server.journal.last?.credentials?.params?["uri"] == "/search?q=rabbit&page=2")
        }
    }

    /// A nonce past its lifetime: the right credentials get stale=true, and curl retries with the new nonce.
    @Test func staleNonceRecovery() async throws {
        // The clock jumps 60 s (past the 30 s lifetime) between curl's challenge and its answer: it is read
        // once when the server starts, then once per request.
        let clock = JumpingClock(jumpAfter: 2, by: 60)
        let configuration = ServerConfiguration(port: 0, clock: { clock.now() })
        try await withServer(try shipped("digest.yaml"), configuration: configuration) { server in
            let (status, body, _) = try await curl(["--digest", "-u", "alice:wonderland", server.url])
            #expect(status == 200)
            #expect(body == "Hello, alice!\n")
            let journal = server.journal
            #expect(journal.map(\.verdict) == [.noCredentials, .digestStaleNonce, .digestOK])
            #expect(journal[1].challenges?.allSatisfy { $0.contains("stale=true") } == true)
            #expect(journal[0].challenges?.contains { $0.contains("stale") } == false)
        }
    }

    /// userhash and UTF-8 names with SHA-256: curl sends H(user:realm) and the server resolves it.
    @Test func digestUserhash() async throws {
        var scenario = try shipped("digest-modern.yaml")
        scenario.challenges = [.digest(DigestChallenge(algorithm: .sha256, qop: [.auth], userhash: true, charsetUTF8: true))]
        try await withServer(scenario) { server in
            let (status, _, _) = try await curl(["--digest", "-u", "J\u{E4}s\u{F8}n Doe:Secret, or not?", server.url + "doe.json"])
            #expect(status == 200)
            let last = try #require(server.journal.last)
            #expect(last.verdict == .digestOK)
            #expect(last.credentials?.params?["userhash"] == "true")
            #expect(last.credentials?.user == "J\u{E4}s\u{F8}n Doe")
        }
    }

    /// SHA-512-256: curl 7.x announces it but hashes with SHA-256; authmock names that exactly.
    /// (curl 8 computes SHA-512/256 properly and gets in.)
    @Test func digestSHA512_256() async throws {
        let major = try await curlMajorVersion()
        try await withServer(try shipped("digest-modern.yaml")) { server in
            let (status, _, _) = try await curl(["--digest", "-u", "J\u{E4}s\u{F8}n Doe:Secret, or not?", server.url + "doe.json"])
            let last = try #require(server.journal.last)
            #expect(last.credentials?.params?["algorithm"] == "SHA-512-256")
            if major < 8 {
                #expect(status == 401)
                #expect(last.verdict == .digestAlgorithmSubstituted)
                #expect(last.detail?.contains("SHA-256") == true)
                #expect(server.journal.count == 2, "curl gives up after one rejected answer")
            } else {
                #expect(status == 200)
                #expect(last.verdict == .digestOK)
            }
        }
    }

    /// Basic: preemptive with --basic, UTF-8 credentials, 403 after valid credentials, public path.
    @Test func basic() async throws {
        try await withServer(try shipped("basic.yaml")) { server in
            let ok = try await curl(["--basic", "-u", "alice:wonderland", server.url])
            #expect(ok.status == 200)
            let utf8 = try await curl(["--basic", "-u", "zo\u{EB}:p\u{E4}ssw\u{F6}rd", server.url])
            #expect(utf8.status == 200)
            let forbidden = try await curl(["--basic", "-u", "alice:wonderland", server.url + "admin"])
            #expect(forbidden.status == 403)
            let open = try await curl([server.url + "public"])
            #expect(open.status == 200)
            let wrong = try await curl(["--basic", "-u", "alice:nope", server.url])
            #expect(wrong.status == 401)
            #expect(server.journal.map(\.verdict) == [.basicOK, .basicOK, .basicOK, .publicResource, .basicBadPassword])
        }
    }

    /// --anyauth waits for the challenge, then picks Digest over Basic from one combined field.
    @Test func anyauthPrefersDigest() async throws {
        try await withServer(try shipped("scheme-choice.yaml")) { server in
            let (status, _, _) = try await curl(["--anyauth", "-u", "alice:wonderland", server.url])
            #expect(status == 200)
            #expect(server.journal.map(\.verdict) == [.noCredentials, .digestOK])
        }
    }

    /// A 401 with no WWW-Authenticate: --anyauth has nothing to answer and stops after one request.
    @Test func noChallengeMeansNoCredentials() async throws {
        try await withServer(try shipped("broken-401.yaml")) { server in
            let (status, body, _) = try await curl(["--anyauth", "-u", "alice:wonderland", server.url])
            #expect(status == 401)
            #expect(body.contains("forgot to say how"))
            #expect(server.journal.count == 1)
            #expect(server.journal[0].credentials == nil)
        }
    }

    /// Keep-alive: two URLs in one curl run share a connection, and the journal shows it.
    @Test func connectionReuseIsVisible() async throws {
        try await withServer(try shipped("basic.yaml")) { server in
            _ = try await curl(["--basic", "-u", "alice:wonderland", server.url, server.url + "public"])
            let journal = server.journal
            #expect(journal.count == 2)
            #expect(journal[0].connection == journal[1].connection)
            #expect(journal.map(\.exchange) == [1, 2])
        }
    }

    /// The control endpoints over HTTP: the journal as JSON, and reset.
    @Test func controlEndpoints() async throws {
        try await withServer(try shipped("digest.yaml")) { server in
            _ = try await curl(["--digest", "-u", "alice:wonderland", server.url])
            let page = try await curl([server.url + "_authmock/journal"])
            #expect(page.status == 200)
            let decoded = try JSONDecoder().decode(Engine.JournalPage.self, from: Data(page.body.utf8))
            #expect(decoded.entries.map(\.verdict) == [.noCredentials, .digestOK])
            let reset = try await curl(["-X", "POST", "-H", "Content-Type: application/json", server.url + "_authmock/reset"])
            #expect(reset.status == 200)
            #expect(server.journal.isEmpty)
        }
    }
}
