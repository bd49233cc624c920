@testable import AuthMockServer
import AuthMockCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The SOCKS5 listener, driven by curl and by hand-written bytes: username/password, socks5h and socks5,
/// refusals answered with the protocol's failure code and journaled, and the server still up after them.
@Suite(.serialized)
struct SOCKS5ServerTests {
    static func scenario(tls: Bool = false) throws -> Scenario {
        try ScenarioLoader.load(
            yaml: """
                version: 1
                name: socks
                users: []
                challenges: []
                resources:
                  - {path: /, protected: false, body: "Through SOCKS5.\\n"}
                \(tls ? "tls: {identity: ca-signed}" : "")
                socks5:
                  users: [{name: mole, password: tunnel}]
                """,
            file: "socks.yaml", files: .inMemory([:])
        )
    }

    func socksPort(_ server: AuthMockServer) throws -> Int {
        let url = try #require(server.socksURL)
        #expect(url.hasPrefix("socks5h://127.0.0.1:"))
        return try #require(Int(url.split(separator: ":").last!))
    }

    func socksEntries(_ server: AuthMockServer) -> [JournalEntry] {
        server.journal.filter { $0.hop == .socks5 }
    }

    /// `--socks5-hostname` sends the name for the proxy to resolve; `--socks5` resolves it first. Both
    /// authenticate with RFC 1929 and reach the origin in the tunnel.
    @Test func curlThroughTheListener() async throws {
        try await withServer(try Self.scenario()) { server in
            let port = try socksPort(server)
            let origin = server.port
            let named = try await curl([
                "--socks5-hostname", "127.0.0.1:\(port)", "--proxy-user", "mole:tunnel", "http://localhost:\(origin)/",
            ])
            #expect(named.status == 200)
            #expect(named.body == "Through SOCKS5.\n")
            let resolved = try await curl([
                "--socks5", "127.0.0.1:\(port)", "--proxy-user", "mole:tunnel", "http://127.0.0.1:\(origin)/",
            ])
            #expect(resolved.status == 200)
            let socks = socksEntries(server)
            #expect(socks.map(\.verdict) == [.socks5OK, .socks5OK])
            #expect(socks.map { $0.socks5?.address } == ["domain", "ipv4"])
            #expect(socks[0].target == "localhost:\(origin)")
            #expect(socks.allSatisfy { $0.credentials?.user == "mole" && $0.credentials?.password == "tunnel" })
            let originEntries = server.journal.filter { $0.hop == nil }
            #expect(originEntries.map(\.status) == [200, 200])
            #expect(originEntries.allSatisfy { $0.headers.allSatisfy { $0.credential != true } })
            #expect(Set(originEntries.map(\.connection)).isDisjoint(with: socks.map(\.connection)))
            let ready = ReadyInfo(server: server)
            #expect(ready.socks5?.url == server.socksURL)
            #expect(ready.socks5?.users.map(\.name) == ["mole"])
        }
    }

    /// HTTPS inside the tunnel: the origin's TLS handlers take over after the reply.
    @Test func tlsInsideTheTunnel() async throws {
        try await withServer(try Self.scenario(tls: true)) { server in
            let tls = try #require(server.tls)
            let ok = try await curl([
                "--proxy", try #require(server.socksURL), "--proxy-user", "mole:tunnel", "--cacert", tls.caFile,
                server.url,
            ])
            #expect(ok.status == 200)
            _ = await server.waitForConnectionsToClose()
            #expect(server.journal.map(\.verdict) == [.socks5OK, .publicResource, .tlsOK])
        }
    }

    /// A wrong password ends the attempt: one handshake, auth status 1, no origin request.
    @Test func wrongPasswordEndsTheAttempt() async throws {
        try await withServer(try Self.scenario()) { server in
            let wrong = try await curl([
                "--socks5-hostname", "127.0.0.1:\(try socksPort(server))", "--proxy-user", "mole:nope",
                "http://localhost:\(server.port)/",
            ])
            #expect(wrong.result.status != 0)
            #expect(server.journal.map(\.verdict) == [.socks5BadPassword])
            #expect(server.journal.first?.socks5?.authStatus == 1)
        }
    }

    /// Bytes no client should send: each answered with the failure code, journaled, the connection
    /// closed; and the listener still serves curl afterwards.
    @Test func badInputIsAnsweredAndJournaled() async throws {
        try await withServer(try Self.scenario()) { server in
            let port = try socksPort(server)
            // A greeting cut short, then the client closes.
            do {
                let connection = try RawConnection(port: port)
                #expect(connection.send(bytes: [0x05, 0x03, 0x00]))
                shutdown(connection.fd, Int32(SHUT_WR))
                #expect(Self.readAll(connection) == [])
            }
            // SOCKS4's version byte: X'FF'.
            #expect(try Self.exchange(port, [0x04, 0x01, 0x00, 0x50, 127, 0, 0, 1, 0x00]) == [0x05, 0xFF])
            // A 300-byte username behind a length byte of 44.
            let long = [0x05, 0x01, 0x02, 0x01, 44] + Array(repeating: UInt8(ascii: "u"), count: 300) + [0x01, 0x70]
            #expect(try Self.exchange(port, long) == [0x05, 0x02, 0x01, 0x01])
            // BIND: command not supported (7).
            let login: [UInt8] = [0x05, 0x01, 0x02, 0x01, 0x04] + Array("mole".utf8) + [0x06] + Array("tunnel".utf8)
            let bind = login + [0x05, 0x02, 0x00, 0x01, 127, 0, 0, 1, 0x1F, 0x90]
            #expect(try Self.exchange(port, bind) == [0x05, 0x02, 0x01, 0x00, 0x05, 0x07, 0x00, 0x01, 0, 0, 0, 0, 0, 0])
            // Each connection's entry is written when the server has read it to its end; the truncated
            // greeting's may come after the next connection's (a loaded CI machine ordered them so).
            #expect(await server.waitForConnectionsToClose(timeout: .seconds(10)))
            let verdicts = socksEntries(server).map(\.verdict)
            let expected: [Verdict] = [.socks5Truncated, .socks5BadVersion, .socks5BadUsername, .socks5CommandNotSupported]
            #expect(verdicts.map(\.rawValue).sorted() == expected.map(\.rawValue).sorted(), "\(verdicts)")
            let ok = try await curl([
                "--socks5-hostname", "127.0.0.1:\(port)", "--proxy-user", "mole:tunnel", "http://localhost:\(server.port)/",
            ])
            #expect(ok.status == 200, "the listener is still up")
        }
    }

    /// Shutdown does not wait out a client stalled in the handshake: it is journaled and closed at once.
    @Test func shutdownClosesAStalledHandshake() async throws {
        let configuration = ServerConfiguration(port: 0, shutdownGracePeriod: .seconds(60))
        let server = AuthMockServer(scenario: try Self.scenario(), configuration: configuration)
        try await server.start()
        let connection = try RawConnection(port: try socksPort(server))
        #expect(connection.send(bytes: [0x05, 0x01]))
        // Admitted: its handler is in place on the event loop, where the shutdown's event comes after it.
        #expect(try await waitForOpenConnections(server, 1), "the connection is admitted")
        let started = ContinuousClock.now
        try await server.shutdown()
        #expect(ContinuousClock.now - started < .seconds(30), "before the 60 s grace period a stalled client would take")
        #expect(server.journal.map(\.verdict) == [.socks5Truncated])
        #expect(server.journal.first?.detail == "the server shut down during the greeting")
    }

    /// A target that is not one of the scenario's origins: REP 2 (not allowed by ruleset).
    @Test func otherTargetsAreRefused() async throws {
        try await withServer(try Self.scenario()) { server in
            let port = try socksPort(server)
            let login: [UInt8] = [0x05, 0x01, 0x02, 0x01, 0x04] + Array("mole".utf8) + [0x06] + Array("tunnel".utf8)
            let elsewhere = login + [0x05, 0x01, 0x00, 0x03, 0x0B] + Array("example.com".utf8) + [0x00, 0x50]
            let reply = try Self.exchange(port, elsewhere)
            #expect(reply == [0x05, 0x02, 0x01, 0x00, 0x05, 0x02, 0x00, 0x01, 0, 0, 0, 0, 0, 0])
            try await Task.sleep(for: .milliseconds(100))
            let entry = try #require(socksEntries(server).last)
            #expect(entry.verdict == .socks5TargetRefused && entry.target == "example.com:80")
            #expect(entry.socks5?.reply == 2)
        }
    }

    /// `authmock serve --socks-port N`: the listener on that port, named in the ready line and the banner.
    @Test func serveTakesTheSOCKSPort() async throws {
        let free = try #require(Self.unusedPortOutsideTheEphemeralRange())
        let (process, ready, err) = try await CLITests.startServe([
            repositoryRoot.appendingPathComponent("scenarios/conformance/socks5.username-password.yaml").path,
            "--port", "0", "--socks-port", String(free),
        ])
        defer { if process.isRunning { process.terminate() } }
        #expect(ready.socks5?.url == "socks5h://127.0.0.1:\(free)")
        let ok = try await curl(["--proxy", "socks5h://127.0.0.1:\(free)", "--proxy-user", "mole:tunnel", ready.url])
        #expect(ok.status == 200)
        let banner = await CLITests.stopServe(process, stderr: err)
        #expect(banner.contains("socks5     socks5h://127.0.0.1:\(free)  users mole:tunnel"), "\(banner)")
    }

    /// A port nothing is bound to, below the kernel's ephemeral range (32768–60999 on Linux by default). A port
    /// a test server had just freed could be taken at once as another test's connection's local port: a CI run
    /// saw `serve --socks-port` fail to bind one. Ports down here are never handed out by bind(0) or connect().
    static func unusedPortOutsideTheEphemeralRange() -> Int? {
        for _ in 0..<200 {
            let port = Int.random(in: 20000..<32000)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { continue }
            defer { close(descriptor) }
            var address = loopbackAddress(port: port)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if bound == 0 { return port }
        }
        return nil
    }

    static func exchange(_ port: Int, _ bytes: [UInt8]) throws -> [UInt8] {
        let connection = try RawConnection(port: port)
        _ = connection.send(bytes: bytes)
        return readAll(connection)
    }

    /// Everything the server sends until it closes (or the 5 s receive timeout).
    static func readAll(_ connection: RawConnection) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(connection.fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return received
    }
}
