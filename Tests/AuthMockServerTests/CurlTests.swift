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
            let reset = try await curl(["-X", "POST", server.url + "_authmock/reset"])
            #expect(reset.status == 200)
            #expect(server.journal.isEmpty)
        }
    }
}

/// Password changes seen through curl: the timeline and the control endpoint.
@Suite(.serialized)
struct PasswordChangeCurlTests {
    /// After the timeline changes alice's password, curl with the old one fails; the journal counts its
    /// attempts with the dead password (curl tries it once per run: it does not loop).
    @Test func timelineChange() async throws {
        try await withServer(try shipped("password-change.yaml")) { server in
            let first = try await curl(["--digest", "-u", "alice:wonderland", server.url])
            #expect(first.status == 200)
            for _ in 0..<3 {
                let dead = try await curl(["--digest", "-u", "alice:wonderland", server.url])
                #expect(dead.status == 401)
            }
            let journal = server.journal
            #expect(journal.filter { $0.verdict == .userPasswordChanged }.count == 1)
            #expect(journal.filter { $0.verdict == .credentialStalePassword }.count == 3, "one dead-password attempt per curl run")
            let renewed = try await curl(["--digest", "-u", "alice:looking-glass", server.url])
            #expect(renewed.status == 200)
        }
    }

    /// The control endpoint changes a password mid-run.
    @Test func controlChange() async throws {
        try await withServer(try shipped("password-change.yaml")) { server in
            let before = try await curl(["--basic", "-u", "bob:builder", server.url])
            #expect(before.status == 200)
            let change = try await curl(["-X", "POST", "-d", #"{"password": "rebuilt"}"#, server.url + "_authmock/users/bob"])
            #expect(change.status == 200)
            #expect(change.body.contains(#""password":"rebuilt""#))
            let old = try await curl(["--basic", "-u", "bob:builder", server.url])
            #expect(old.status == 401)
            #expect(server.journal.last?.verdict == .credentialStalePassword)
            let new = try await curl(["--basic", "-u", "bob:rebuilt", server.url])
            #expect(new.status == 200)
        }
    }
}

/// NTLM through curl, the reference client: three legs on one connection, NTLMv2, refusals.
@Suite(.serialized)
struct NTLMCurlTests {
    @Test func ntlmHandshake() async throws {
        try await withServer(try shipped("ntlm.yaml")) { server in
            let ok = try await curl(["--ntlm", "-u", #"EXAMPLE\alice:wonderland"#, server.url])
            #expect(ok.status == 200)
            #expect(ok.body == "Hello, alice!\n")
            let journal = server.journal
            #expect(journal.map(\.verdict) == [.ntlmNegotiate, .ntlmOK], "NEGOTIATE → CHALLENGE, then AUTHENTICATE")
            #expect(Set(journal.map(\.connection)).count == 1, "all legs on one connection")
            #expect(journal.map(\.exchange) == [1, 2])
            #expect(journal[1].credentials?.params?["version"] == "NTLMv2")
            #expect(journal[1].credentials?.params?["domain"] == "EXAMPLE")
            _ = await server.waitForConnectionsToClose()
            #expect(server.core.withEngine { $0.state.ntlmConnections } == 0, "a closed connection leaves no NTLM state")
        }
    }

    @Test func ntlmWrongPassword() async throws {
        try await withServer(try shipped("ntlm.yaml")) { server in
            let wrong = try await curl(["--ntlm", "-u", #"EXAMPLE\alice:nope"#, server.url])
            #expect(wrong.status == 401)
            #expect(server.journal.map(\.verdict) == [.ntlmNegotiate, .ntlmWrongPassword])
        }
    }

    /// Without target info in the CHALLENGE, curl 7.88 still answers with NTLMv2 (it does not downgrade
    /// to NTLMv1), so a server that refuses v1 still lets it in.
    @Test func noDowngradeWithoutTargetInfo() async throws {
        var scenario = try shipped("ntlm.yaml")
        scenario.challenges = [.ntlm(NTLMChallenge(targetInfo: false, allowV1: false, domain: "EXAMPLE"))]
        try await withServer(scenario) { server in
            let answer = try await curl(["--ntlm", "-u", #"EXAMPLE\alice:wonderland"#, server.url])
            #expect(answer.status == 200)
            #expect(server.journal.last?.verdict == .ntlmOK)
            #expect(server.journal.last?.credentials?.params?["version"] == "NTLMv2")
        }
    }

    /// Malformed NTLM over the wire: 400 and a journal entry; the server keeps serving.
    @Test func malformedOverTheWire() async throws {
        try await withServer(try shipped("ntlm.yaml")) { server in
            let forged = "TlRMTVNTUAADAAAAGAAYAP////8YABgAQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=="
            let response = try rawExchange(port: server.port, Array("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: NTLM \(forged)\r\nConnection: close\r\n\r\n".utf8))
            #expect(response.hasPrefix("HTTP/1.1 400 "))
            #expect(server.journal.last?.verdict == .ntlmMalformed)
            let ok = try await curl(["--ntlm", "-u", #"EXAMPLE\alice:wonderland"#, server.url])
            #expect(ok.status == 200)
        }
    }
}
