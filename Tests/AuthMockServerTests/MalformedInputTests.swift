import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// Hostile and broken clients over raw sockets: a clear 4xx, a journal entry for each, and a server that
/// keeps serving.
@Suite(.serialized)
struct MalformedInputTests {
    static let cases: [(name: String, request: String, status: Int, verdict: Verdict)] = [
        ("garbage request line", "GARBAGE\r\n\r\n", 400, .malformedRequest),
        ("header without colon", "GET / HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n", 400, .malformedRequest),
        ("oversized header", "GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n", 431, .headersTooLarge),
        ("huge Authorization", "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Digest username=\"\(String(repeating: "a", count: 9_000))\"\r\n\r\n", 431, .headersTooLarge),
        ("broken base64", "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic %%%notbase64\r\nConnection: close\r\n\r\n", 400, .basicMalformed),
        ("no colon in Basic", "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YWxpY2U=\r\nConnection: close\r\n\r\n", 400, .basicMalformed),
        ("two Authorization headers", "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic YTpi\r\nAuthorization: Basic YTpj\r\nConnection: close\r\n\r\n", 400, .duplicateAuthorization),
        ("unterminated Digest quote", "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Digest username=\"alice\r\nConnection: close\r\n\r\n", 400, .malformedAuthorization),
        ("empty Authorization", "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: \r\nConnection: close\r\n\r\n", 400, .malformedAuthorization),
    ]

    /// Each malformed request gets its status and exactly one journal entry naming the fault.
    @Test func malformedRequestsAreRefusedAndJournaled() async throws {
        var scenario = try shipped("basic.yaml")
        scenario.challenges.append(.digest(DigestChallenge(algorithm: .sha256)))
        try await withServer(scenario) { server in
            for (index, testCase) in Self.cases.enumerated() {
                let response = try rawExchange(port: server.port, Array(testCase.request.utf8))
                #expect(response.hasPrefix("HTTP/1.1 \(testCase.status) "), "\(testCase.name): \(response.prefix(80))")
                let journal = server.journal
                #expect(journal.count == index + 1, "\(testCase.name): one journal entry per request")
                #expect(journal.last?.verdict == testCase.verdict, "\(testCase.name)")
                #expect(journal.last?.status == testCase.status, "\(testCase.name)")
            }
            // Still serving.
            let ok = try rawExchange(port: server.port, Array("GET /public HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(ok.hasPrefix("HTTP/1.1 200 "))
        }
    }

    /// A body over the limit gets 413 and the connection is closed.
    @Test func oversizedBody() async throws {
        let configuration = ServerConfiguration(port: 0, maxBodySize: 1000)
        try await withServer(try shipped("basic.yaml"), configuration: configuration) { server in
            let body = String(repeating: "x", count: 5000)
            let response = try rawExchange(port: server.port, Array("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\n\r\n\(body)".utf8))
            #expect(response.hasPrefix("HTTP/1.1 413 "))
            #expect(response.lowercased().contains("connection: close"))
            #expect(server.journal.last?.verdict == .bodyTooLarge)
            #expect(server.journal.last?.bodyBytes == 0)
        }
    }

    /// Expect: 100-continue with credentials is answered before the body is read, then decided as usual;
    /// without credentials on a protected path the challenge comes instead of 100 Continue, the body is
    /// read and dropped, and the connection closes.
    @Test func expectContinue() async throws {
        try await withServer(try shipped("basic.yaml")) { server in
            let credentials = "Authorization: Basic " + Data("alice:wonderland".utf8).base64EncodedString()
            let response = try rawExchange(
                port: server.port,
                Array("POST / HTTP/1.1\r\nHost: x\r\n\(credentials)\r\nExpect: 100-continue\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8)
            )
            #expect(response.hasPrefix("HTTP/1.1 100 Continue\r\n"))
            #expect(response.contains("HTTP/1.1 200 "))
            #expect(server.journal.last?.bodyBytes == 2)

            let challenged = try rawExchange(
                port: server.port, Array("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi".utf8)
            )
            #expect(challenged.hasPrefix("HTTP/1.1 401 "))
            #expect(!challenged.contains("100 Continue"))
            #expect(challenged.lowercased().contains("connection: close"))
            #expect(server.journal.last?.verdict == .noCredentials)
            #expect(server.journal.last?.bodyBytes == 0)
        }
    }

    /// A body sent in many small chunks arrives whole.
    @Test func chunkedBodyArrivesWhole() async throws {
        try await withServer(try shipped("basic.yaml")) { server in
            var request = "POST /public HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            for _ in 0..<500 { request += "1\r\nx\r\n" }
            request += "0\r\n\r\n"
            let response = try rawExchange(port: server.port, Array(request.utf8))
            #expect(response.hasPrefix("HTTP/1.1 200 "))
            #expect(server.journal.last?.bodyBytes == 500)
        }
    }

    /// No 100 Continue for HTTP/1.0, nor for a body already known to be too large (answered 413).
    @Test func continueOnlyWhenUseful() async throws {
        let configuration = ServerConfiguration(port: 0, maxBodySize: 1000)
        try await withServer(try shipped("basic.yaml"), configuration: configuration) { server in
            let old = try rawExchange(port: server.port, Array("POST / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi".utf8))
            #expect(old.hasPrefix("HTTP/1.0 401 "))
            let big = try rawExchange(
                port: server.port, Array("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5000\r\n\r\n\(String(repeating: "x", count: 5000))".utf8)
            )
            #expect(big.hasPrefix("HTTP/1.1 413 "))
        }
    }

    /// 204 responses carry no body, so keep-alive framing survives (two answers on one connection).
    @Test func noBodyOn204() async throws {
        var scenario = try shipped("basic.yaml")
        scenario.resources.append(Resource(path: "/empty", protected: false, status: 204))
        try await withServer(scenario) { server in
            let response = try rawExchange(
                port: server.port, Array("GET /empty HTTP/1.1\r\nHost: x\r\n\r\nGET /empty HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
            )
            #expect(response.components(separatedBy: "HTTP/1.1 204 ").count == 3)
            #expect(!response.contains("OK\n"))
        }
    }

    /// HEAD gets the headers of the GET without a body.
    @Test func headHasNoBody() async throws {
        try await withServer(try shipped("basic.yaml")) { server in
            let response = try rawExchange(port: server.port, Array("HEAD /public HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
            #expect(response.hasPrefix("HTTP/1.1 200 "))
            #expect(response.hasSuffix("\r\n\r\n"))
            #expect(response.contains("Content-Length: 22"))
        }
    }
}
