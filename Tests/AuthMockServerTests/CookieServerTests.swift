import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// Cookies a resource sets, over the wire with curl's cookie engine, and a scenario served under
/// `*.localhost` names (`subdomains: true`) over plain HTTP and HTTPS.
@Suite(.serialized)
struct CookieServerTests {
    static func scenario(tls: Bool) throws -> Scenario {
        try ScenarioLoader.load(yaml: """
            version: 1
            name: cookies
            users: []
            challenges: []
            subdomains: true
            \(tls ? "tls: {identity: ca-signed}" : "")
            resources:
              - path: /
                protected: false
                status: 302
                body: "moved\\n"
                set-cookies:
                  - {name: session, value: s3cr3t, domain: authmock.localhost, path: /}
                  - {name: host, value: only}
                headers:
                  Location: "{subdomain_url}landing"
              - path: /landing
                protected: false
                body: "landed\\n"
            """, file: "cookies.yaml", files: .inMemory([:]))
    }

    /// The first answer sets both cookies; curl's cookie engine (`-c`) brings the Domain cookie to the
    /// subdomain and keeps the host-only one back; the journal names what came back and marks Cookie.
    @Test func setCookieGoesOutAndTheReturningCookieIsJournaled() async throws {
        try await withServer(try Self.scenario(tls: false)) { server in
            #expect(server.url.hasPrefix("http://authmock.localhost:"))
            #expect(server.subdomainURL == server.url.replacingOccurrences(of: "//authmock.", with: "//sub.authmock."))
            #expect(server.siblingURL?.hasPrefix("http://sibling.localhost:") == true)
            #expect(server.otherHostURL.hasPrefix("http://127.0.0.1:"))
            let jar = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-jar-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: jar) }
            let (status, body, result) = try await curl(["-L", "-c", jar.path, "-D", "-", server.url])
            #expect(status == 200, "\(result.stderr)")
            #expect(body.contains("Set-Cookie: session=s3cr3t; Domain=authmock.localhost; Path=/"))
            #expect(body.contains("Set-Cookie: host=only"))
            let journal = server.journal.filter(\.isExchange)
            try #require(journal.count == 2)
            #expect(journal[0].cookies == nil)
            #expect(journal[1].header("Host")?.hasPrefix("sub.authmock.localhost:") == true)
            #expect(journal[1].cookies == ["session"], "the Domain cookie only: host=only is host-only")
            #expect(journal[1].headers.first { $0.name.lowercased() == "cookie" }?.credential == true)
        }
    }

    /// Over HTTPS the certificate names the loopback names too, so the subdomain verifies with the CA.
    @Test func theCertificateNamesTheSubdomains() async throws {
        try await withServer(try Self.scenario(tls: true)) { server in
            #expect(server.url.hasPrefix("https://authmock.localhost:"))
            let ca = try #require(server.tls?.caFile)
            let (status, _, result) = try await curl(["-L", "-c", "/dev/null", "--cacert", ca, server.url])
            #expect(status == 200, "\(result.stderr)")
            #expect(server.journal.filter(\.isExchange).last?.cookies == ["session"])
        }
    }
}
