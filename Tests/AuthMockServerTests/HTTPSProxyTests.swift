import AuthMock
@testable import AuthMockServer
import AuthMockCertificates
import AuthMockCore
import Foundation
import Testing

/// The HTTPS proxy (`proxy.tls`), driven by curl: TLS to the proxy, its 407, then absolute-form or CONNECT
/// inside that TLS; journaled as the proxy's; a client without the proxy's CA sends it nothing.
@Suite(.serialized)
struct HTTPSProxyTests {
    func scenario(originTLS: Bool) throws -> Scenario {
        try ScenarioLoader.load(yaml: """
            version: 1
            name: https-proxy
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            \(originTLS ? "tls: {identity: ca-signed}" : "")
            proxy:
              users: [{name: carrier, password: pigeon}]
              challenges: [{scheme: Basic}]
              tls: true
            """, file: "https-proxy.yaml", files: .inMemory([:]))
    }

    /// An http:// origin through the HTTPS proxy: 407, then Basic, absolute-form inside the proxy's TLS.
    @Test func absoluteFormInsideTLS() async throws {
        try await withServer(try scenario(originTLS: false)) { server in
            let proxy = try #require(server.proxyURL)
            #expect(proxy.hasPrefix("https://localhost:"))
            let proxyTLS = try #require(server.proxyTLS)
            #expect(server.tls == nil)
            #expect(ReadyInfo(server: server).proxy?.tls == proxyTLS)
            let ok = try await curl([
                "--proxy", proxy, "--proxy-cacert", proxyTLS.caFile, "--proxy-anyauth", "--proxy-user", "carrier:pigeon",
                "--anyauth", "-u", "alice:wonderland", server.url,
            ])
            #expect(ok.status == 200, "\(ok.result.stderr)")
            _ = await server.waitForConnectionsToClose()
            let journal = server.journal
            let proxyEntries = journal.filter { $0.hop == .proxy && $0.exchange > 0 }
            #expect(proxyEntries.map(\.status).first == 407)
            #expect(proxyEntries.contains { $0.verdict == .basicOK })
            #expect(proxyEntries.allSatisfy { $0.tls?.version != nil }, "the proxy's exchanges carry its TLS facts")
            #expect(proxyEntries.allSatisfy { $0.tls?.certificateSHA256 == proxyTLS.fingerprintSHA256 })
            let origin = journal.filter { $0.hop == nil && $0.exchange > 0 }
            #expect(origin.last?.verdict == .basicOK)
            #expect(origin.allSatisfy { $0.tls == nil }, "the proxy's TLS ends at the proxy")
            #expect(origin.allSatisfy { $0.headers.allSatisfy { $0.name.lowercased() != "proxy-authorization" } })
            let tlsRecords = journal.filter { $0.requests != nil }
            #expect(tlsRecords.map(\.verdict) == [.tlsOK])
            #expect(tlsRecords.first?.hop == .proxy)
            #expect(journal.allSatisfy { $0.leaks == nil })
        }
    }

    /// Without the proxy's CA, curl refuses the proxy in the handshake: nothing reaches either hop, and the
    /// failed handshake is journaled as the proxy's.
    @Test func withoutTheProxyCANothingIsSent() async throws {
        try await withServer(try scenario(originTLS: false)) { server in
            let refused = try await curl([
                "--proxy", try #require(server.proxyURL), "--proxy-anyauth", "--proxy-user", "carrier:pigeon",
                server.url,
            ])
            #expect(refused.result.status == 60, "curl: peer certificate cannot be authenticated")
            _ = await server.waitForConnectionsToClose()
            let journal = server.journal
            #expect(journal.map(\.verdict) == [.tlsHandshakeFailed])
            #expect(journal.first?.hop == .proxy)
            #expect(journal.allSatisfy { $0.exchange == 0 && $0.credentials == nil })
        }
    }

    /// An https:// origin: CONNECT inside the proxy's TLS, the origin's TLS inside the tunnel. The proxy's
    /// certificate is signed by the scenario's CA; `{proxy_ca_file}` is its own file with the same CA.
    @Test func connectInsideTLS() async throws {
        try await withServer(try scenario(originTLS: true)) { server in
            let tls = try #require(server.tls)
            let proxyTLS = try #require(server.proxyTLS)
            #expect(proxyTLS.caFile != tls.caFile)
            #expect(try String(contentsOfFile: proxyTLS.caFile, encoding: .utf8)
                == String(contentsOfFile: tls.caFile, encoding: .utf8))
            #expect(proxyTLS.fingerprintSHA256 != tls.fingerprintSHA256)
            let ok = try await curl([
                "--proxy", try #require(server.proxyURL), "--proxy-cacert", proxyTLS.caFile, "--cacert", tls.caFile,
                "--proxy-anyauth", "--proxy-user", "carrier:pigeon", "--anyauth", "-u", "alice:wonderland", server.url,
            ])
            #expect(ok.status == 200, "\(ok.result.stderr)")
            _ = await server.waitForConnectionsToClose()
            let journal = server.journal
            let proxyEntries = journal.filter { $0.hop == .proxy && $0.exchange > 0 }
            #expect(proxyEntries.map(\.method) == ["CONNECT", "CONNECT"])
            #expect(proxyEntries.map(\.status) == [407, 200])
            #expect(proxyEntries.allSatisfy { $0.tls?.certificateSHA256 == proxyTLS.fingerprintSHA256 })
            let origin = journal.filter { $0.hop == nil && $0.exchange > 0 }
            #expect(origin.last?.verdict == .basicOK)
            #expect(origin.allSatisfy { $0.tls?.certificateSHA256 == tls.fingerprintSHA256 })
            let records = journal.filter { $0.requests != nil }
            #expect(Set(records.map { $0.hop ?? .origin }) == [.origin, .proxy])
            #expect(records.allSatisfy { $0.verdict == .tlsOK })
            #expect(journal.allSatisfy { $0.leaks == nil })
        }
    }

    /// The fixture library names the HTTPS proxy and its CA.
    @Test func fixtureNamesTheProxyCA() async throws {
        let fixture = try await AuthMockFixture.start(try scenario(originTLS: false))
        let proxyCA = try #require(fixture.proxyCAFile)
        #expect(fixture.proxyURL?.scheme == "https")
        #expect(fixture.caFile == nil)
        let ok = try await curl([
            "--proxy", try #require(fixture.proxyURL?.absoluteString), "--proxy-cacert", proxyCA.path,
            "--proxy-anyauth", "--proxy-user", "carrier:pigeon", "--anyauth", "-u", "alice:wonderland",
            fixture.url.absoluteString,
        ])
        #expect(ok.status == 200, "\(ok.result.stderr)")
        try await fixture.shutdown()
    }

    /// The proxy shares the origin's CA only when the origin's certificate is signed by it, chain whole.
    @Test func siblingSharesTheCAOnlyWhenItCan() throws {
        let request = IdentityRequest(kind: .caSigned, hosts: ["localhost", "127.0.0.1"])
        let origin = try TLSIdentity.generate(IdentityRequest(kind: .caSigned, intermediate: true))
        let shared = try origin.sibling(request)
        #expect(shared.trustPEM == origin.trustPEM)
        #expect(shared.chainPEMs.count == 2, "the intermediate goes with the leaf")
        for kind in [IdentityKind.untrustedRoot, .selfSigned, .incompleteChain] {
            let broken = try TLSIdentity.generate(IdentityRequest(kind: kind))
            #expect(try broken.sibling(request).trustPEM != broken.trustPEM, "\(kind)")
        }
        let selfSignedProxy = try origin.sibling(IdentityRequest(kind: .selfSigned, hosts: ["localhost"]))
        #expect(selfSignedProxy.trustPEM == selfSignedProxy.leafPEM)
    }
}
