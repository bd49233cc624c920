import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The HTTPS-proxy cases (issue 29): each catches a deliberately wrong client (Clients/https-proxy.py with
/// one flag) and passes curl, the right one.
extension CheckRunnerTests {
    static let curlHTTPSProxy = [
        "curl", "-sS", "--fail", "--proxy", "{proxy}", "--proxy-anyauth", "--proxy-user", "{proxy_user}:{proxy_password}",
    ]

    static let httpsProxyCases: [FieldCase] = [
        FieldCase(
            id: "proxy.https-basic-http", wrong: FieldCase.python("https-proxy.py", "--cleartext"),
            finding: "speaks TLS to the https:// proxy, never plain HTTP with its request or CONNECT in the clear — 1 ",
            right: curlHTTPSProxy + ["--proxy-cacert", "{proxy_ca_file}", "{url}"]
        ),
        FieldCase(
            id: "proxy.https-basic-connect", wrong: FieldCase.python("https-proxy.py", "--leak"),
            finding: "never carries Proxy-Authorization to the origin (inside the tunnel) — 1 request(s) leaking",
            right: curlHTTPSProxy + ["--proxy-cacert", "{proxy_ca_file}", "--cacert", "{ca_file}", "{url}"]
        ),
        FieldCase(
            id: "proxy.https-digest-http", wrong: FieldCase.python("https-proxy.py", "--cleartext"),
            finding: "speaks TLS to the https:// proxy, never plain HTTP with its request or CONNECT in the clear — 1 ",
            right: curlHTTPSProxy + ["--proxy-cacert", "{proxy_ca_file}", "{url}"]
        ),
        FieldCase(
            id: "proxy.https-untrusted", wrong: FieldCase.python("https-proxy.py", "--insecure"),
            finding: "sends no Proxy-Authorization to a proxy whose certificate it cannot verify — 1 request(s)",
            right: curlHTTPSProxy + ["{url}"]
        ),
        FieldCase(
            id: "proxy.https-wrong-host", wrong: FieldCase.python("https-proxy.py", "--no-hostname"),
            finding: "sends no Proxy-Authorization to a proxy whose certificate names other hosts — 1 request(s)",
            right: curlHTTPSProxy + ["--proxy-cacert", "{proxy_ca_file}", "{url}"]
        ),
    ]

    /// `give: {proxy-ca: false}` reads into the model; on a scenario whose proxy has no `tls:` it is refused
    /// where it is written, and `hop:` is allowed on TLS records.
    @Test func proxyCAInputIsCheckedAgainstTheScenario() throws {
        func yaml(proxyTLS: Bool) -> String {
            """
            version: 1
            name: x.y
            users: []
            challenges: []
            resources: [{path: /, protected: false}]
            proxy:
              users: [{name: carrier, password: pigeon}]
              challenges: [{scheme: Basic}]
            \(proxyTLS ? "  tls: true" : "")
            case:
              title: t
              give: {proxy-ca: false}
            expect:
              outcome: failure
              implemented: {kind: tls, hop: proxy}
            """
        }
        let file = try CaseLoader.load(yaml: yaml(proxyTLS: true), file: "p.yaml", files: .inMemory([:]))
        #expect(file.conformance?.give.proxyCA == false)
        do {
            _ = try CaseLoader.load(yaml: yaml(proxyTLS: false), file: "p.yaml", files: .inMemory([:]))
            Issue.record("proxy-ca loaded without proxy.tls")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "p.yaml:12:10: case.give.proxy-ca cannot be given: the scenario's proxy has no tls: (it is no HTTPS "
                    + "proxy) — remove it, or add what it needs to the scenario",
            ])
        }
    }

    /// Without flags the same script is a right client where its preemptive Basic fits the case.
    @Test func httpsProxyScriptIsRightWithoutFlags() async throws {
        for id in ["proxy.https-basic-http", "proxy.https-basic-connect", "proxy.https-untrusted", "proxy.https-wrong-host"] {
            let report = try only(try await check(FieldCase.python("https-proxy.py"), id))
            #expect(report.verdict == .pass, "\(id): \(report.findings) \(report.stderr ?? "")")
        }
    }
}
