@testable import AuthMockServer
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite(.serialized)
struct ShutdownTests {
    /// A request still arriving when shutdown starts is answered in full; then the connection closes,
    /// new connections are refused, and its journal entry is there.
    @Test func inFlightRequestFinishes() async throws {
        let server = AuthMockServer(scenario: try shipped("basic.yaml"), configuration: ServerConfiguration(port: 0))
        try await server.start()
        let port = server.port
        let client = try RawConnection(port: port)
        try client.send("POST /public HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345")
        // Wait until the server has accepted the connection and seen the head, then start shutting down.
        try await Task.sleep(for: .milliseconds(100))
        let shutdown = Task { try await server.shutdown() }
        // Under load the listeners may take a while to close; wait until the connections were asked to
        // finish, so that the rest of the body surely arrives after that.
        while !server.connections.isClosing { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(20))
        #expect((try? RawConnection(port: port)) == nil, "the listener is closed once shutdown starts")
        try client.send("67890")
        let response = client.readToEnd()
        try await shutdown.value
        #expect(response.hasPrefix("HTTP/1.1 200 "))
        #expect(response.hasSuffix("\r\n\r\nAnyone may read this.\n"))
        #expect(response.lowercased().contains("connection: close"))
        #expect(server.journal.last?.bodyBytes == 10)
        #expect(server.journal.last?.verdict == .publicResource)
    }

    /// Idle keep-alive connections are closed at once rather than waiting for the grace period.
    @Test func idleConnectionsCloseQuickly() async throws {
        let server = AuthMockServer(scenario: try shipped("basic.yaml"), configuration: ServerConfiguration(port: 0, shutdownGracePeriod: .seconds(30)))
        try await server.start()
        let client = try RawConnection(port: server.port)
        try client.send("GET /public HTTP/1.1\r\nHost: x\r\n\r\n")
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        try await server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(5))
        #expect(client.readToEnd().hasPrefix("HTTP/1.1 200 "))
    }

    /// A client that sent half a request head when shutdown began: the connection is closed after the
    /// grace period and the half request journaled, without writing to a quiesced pipeline (which NIO
    /// traps on in debug builds — found by the pytest recipe sending SIGTERM to `authmock serve`).
    @Test func aHalfSentRequestHeadDoesNotCrashShutdown() async throws {
        let server = AuthMockServer(scenario: try shipped("basic.yaml"), configuration: ServerConfiguration(port: 0, shutdownGracePeriod: .milliseconds(200)))
        try await server.start()
        let client = try RawConnection(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n")
        try await Task.sleep(for: .milliseconds(100))
        try await server.shutdown()
        #expect(client.readToEnd() == "")
        let last = try #require(server.journal.last)
        #expect(last.verdict == .malformedRequest)
        #expect(last.detail?.contains("before the request head was complete") == true)
    }
}
