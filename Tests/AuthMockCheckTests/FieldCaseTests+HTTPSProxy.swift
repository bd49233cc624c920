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
    ]

    @Test(arguments: httpsProxyCases)
    func httpsProxyCaseCatchesTheWrongClient(_ field: FieldCase) async throws {
        let wrong = try only(try await check(field.wrong, field.id))
        #expect(wrong.verdict == .fail, "\(wrong.findings)")
        #expect(wrong.findings.contains { $0.contains(field.finding) }, "\(wrong.findings)")
        let right = try only(try await check(field.right, field.id))
        #expect(right.verdict == .pass, "\(right.findings) \(right.stderr ?? "")")
    }

    /// Without flags the same script is a right client where its preemptive Basic fits the case.
    @Test func httpsProxyScriptIsRightWithoutFlags() async throws {
        for id in ["proxy.https-basic-http", "proxy.https-basic-connect", "proxy.https-untrusted"] {
            let report = try only(try await check(FieldCase.python("https-proxy.py"), id))
            #expect(report.verdict == .pass, "\(id): \(report.findings) \(report.stderr ?? "")")
        }
    }
}
