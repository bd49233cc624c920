import AuthMockCore
import Foundation
import NIOCore
import NIOEmbedded
import NIOTLS
import Testing

@testable import AuthMockServer

/// The handlers of one connection on an `EmbeddedChannel`: what they write and when they close, with no
/// socket, no thread and no timing. Each test builds the pipeline the server builds for a new connection.
@Suite
struct ConnectionPipelineTests {
    static let basic = try! ScenarioLoader.load(
        yaml: """
            version: 1
            name: basic
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            """,
        file: "basic.yaml", files: .inMemory([:])
    )

    /// A channel with the server's handlers for an origin connection (or a proxy connection), and the
    /// engines behind it.
    struct Connection {
        let channel = EmbeddedChannel()
        let engines: LockedEngines

        /// - Parameter tls: plays a TLS connection whose handshake completed (the handlers behind NIOSSL's).
        init(_ scenario: Scenario, proxy: Bool = false, tls: Bool = false, originPort: Int = 8080) throws {
            engines = LockedEngines(scenario: scenario, configuration: ServerConfiguration(port: 0))
            let pipelines = ServerPipelines(
                engines: engines, registry: ConnectionRegistry(),
                timeouts: ConnectionGuard.Timeouts(header: .seconds(10), idle: .seconds(60)),
                decoderLimits: .init(), maxBodySize: 1 << 20, http2: scenario.http2, logger: .init(label: "test"),
                perform: { _, loop in loop.makeSucceededVoidFuture() },
                origin: { port in port == originPort ? OriginListener(port: port, tls: nil) : nil }
            )
            if proxy {
                try pipelines.configureProxy(channel, id: 1)
            } else if tls {
                try pipelines.addOriginHandlers(to: channel, record: ConnectionRecord(id: 1, isTLS: true))
            } else {
                try pipelines.configureOrigin(channel, id: 1, tls: nil)
            }
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
            if tls { channel.pipeline.fireUserInboundEventTriggered(TLSUserEvent.handshakeCompleted(negotiatedProtocol: "http/1.1")) }
        }

        /// Sends bytes as the client and returns everything the server wrote in answer.
        func send(_ text: String) throws -> String {
            try channel.writeInbound(channel.allocator.buffer(string: text))
            // What the handlers left to the event loop (a handler's removal, a scheduled write) happens now.
            channel.embeddedEventLoop.run()
            var written = ""
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                written += String(buffer: buffer)
            }
            return written
        }

        var journal: [JournalEntry] { engines.read { $0.journal.entries } }
    }

    /// A challenge sent instead of 100 Continue keeps the connection open for the body the client may
    /// still send; that body is read, dropped, and the connection then closes, unjournaled.
    @Test func bodyAfterAnEarlyChallengeIsDroppedThenTheConnectionCloses() throws {
        let connection = try Connection(Self.basic)
        let answer = try connection.send("POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 401 "))
        #expect(answer.lowercased().contains("connection: close"))
        #expect(!answer.contains("100 Continue"))
        #expect(connection.channel.isActive)
        #expect(try connection.send("hello") == "")
        #expect(!connection.channel.isActive)
        #expect(connection.journal.map(\.status) == [401])
    }

    /// NIO's decoder parses nothing after a CONNECT; when the CONNECT gets a 407 instead of a tunnel, a
    /// fresh decoder takes over, so the client's retry on the same connection is answered.
    @Test func aConnectAnsweredWithoutATunnelLeavesTheConnectionUsable() throws {
        let connection = try Connection(try shipped("proxy-basic.yaml"), proxy: true)
        let first = try connection.send("CONNECT 127.0.0.1:8080 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
        #expect(first.hasPrefix("HTTP/1.1 407 "))
        let second = try connection.send("CONNECT 127.0.0.1:8080 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
        #expect(second.hasPrefix("HTTP/1.1 407 "))
        #expect(connection.channel.isActive)
        #expect(connection.journal.map(\.exchange) == [1, 2])
    }

    /// A request that asks to upgrade (Java's HttpClient sends `Upgrade: h2c` on every plain request) is
    /// answered in HTTP/1.1, and so is the next request on the connection, even when it arrived in the same
    /// packet: NIO's decoder stops after an upgrade request, and a fresh one takes over its bytes.
    @Test func anIgnoredUpgradeLeavesTheConnectionUsable() throws {
        let upgrade = "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAEAAEAAAAIAAAABAAMAAABkAAQBAAAAAAUAAEAA\r\n\r\n"
        let retry = "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nAuthorization: Basic YWxpY2U6d29uZGVybGFuZA==\r\n\r\n"
        let connection = try Connection(Self.basic)
        #expect(try connection.send(upgrade).hasPrefix("HTTP/1.1 401 "))
        #expect(try connection.send(retry).hasPrefix("HTTP/1.1 200 "))
        let pipelined = try connection.send(upgrade + "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(pipelined.components(separatedBy: "HTTP/1.1 401 ").count == 3, "both pipelined requests answered: \(pipelined)")
        #expect(connection.journal.map(\.exchange) == [1, 2, 3, 4])

        let proxy = try Connection(try shipped("proxy-basic.yaml"), proxy: true)
        let absolute = "GET http://127.0.0.1:8080/ HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n"
        #expect(try proxy.send(absolute).hasPrefix("HTTP/1.1 407 "))
        #expect(try proxy.send(absolute).hasPrefix("HTTP/1.1 407 "))
        #expect(proxy.journal.map(\.exchange) == [1, 2])
    }

    /// A CONNECT to a port that is none of the server's is refused (403) before the proxy asks for
    /// credentials, and the connection stays usable.
    @Test func aConnectToAnotherPortIsRefusedAndTheConnectionStaysUsable() throws {
        let connection = try Connection(try shipped("proxy-basic.yaml"), proxy: true)
        let refused = try connection.send("CONNECT 127.0.0.1:9 HTTP/1.1\r\nHost: 127.0.0.1:9\r\n\r\n")
        #expect(refused.hasPrefix("HTTP/1.1 403 "))
        let next = try connection.send("GET http://127.0.0.1:8080/ HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n")
        #expect(next.hasPrefix("HTTP/1.1 407 "))
        #expect(connection.journal.map(\.verdict) == [.proxyTargetRefused, .noCredentials])
        #expect(connection.journal.allSatisfy { $0.hop == .proxy })
    }

    /// The `close` fault frames its answer as keep-alive; whatever the client sends next on that
    /// connection ends it, unanswered and unjournaled.
    @Test func theCloseFaultEndsTheConnectionWhenTheClientReusesIt() throws {
        let scenario = try ScenarioLoader.load(
            yaml: """
                version: 1
                name: faults
                users: [{name: alice, password: wonderland}]
                challenges: [{scheme: Basic}]
                faults:
                  - {when: challenge, effect: close, times: 1}
                """,
            file: "faults.yaml", files: .inMemory([:])
        )
        let connection = try Connection(scenario)
        let answer = try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 401 "))
        #expect(!answer.lowercased().contains("connection: close"))
        #expect(connection.channel.isActive)
        #expect(try connection.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n") == "")
        #expect(!connection.channel.isActive)
        #expect(connection.journal.map(\.fault) == ["close"])
    }

    /// A request the decoder cannot parse is answered 400 with `Connection: close`, journaled, and the
    /// connection closes.
    @Test func anUnparseableRequestIsAnswered400AndClosed() throws {
        let connection = try Connection(Self.basic)
        let answer = try connection.send("GET / HTTP/1.1\r\nHost x\r\n\r\n")
        #expect(answer.hasPrefix("HTTP/1.1 400 "))
        #expect(!connection.channel.isActive)
        #expect(connection.journal.map(\.verdict) == [.malformedRequest])
    }

    /// A TLS connection closed in the middle of a request: the cut-off request is journaled first, then
    /// the connection's own entry, which counts it (`tls.ok`, one request) rather than calling the
    /// connection one that sent no request.
    @Test func aTLSConnectionCutOffMidRequestIsJournaledAfterItsRequest() throws {
        let connection = try Connection(Self.basic, tls: true)
        #expect(try connection.send("GET / HTTP/1.1\r\nHost: x\r\n") == "")
        try connection.channel.close().wait()
        connection.channel.embeddedEventLoop.run()
        #expect(connection.journal.map(\.verdict) == [.malformedRequest, .tlsOK])
        #expect(connection.journal.last?.requests == 1)
        #expect(connection.journal.last?.tls?.alpn == "http/1.1")
    }
}
