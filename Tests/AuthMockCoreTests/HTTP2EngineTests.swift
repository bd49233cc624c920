import Foundation
import Testing
@testable import AuthMockCore

/// HTTP/2 in the pure engine: the scenario's `http2:` setting, connection-bound schemes refused on a stream
/// with HTTP_1_1_REQUIRED, and what the journal records of a stream.
struct HTTP2EngineTests {
    static func scenario(_ http2: String, challenges: String = "[{scheme: NTLM}]") throws -> Scenario {
        try load("""
            version: 1
            name: h2
            users: [{name: alice, password: wonderland, domain: EXAMPLE}]
            challenges: \(challenges)
            tls: {}
            \(http2)
            """)
    }

    @Test func bothFormsLoad() throws {
        #expect(try Self.scenario("http2: offer").http2 == HTTP2Policy(mode: .offer, connectionAuth: .reset))
        #expect(try Self.scenario("http2: {mode: only, connection-auth: allow}").http2 == HTTP2Policy(mode: .only, connectionAuth: .allow))
        #expect(try Self.scenario("").http2 == HTTP2Policy())
        #expect(HTTP2Policy(mode: .offer).alpn == ["h2", "http/1.1"])
        #expect(HTTP2Policy(mode: .only).alpn == ["h2"])
        #expect(HTTP2Policy().alpn == ["http/1.1"])
    }

    /// Each mistake at its value, with what would be right (first: the scenarios here have no challenge either).
    @Test func mistakesArePlaced() {
        #expect(diagnostics("version: 1\nname: x\nhttp2: offer\n").first == "bad.yaml:3:8: http2: offer negotiates h2 in the TLS handshake, and this scenario has no `tls:` — add `tls:`, or write `http2: prior-knowledge` for h2 over plain HTTP")
        #expect(diagnostics("version: 1\nname: x\ntls: {}\nhttp2: prior-knowledge\n").first == "bad.yaml:4:8: http2: prior-knowledge is h2 over plain HTTP, and this scenario serves TLS — write `http2: offer` (ALPN h2 and http/1.1) or `http2: only`")
        #expect(diagnostics("version: 1\nname: x\nhttp2: {mode: off, connection-auth: allow}\n").first == "bad.yaml:3:15: http2.connection-auth has no effect when HTTP/2 is off — write `mode: offer`, or remove `connection-auth`")
        #expect(diagnostics("version: 1\nname: x\ntls: {}\nhttp2: h3\n").first?.hasPrefix("bad.yaml:4:8: http2 'h3' is not known") == true)
        #expect(diagnostics("version: 1\nname: x\ntls: {}\nhttp2: {mode: offer, conection-auth: allow}\n").first?.hasPrefix("bad.yaml:4:22: unknown key 'conection-auth'") == true)
    }

    /// NTLM only: the first stream is reset before any challenge, and so is one carrying NTLM credentials;
    /// nothing of the handshake starts. Over HTTP/1.1 the same request is challenged.
    @Test func connectionBoundSchemesAreResetOnAStream() throws {
        var h = Harness(try Self.scenario("http2: offer"))
        h.httpProtocol = .h2
        let bare = h.send()
        #expect(bare.response.streamReset == .http11Required)
        #expect(bare.verdict == .http2HTTP11Required)
        #expect(bare.entry?.reset == "HTTP_1_1_REQUIRED")
        #expect(bare.entry?.httpProtocol == "h2")
        #expect(bare.entry?.stream == 1)
        #expect(bare.entry?.isExchange == true)
        let negotiate = h.send(authorization: "NTLM TlRMTVNTUAABAAAAB4IIogAAAAAAAAAAAAAAAAAAAAAKAF1YAAAADw==")
        #expect(negotiate.verdict == .http2HTTP11Required)
        #expect(negotiate.entry?.detail == "the client sent NTLM credentials on HTTP/2 stream 3: reset with HTTP_1_1_REQUIRED")
        h.httpProtocol = .http1
        let overHTTP1 = h.send()
        #expect(overHTTP1.status == 401)
        #expect(overHTTP1.entry?.httpProtocol == "http/1.1")
        #expect(overHTTP1.entry?.stream == nil)
    }

    /// A resource whose `schemes:` names only NTLM is reset on a stream although the scenario offers Basic
    /// too: what counts is what that resource could be opened with.
    @Test func aResourceThatOnlyNTLMOpensIsReset() throws {
        let scenario = try load("""
            version: 1
            name: h2
            users: [{name: alice, password: wonderland, domain: EXAMPLE}]
            challenges: [{scheme: Basic}, {scheme: NTLM}]
            resources: [{path: /ntlm, schemes: [NTLM]}, {path: /}]
            tls: {}
            http2: offer
            """)
        var h = Harness(scenario)
        h.httpProtocol = .h2
        let ntlmOnly = h.send("GET", "/ntlm")
        #expect(ntlmOnly.verdict == .http2HTTP11Required)
        #expect(ntlmOnly.entry?.detail == "the resource needs NTLM, which HTTP/2 cannot carry (stream 1): reset with HTTP_1_1_REQUIRED")
        #expect(h.send("GET", "/").status == 401)
    }

    /// Basic beside NTLM: the stream is challenged (the client may pick Basic), Basic is granted, and only
    /// NTLM credentials are reset.
    @Test func aStreamMayStillUseAnotherScheme() throws {
        var h = Harness(try Self.scenario("http2: offer", challenges: "[{scheme: NTLM}, {scheme: Basic}]"))
        h.httpProtocol = .h2
        #expect(h.send().status == 401)
        #expect(h.send(authorization: basic("alice", "wonderland")).verdict == .basicOK)
        #expect(h.send(authorization: "NTLM TlRMTVNTUAABAAAAB4IIogAAAAAAAAAAAAAAAAAAAAAKAF1YAAAADw==").verdict == .http2HTTP11Required)
    }

    /// `connection-auth: allow`: NTLM runs on streams as over HTTP/1.1, bound to the TCP connection.
    @Test func allowedConnectionAuthRunsTheHandshake() throws {
        var h = Harness(try Self.scenario("http2: {mode: offer, connection-auth: allow}"))
        h.httpProtocol = .h2
        let first = h.send()
        #expect(first.status == 401)
        #expect(first.response.streamReset == nil)
        #expect(first.response.headers.values("WWW-Authenticate") == ["NTLM"])
    }

    /// The connection faults keep their names over HTTP/1.1 and take their HTTP/2 forms' names on a stream.
    @Test func faultsAreJournaledInTheirHTTP2Form() {
        #expect(Fault.Effect.close.journalText(over: .h2) == "goaway")
        #expect(Fault.Effect.dropBody.journalText(over: .h2) == "drop-body rst-stream")
        #expect(Fault.Effect.close.journalText(over: .http1) == "close")
        #expect(Fault.Effect.stall(seconds: 2).journalText(over: .h2) == "stall 2s")
    }
}
