@testable import AuthMockServer
import AuthMockCore
import Foundation
import Testing

/// HTTP/2 through real clients: curl (`--http2`, `--http2-prior-knowledge`) and nghttp (nghttp2-client).
@Suite(.serialized)
struct HTTP2Tests {
    static func scenario(_ extra: String, tls: Bool = true, challenges: String = "[{scheme: Basic}]") throws -> Scenario {
        try ScenarioLoader.load(yaml: """
            version: 1
            name: h2
            users: [{name: alice, password: wonderland, domain: EXAMPLE}, {name: bob, password: builder}]
            challenges: \(challenges)
            resources: [{path: /*, body: "hello {user}\\n"}]
            \(tls ? "tls: {identity: ca-signed}" : "")
            \(extra)
            """, file: "h2.yaml", files: .inMemory([:]))
    }

    static func exchanges(_ server: AuthMockServer) -> [JournalEntry] { server.journal.filter { $0.exchange > 0 } }

    /// ALPN h2 and http/1.1 offered: curl's h2 request is a stream (id 1) of the TCP connection; an
    /// HTTP/1.1 client on the same listener gets HTTP/1.1. The ready line says what is offered.
    @Test func alpnOffersBoth() async throws {
        try await withServer(try Self.scenario("http2: offer")) { server in
            let ca = try #require(server.tls).caFile
            let h2 = try await curl(["--http2", "--cacert", ca, "-u", "alice:wonderland", server.url])
            #expect(h2.status == 200 && h2.body == "hello alice\n")
            let h1 = try await curl(["--http1.1", "--cacert", ca, "-u", "alice:wonderland", server.url])
            #expect(h1.status == 200)
            _ = await server.waitForConnectionsToClose()
            let entries = Self.exchanges(server)
            #expect(entries.map(\.httpProtocol) == ["h2", "http/1.1"])
            #expect(entries.map(\.stream) == [1, nil])
            #expect(entries.first?.version == "HTTP/2.0")
            #expect(server.journal.filter { $0.requests != nil }.compactMap(\.tls?.alpn).sorted() == ["h2", "http/1.1"])
            #expect(ReadyInfo(server: server).protocols == ["h2", "http/1.1"])
        }
    }

    /// The forward proxy speaks HTTP/1.1; inside its CONNECT tunnel the origin negotiates h2 as on a
    /// direct connection.
    @Test func connectTunnelCarriesHTTP2() async throws {
        try await withServer(try Self.scenario("http2: offer\nproxy: {challenges: []}")) { server in
            let ca = try #require(server.tls).caFile
            let proxy = try #require(server.proxyURL)
            let answer = try await curl(["--http2", "-x", proxy, "--cacert", ca, "-u", "alice:wonderland", server.url])
            #expect(answer.status == 200)
            let origin = Self.exchanges(server).filter { $0.hop == nil }
            #expect(origin.map(\.httpProtocol) == ["h2"])
            #expect(Self.exchanges(server).filter { $0.hop == .proxy }.map(\.method) == ["CONNECT"])
        }
    }

    /// Prior knowledge on plain HTTP: the h2 preface gets HTTP/2, anything else HTTP/1.1, on one port.
    @Test func priorKnowledgeBesideHTTP1() async throws {
        try await withServer(try Self.scenario("http2: prior-knowledge", tls: false)) { server in
            let h2c = try await curl(["--http2-prior-knowledge", "-u", "alice:wonderland", server.url])
            #expect(h2c.status == 200)
            let h1 = try await curl(["-u", "alice:wonderland", server.url])
            #expect(h1.status == 200)
            let h2cWrong = try await curl(["--http2-prior-knowledge", "-u", "alice:nope", server.url])
            #expect(h2cWrong.status == 401)
            #expect(Self.exchanges(server).map(\.httpProtocol) == ["h2", "http/1.1", "h2"])
            #expect(Self.exchanges(server).map(\.verdict) == [.basicOK, .basicOK, .basicBadPassword])
        }
    }

    /// NTLM only: curl's NTLM request on a stream is reset with HTTP_1_1_REQUIRED, and curl completes the
    /// handshake over HTTP/1.1 on a new connection.
    @Test func ntlmIsSentBackToHTTP1() async throws {
        try await withServer(try Self.scenario("http2: offer", challenges: "[{scheme: NTLM, domain: EXAMPLE}]")) { server in
            let ca = try #require(server.tls).caFile
            let answer = try await curl(["--http2", "--ntlm", "--cacert", ca, "-u", "EXAMPLE\\alice:wonderland", server.url])
            #expect(answer.status == 200)
            let entries = Self.exchanges(server)
            #expect(entries.first?.reset == "HTTP_1_1_REQUIRED")
            #expect(entries.first?.verdict == .http2HTTP11Required)
            #expect(entries.first?.status == 0)
            #expect(entries.dropFirst().map(\.httpProtocol) == ["http/1.1", "http/1.1"])
            #expect(entries.last?.verdict == .ntlmOK)
            #expect(entries.last?.connection != entries.first?.connection)
        }
    }

    /// `close` after the challenge is a GOAWAY naming the 401's stream: curl answers on a new connection.
    @Test func goAwayAfterTheChallenge() async throws {
        try await withServer(try Self.scenario("http2: offer\nfaults: [{when: challenge, effect: close, times: 1}]")) { server in
            let ca = try #require(server.tls).caFile
            let answer = try await curl(["--http2", "--anyauth", "--cacert", ca, "-u", "alice:wonderland", server.url])
            #expect(answer.status == 200)
            let entries = Self.exchanges(server)
            #expect(entries.map(\.status) == [401, 200])
            #expect(entries.first?.fault == "goaway")
            #expect(entries[1].connection != entries[0].connection, "a stream after the GOAWAY's last one must go on a new connection")
        }
    }

    /// `drop-body` over HTTP/2: half the body, then RST_STREAM INTERNAL_ERROR; curl reports the stream error.
    @Test func dropBodyResetsTheStream() async throws {
        try await withServer(try Self.scenario("http2: offer\nfaults: [{when: granted, effect: drop-body}]")) { server in
            let ca = try #require(server.tls).caFile
            let answer = try await curl(["--http2", "--cacert", ca, "-u", "alice:wonderland", server.url])
            #expect(answer.result.status == 92, "curl: HTTP/2 stream not closed cleanly")
            #expect(answer.result.stderr.contains("INTERNAL_ERROR"))
            #expect(Self.exchanges(server).first?.fault == "drop-body rst-stream")
        }
    }

    /// nghttp, another HTTP/2 client: twenty streams at once on one h2c connection; the journal has every
    /// stream once, each with its own target and its own (odd, client-initiated) stream id.
    @Test func nghttpManyStreamsOneConnection() async throws {
        let nghttp = "/usr/bin/nghttp"
        try #require(FileManager.default.isExecutableFile(atPath: nghttp), "nghttp is needed (apt-get install nghttp2-client)")
        try await withServer(try Self.scenario("http2: prior-knowledge", tls: false)) { server in
            let token = Data("bob:builder".utf8).base64EncodedString()
            let urls = (1...20).map { server.url + "item/\($0)" }
            let result = try await run(nghttp, ["-n", "--header=authorization: Basic \(token)"] + urls)
            #expect(result.status == 0, "\(result.stderr)")
            let entries = Self.exchanges(server)
            #expect(entries.count == 20)
            #expect(Set(entries.map(\.connection)).count == 1)
            let streams = Set(entries.compactMap(\.stream))
            #expect(streams.count == 20 && streams.allSatisfy { $0 % 2 == 1 })
            #expect(Set(entries.compactMap(\.target)) == Set((1...20).map { "/item/\($0)" }))
            #expect(entries.allSatisfy { $0.verdict == .basicOK && $0.httpProtocol == "h2" })
        }
    }
}
