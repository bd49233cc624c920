import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// Digest's `Authentication-Info` on the wire (RFC 7616 §3.5): from the origin, and from the proxy on the
/// origin's answer it forwards and on the CONNECT's 200, driven by curl (`-D -` prints every header block).
@Suite(.serialized)
struct AuthenticationInfoServerTests {
    static func scenario() throws -> Scenario {
        try ScenarioLoader.load(
            yaml: """
                version: 1
                name: info
                users: [{name: alice, password: wonderland}]
                challenges:
                  - scheme: Digest
                    authentication-info: {nextnonce: true, rspauth: right}
                resources:
                  - {path: /, body: "hello\\n"}
                  - {path: /open, protected: false}
                proxy:
                  users: [{name: carrier, password: pigeon}]
                  challenges:
                    - scheme: Digest
                      authentication-info: {rspauth: forged}
                """, file: "info.yaml", files: .inMemory([:])
        )
    }

    @Test func originSendsAuthenticationInfo() async throws {
        try await withServer(try Self.scenario()) { server in
            let ok = try await curl(["-D", "-", "--digest", "-u", "alice:wonderland", server.url])
            #expect(ok.status == 200)
            let info = ok.body.split(separator: "\r\n").first { $0.lowercased().hasPrefix("authentication-info:") }
            #expect(info?.contains("nextnonce=\"") == true && info?.contains("rspauth=\"") == true, "\(ok.body)")
            #expect(info?.contains("qop=auth") == true && info?.contains("nc=00000001") == true)
            #expect(server.journal.last?.detail?.contains("a nextnonce and a right rspauth") == true)
        }
    }

    @Test(arguments: [false, true])
    func proxySendsProxyAuthenticationInfo(tunnel: Bool) async throws {
        try await withServer(try Self.scenario()) { server in
            let proxy = try #require(server.proxyURL)
            let ok = try await curl(
                ["-D", "-", "-x", proxy, "--proxy-digest", "-U", "carrier:pigeon"] + (tunnel ? ["-p"] : [])
                    + [server.url + "open"]
            )
            #expect(ok.status == 200, "\(ok.body) \(ok.result.stderr)")
            let info = ok.body.split(separator: "\r\n").filter {
                $0.lowercased().hasPrefix("proxy-authentication-info:")
            }
            #expect(info.count == 1 && info[0].contains("rspauth=\""), "\(ok.body)")
            #expect(server.journal.contains { $0.hop == .proxy && $0.detail?.hasSuffix("a forged rspauth") == true })
        }
    }
}
