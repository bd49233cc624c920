@testable import AuthMockServer
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// NTLM through curl, the reference client: three legs on one connection, NTLMv2, refusals.
@Suite(.serialized)
struct NTLMCurlTests {
    /// curl's NEGOTIATE, then AUTHENTICATE, on one connection, is granted with NTLMv2; the closed
    /// connection leaves no NTLM state behind.
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
            #expect(server.stateSizes.ntlmConnections == 0, "a closed connection leaves no NTLM state")
        }
    }

    /// A wrong password gets 401 after the full handshake, journaled as `ntlm.wrong-password`.
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
