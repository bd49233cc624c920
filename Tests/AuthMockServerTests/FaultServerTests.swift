import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// A scenario's `faults:` played on real connections: what a client sees on the wire.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct FaultServerTests {
    static func scenario(_ faults: String, resources: String = "") -> Scenario {
        let yaml = """
            version: 1
            name: faults
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            \(resources)
            faults:
            \(faults)
            """
        return try! ScenarioLoader.load(yaml: yaml, file: "faults.yaml", files: .fileSystem)
    }

    static let authorized = "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic \(Data("alice:wonderland".utf8).base64EncodedString())\r\n\r\n"
    static let anonymous = "GET / HTTP/1.1\r\nHost: x\r\n\r\n"

    /// `close`: the 401 is framed as keep-alive (no `Connection: close`); the request that reuses the
    /// connection ends it unanswered (and unjournaled: it never reached HTTP). `times: 1` plays it once:
    /// the next challenge is an ordinary one.
    @Test func closeAfterTheChallenge() async throws {
        try await withServer(Self.scenario("  - {when: challenge, effect: close, times: 1}")) { server in
            let first = try RawConnection(port: server.port)
            try first.send(Self.anonymous)
            let response = try #require(first.readResponse())
            #expect(response.head.hasPrefix("HTTP/1.1 401 "))
            #expect(!response.head.lowercased().contains("connection: close"))
            try first.send(Self.authorized)
            #expect(first.readToEnd().isEmpty, "the reused connection ends without an answer")

            let second = try RawConnection(port: server.port)
            try second.send(Self.anonymous)
            #expect(second.readResponse()?.head.hasPrefix("HTTP/1.1 401 ") == true)
            try second.send(Self.authorized)
            #expect(second.readResponse()?.head.hasPrefix("HTTP/1.1 200 ") == true, "the connection stays open after an ordinary 401")

            let faults = server.journal.map(\.fault)
            #expect(faults == ["close", nil, nil])
        }
    }

    /// `disconnect`: the connection ends without a byte of answer; the exchange is still journaled.
    @Test func disconnectWithoutAnswer() async throws {
        try await withServer(Self.scenario("  - {when: granted, effect: disconnect}")) { server in
            let text = try rawExchange(port: server.port, Array(Self.authorized.utf8))
            #expect(text.isEmpty)
            #expect(server.journal.last?.status == 200)
            #expect(server.journal.last?.fault == "disconnect")
        }
    }

    /// `drop-body`: the head promises the whole body; half of it comes before the connection ends.
    @Test func dropMidBody() async throws {
        let resources = "resources: [{path: /, body: \"0123456789abcdefghij\"}]"
        try await withServer(Self.scenario("  - {when: granted, effect: drop-body}", resources: resources)) { server in
            let text = try rawExchange(port: server.port, Array(Self.authorized.utf8))
            #expect(text.hasPrefix("HTTP/1.1 200 "))
            #expect(text.contains("Content-Length: 20"))
            #expect(text.hasSuffix("\r\n\r\n0123456789"), "half the body, then the end: \(text)")
            #expect(server.journal.last?.fault == "drop-body")
        }
    }

    /// `delay`: the answer comes, complete, after the duration.
    @Test func delayedAnswer() async throws {
        try await withServer(Self.scenario("  - {when: any, effect: delay, duration: 300ms}")) { server in
            let connection = try RawConnection(port: server.port)
            let start = ContinuousClock.now
            try connection.send(Self.anonymous)
            let response = try #require(connection.readResponse())
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect(response.head.hasPrefix("HTTP/1.1 401 "))
            #expect(server.journal.last?.fault == "delay 0.3s")
        }
    }

    /// `stall` with a duration: nothing is sent, then the connection closes. Another connection is
    /// served meanwhile.
    @Test func stallThenClose() async throws {
        try await withServer(Self.scenario("  - {when: granted, effect: stall, duration: 500ms, path: /slow}", resources: "resources: [{path: /}, {path: /slow}]")) { server in
            let stalled = try RawConnection(port: server.port)
            let start = ContinuousClock.now
            try stalled.send(Self.authorized.replacingOccurrences(of: "GET / ", with: "GET /slow "))
            let other = try rawExchange(port: server.port, Array((Self.authorized.dropLast() + "Connection: close\r\n\r\n").utf8))
            #expect(other.hasPrefix("HTTP/1.1 200 "), "another connection is answered while one stalls")
            #expect(stalled.readToEnd().isEmpty)
            #expect(ContinuousClock.now - start >= .milliseconds(500))
            #expect(server.journal.first { $0.target == "/slow" }?.fault == "stall 0.5s")
        }
    }

    /// A stall without a duration holds the connection until the client leaves; shutdown closes it at
    /// once instead of spending its grace period waiting for an answer that never comes.
    @Test func shutdownDoesNotWaitForAStall() async throws {
        let server = AuthMockServer(
            scenario: Self.scenario("  - {when: granted, effect: stall}"), configuration: ServerConfiguration(port: 0, shutdownGracePeriod: .seconds(60))
        )
        try await server.start()
        let stalled = try RawConnection(port: server.port)
        try stalled.send(Self.authorized)
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        while server.stateSizes.stalledConnections == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        #expect(server.stateSizes.stalledConnections == 1)
        let start = ContinuousClock.now
        try await server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(30), "well before the 60 s grace period")
        #expect(stalled.readToEnd().isEmpty)
    }

    /// The proxy's faults apply to its 407s.
    @Test func proxyClosesAfterItsChallenge() async throws {
        let yaml = """
            version: 1
            name: proxy-faults
            users: []
            challenges: []
            resources: [{path: /, protected: false}]
            proxy:
              users: [{name: carrier, password: pigeon}]
              challenges: [{scheme: Basic}]
              faults: [{when: challenge, effect: close}]
            """
        try await withServer(try ScenarioLoader.load(yaml: yaml, file: "proxy-faults.yaml", files: .fileSystem)) { server in
            let proxyPort = try #require(server.proxyURL.flatMap { URL(string: $0)?.port })
            let connection = try RawConnection(port: proxyPort)
            try connection.send("GET http://127.0.0.1:\(server.port)/ HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n")
            let response = try #require(connection.readResponse())
            #expect(response.head.hasPrefix("HTTP/1.1 407 "))
            #expect(!response.head.lowercased().contains("connection: close"))
            _ = connection.send(bytes: Array("GET http://127.0.0.1:\(server.port)/ HTTP/1.1\r\n\r\n".utf8))
            #expect(connection.readToEnd().isEmpty)
            #expect(server.journal.last?.hop == .proxy)
            #expect(server.journal.last?.fault == "close")
        }
    }
}
