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
        try client.send("POST /public HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\nExpect: 100-continue\r\n\r\n12345")
        // The 100 Continue proves the server has accepted the connection and seen the head; then shut down.
        let interim = try #require(client.readResponse(), "no 100 Continue")
        #expect(interim.head.hasPrefix("HTTP/1.1 100 "))
        let shutdown = Task { try await server.shutdown() }
        // Under load the listeners may take a while to close; wait until the connections were asked to
        // finish, so that the rest of the body surely arrives after that.
        while !server.connections.isClosing { try await Task.sleep(for: .milliseconds(5)) }
        // The listener's close is its event loop's next task: on a loaded machine give it up to 10 s.
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var refused = false
        while !refused, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
            refused = (try? RawConnection(port: port)) == nil
        }
        #expect(refused, "the listener is closed once shutdown starts")
        try client.send("67890")
        let response = client.readToEnd()
        try await shutdown.value
        #expect(response.hasPrefix("HTTP/1.1 200 "))
        #expect(response.hasSuffix("\r\n\r\nAnyone may read this.\n"))
        #expect(response.lowercased().contains("connection: close"))
        #expect(server.journal.last?.bodyBytes == 10)
        #expect(server.journal.last?.verdict == .publicResource)
    }

    /// Waiting for the connections to close ends when the last one closes (woken by the close, not a
    /// poll), says false at its deadline while one stays open, and true at once when none is open.
    @Test func waitingForConnectionsEndsWithTheLastClose() async throws {
        let server = AuthMockServer(scenario: try shipped("basic.yaml"), configuration: ServerConfiguration(port: 0))
        try await server.start()
        #expect(await server.waitForConnectionsToClose(timeout: .zero), "no connection: true at once")
        var first: RawConnection? = try RawConnection(port: server.port)
        var second: RawConnection? = try RawConnection(port: server.port)
        try first?.send("GET /public HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(first?.readResponse() != nil)
        while server.connections.openCount < 2 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(await server.waitForConnectionsToClose(timeout: .milliseconds(50)) == false, "two open: false at the deadline")

        let waiting = Task { await server.waitForConnectionsToClose(timeout: .seconds(30)) }
        first = nil
        // The server sees the close on its event loop, some time after ours returned.
        #expect(try await waitForOpenConnections(server, 1), "the first close is seen, the second is open")
        let started = ContinuousClock.now
        second = nil
        #expect(await waiting.value, "the last close ends the wait")
        #expect(ContinuousClock.now - started < .seconds(20), "long before the 30 s deadline")
        _ = (first, second)
        try await server.shutdown()
    }

    /// A cancelled wait returns false at once and leaves nothing behind for the next close to resume.
    @Test func aCancelledWaitReturnsFalse() async throws {
        let server = AuthMockServer(scenario: try shipped("basic.yaml"), configuration: ServerConfiguration(port: 0))
        try await server.start()
        let client = try RawConnection(port: server.port)
        while server.connections.openCount < 1 { try await Task.sleep(for: .milliseconds(5)) }
        let waiting = Task { await server.waitForConnectionsToClose(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(20))
        waiting.cancel()
        #expect(await waiting.value == false)
        _ = client
        try await server.shutdown()
    }

    /// Idle keep-alive connections are closed at once rather than waiting for the grace period.
    @Test func idleConnectionsCloseQuickly() async throws {
        let server = AuthMockServer(scenario: try shipped("basic.yaml"), configuration: ServerConfiguration(port: 0, shutdownGracePeriod: .seconds(30)))
        try await server.start()
        let client = try RawConnection(port: server.port)
        try client.send("GET /public HTTP/1.1\r\nHost: x\r\n\r\n")
        // Answered in full: the connection is idle when shutdown starts.
        #expect(client.readResponse()?.head.hasPrefix("HTTP/1.1 200 ") == true)
        let start = ContinuousClock.now
        try await server.shutdown()
        #expect(ContinuousClock.now - start < .seconds(20), "well before the 30 s grace period")
        #expect(client.waitForClose(), "the idle connection is closed")
    }

    /// A client that sent half a request head when shutdown began: the connection is closed after the
    /// grace period and the half request journaled, without writing to a quiesced pipeline (which NIO
    /// traps on in debug builds — found by the pytest recipe sending SIGTERM to `authmock serve`).
    @Test func aHalfSentRequestHeadDoesNotCrashShutdown() async throws {
        let server = AuthMockServer(scenario: try shipped("basic.yaml"), configuration: ServerConfiguration(port: 0, shutdownGracePeriod: .milliseconds(200)))
        try await server.start()
        let client = try RawConnection(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: x\r\n")
        #expect(try await waitForOpenConnections(server, 1), "the connection is admitted")
        try await Task.sleep(for: .milliseconds(100))
        try await server.shutdown()
        #expect(client.readToEnd() == "")
        let last = try #require(server.journal.last)
        #expect(last.verdict == .malformedRequest)
        #expect(last.detail?.contains("before the request head was complete") == true)
    }
}
