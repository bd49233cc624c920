import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// Slow, idle, greedy and vanishing clients over raw sockets: they get bounded answers, they leave no
/// state behind, and they do not keep others from being served.
@Suite(.serialized, .timeLimit(.minutes(1)))
struct RobustnessTests {
    static let authorized = "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic \(Data("alice:wonderland".utf8).base64EncodedString())\r\n\r\n"

    // MARK: Timeouts

    /// A head trickled in one field at a time (slowloris) gets 408 once the header timeout passes;
    /// a client on another connection is answered meanwhile.
    @Test func slowHeadGets408AndOthersAreServed() async throws {
        let headerTimeout = Duration.seconds(2)
        let configuration = ServerConfiguration(port: 0, headerTimeout: headerTimeout, idleTimeout: .seconds(30))
        try await withServer(try shipped("basic.yaml"), configuration: configuration) { server in
            let start = ContinuousClock.now
            let slow = try RawConnection(port: server.port)
            try slow.send("GET / HTTP/1.1\r\n")
            // Answers that came while the slow head was surely still open: before its timeout could pass. One is
            // the proof; how many fit in the window depends on the machine's load (a loaded CI run fit two in 1 s).
            var answeredMeanwhile = 0
            // Each field comes well within the idle timeout; the head as a whole takes too long.
            for index in 0..<400 {
                guard slow.send(bytes: Array("X-Trickle-\(index): 1\r\n".utf8)) else { break }
                let other = try rawExchange(port: server.port, Array((Self.authorized.dropLast() + "Connection: close\r\n\r\n").utf8))
                if other.hasPrefix("HTTP/1.1 200 "), ContinuousClock.now - start < headerTimeout { answeredMeanwhile += 1 }
                try await Task.sleep(for: .milliseconds(50))
            }
            let text = slow.readToEnd()
            #expect(text.hasPrefix("HTTP/1.1 408 "), "\(text.prefix(60))")
            #expect(ContinuousClock.now - start >= headerTimeout)
            #expect(answeredMeanwhile >= 1, "other clients are served while one trickles its head")
            let entry = try #require(server.journal.first { $0.verdict == .headerTimeout })
            #expect(entry.status == 408)
            #expect(try await eventually(server) { $0.openConnections == 0 }.openConnections == 0)
        }
    }

    /// The forward proxy's connections have the same header timeout; its 408 is the proxy's entry.
    @Test func slowHeadToTheProxyGets408() async throws {
        let configuration = ServerConfiguration(port: 0, headerTimeout: .milliseconds(300))
        try await withServer(try shipped("proxy-basic.yaml"), configuration: configuration) { server in
            let proxyPort = try #require(server.proxyURL.flatMap { URL(string: $0)?.port })
            let slow = try RawConnection(port: proxyPort)
            try slow.send("GET http://127.0.0.1:\(server.port)/ HTTP/1.1\r\n")
            #expect(slow.readToEnd().hasPrefix("HTTP/1.1 408 "))
            #expect(server.journal.last?.verdict == .headerTimeout)
            #expect(server.journal.last?.hop == .proxy)
        }
    }

    /// A connection that never sends a byte, or stays silent after an answer, is closed after the idle
    /// timeout; one that keeps talking is not.
    @Test func idleConnectionsAreClosed() async throws {
        let configuration = ServerConfiguration(port: 0, headerTimeout: .seconds(30), idleTimeout: .seconds(2))
        try await withServer(try shipped("basic.yaml"), configuration: configuration) { server in
            // The server's clock starts when it accepts, which may be before connect() returns here.
            let start = ContinuousClock.now
            let silent = try RawConnection(port: server.port)
            #expect(silent.waitForClose())
            #expect(ContinuousClock.now - start >= .seconds(2))

            let talker = try RawConnection(port: server.port)
            for _ in 0..<5 {
                try talker.send(Self.authorized)
                #expect(talker.readResponse()?.head.hasPrefix("HTTP/1.1 200 ") == true)
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(talker.waitForClose(), "closed once it falls silent")
            // An idle close is not an exchange: only the five requests are journaled.
            #expect(server.journal.count == 5)
        }
    }

    /// A TLS client that stops in the middle of its handshake is closed by the idle timeout, and the
    /// journal says why.
    @Test func stalledTLSHandshakeIsClosed() async throws {
        var scenario = try shipped("basic.yaml")
        scenario.tls = TLSSettings()
        let configuration = ServerConfiguration(port: 0, idleTimeout: .milliseconds(300))
        try await withServer(scenario, configuration: configuration) { server in
            let connection = try RawConnection(port: server.port)
            // The start of a ClientHello record, and nothing more.
            _ = connection.send(bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03])
            #expect(connection.waitForClose())
            let sizes = try await eventually(server) { $0.openConnections == 0 && server.journal.count == 1 }
            #expect(sizes.openConnections == 0)
            #expect(server.journal.first?.verdict == .tlsHandshakeFailed)
            #expect(server.journal.first?.detail?.contains("idle timeout") == true)
        }
    }

    // MARK: Connection limit

    /// Beyond `maxConnections`, a new connection is closed at once and journaled; once one closes, the
    /// next is accepted again.
    @Test func connectionLimit() async throws {
        let configuration = ServerConfiguration(port: 0, maxConnections: 3)
        try await withServer(try shipped("basic.yaml"), configuration: configuration) { server in
            var held: [RawConnection] = []
            for _ in 0..<3 {
                let connection = try RawConnection(port: server.port)
                try connection.send(Self.authorized)
                #expect(connection.readResponse()?.head.hasPrefix("HTTP/1.1 200 ") == true)
                held.append(connection)
            }
            let refused = try RawConnection(port: server.port)
            _ = refused.send(bytes: Array(Self.authorized.utf8))
            #expect(refused.readToEnd().isEmpty, "closed without an answer")
            let sizes = try await eventually(server) { _ in server.journal.last?.verdict == .connectionLimit }
            #expect(sizes.refusedConnections == 1)
            #expect(sizes.openConnections == 3)
            #expect(server.journal.last?.verdict == .connectionLimit)

            held.removeLast()  // closes its socket
            _ = try await eventually(server) { $0.openConnections == 2 }
            let again = try RawConnection(port: server.port)
            try again.send(Self.authorized)
            #expect(again.readResponse()?.head.hasPrefix("HTTP/1.1 200 ") == true)
        }
    }

    // MARK: Clients that vanish

    /// NTLM state is per connection: a client that leaves after the CHALLENGE leaves none behind.
    @Test func vanishingMidNTLMLeavesNoState() async throws {
        try await withServer(try shipped("ntlm.yaml")) { server in
            let negotiate = Array("NTLMSSP\0".utf8) + [1, 0, 0, 0, 0x07, 0x82, 0x08, 0x00] + [UInt8](repeating: 0, count: 16)
            var connections: [RawConnection] = []
            for _ in 0..<20 {
                let connection = try RawConnection(port: server.port)
                try connection.send("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: NTLM \(Data(negotiate).base64EncodedString())\r\n\r\n")
                let response = try #require(connection.readResponse())
                #expect(response.head.hasPrefix("HTTP/1.1 401 "))
                #expect(response.head.contains("WWW-Authenticate: NTLM T"))
                connections.append(connection)
            }
            #expect(server.stateSizes.ntlmConnections == 20, "one handshake in progress per connection")
            connections.removeAll()
            let sizes = try await eventually(server) { $0.ntlmConnections == 0 && $0.openConnections == 0 }
            #expect(sizes.ntlmConnections == 0)
            #expect(sizes.openConnections == 0)
        }
    }

    /// A client that opens a CONNECT tunnel and leaves before (or during) its TLS handshake leaves no
    /// connection behind; the tunnel's TLS connection is journaled as failed.
    @Test func vanishingMidTunnelLeavesNoState() async throws {
        let yaml = """
            version: 1
            name: tunnel
            users: []
            challenges: []
            resources: [{path: /, protected: false}]
            tls: {identity: ca-signed}
            proxy:
              users: [{name: carrier, password: pigeon}]
              challenges: [{scheme: Basic}]
            """
        try await withServer(try ScenarioLoader.load(yaml: yaml, file: "tunnel.yaml", files: .fileSystem)) { server in
            let proxyPort = try #require(server.proxyURL.flatMap { URL(string: $0)?.port })
            let credentials = Data("carrier:pigeon".utf8).base64EncodedString()
            for partial in [[], [0x16, 0x03, 0x01, 0x02, 0x00, 0x01]] as [[UInt8]] {
                let connection = try RawConnection(port: proxyPort)
                try connection.send("CONNECT localhost:\(server.port) HTTP/1.1\r\nHost: localhost:\(server.port)\r\nProxy-Authorization: Basic \(credentials)\r\n\r\n")
                let established = try #require(connection.readResponse())
                #expect(established.head.hasPrefix("HTTP/1.1 200 "))
                _ = connection.send(bytes: partial)
            }
            let sizes = try await eventually(server) { $0.openConnections == 0 && server.journal.count == 4 }
            #expect(sizes.openConnections == 0)
            let verdicts = server.journal.map(\.verdict)
            #expect(verdicts.filter { $0 == .tlsHandshakeFailed }.count == 2, "\(verdicts)")
        }
    }

    /// A client that leaves in the middle of a body gets its half request journaled, and nothing stays.
    @Test func vanishingMidBodyLeavesNoState() async throws {
        try await withServer(try shipped("basic.yaml")) { server in
            do {
                let connection = try RawConnection(port: server.port)
                try connection.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n0123456789")
            }
            let sizes = try await eventually(server) { $0.openConnections == 0 && server.journal.count == 1 }
            #expect(sizes.openConnections == 0)
            #expect(server.journal.first?.detail == "the connection closed before the request body was complete")
        }
    }
}
