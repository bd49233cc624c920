import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The cases from the field (issue 15): for each, a deliberately wrong client (a few lines of Python in
/// Clients/) fails on the behaviour the case names, with the journal quoted, and a right one passes.
extension CheckRunnerTests {
    struct FieldCase: Sendable, CustomTestStringConvertible {
        var id: String
        /// The wrong client, and a sentence its finding must contain.
        var wrong: [String]
        var finding: String
        /// A right client: one of the Python clients with its defaults, or curl.
        var right: [String]
        var testDescription: String { id }

        static func python(_ script: String, _ flags: String...) -> [String] {
            ["python3", "\(CheckRunnerTests.clients)/\(script)"] + flags
        }

        static let curl = ["curl", "-sS", "--fail", "--anyauth", "-u", "{user}:{password}", "{url}"]
        static let curlProxyNTLM = ["curl", "-sS", "--fail", "-x", "{proxy}", "--proxy-ntlm", "-U", "{proxy_user}:{proxy_password}"]

        static let all: [FieldCase] = [
            FieldCase(
                id: "digest.sha512-256", wrong: python("digest.py", "--sha256-as-sha512-256"),
                finding: "computes with the algorithm it names (not SHA-256 called SHA-512-256) — 1 request(s) judged digest.algorithm-substituted",
                right: python("digest.py")
            ),
            FieldCase(
                id: "digest.auth-int-only", wrong: python("digest.py", "--no-qop"),
                finding: "never drops qop when the server offered one (an RFC 2069 answer to an RFC 7616 challenge) — 1 request(s) judged digest.qop-missing",
                right: python("digest.py")
            ),
            FieldCase(
                id: "digest.after-redirect", wrong: python("digest.py", "--keep-uri"),
                finding: "never reuses a response computed for another uri — 1 request(s) judged digest.uri-mismatch", right: python("digest.py")
            ),
            FieldCase(
                id: "digest.stale-loop", wrong: python("digest.py", "--stale-forever"),
                finding: "gives up after a bounded number of stale nonces, not in a loop — 59 request(s) with Digest credentials, at most 50 expected",
                right: python("digest.py")
            ),
            FieldCase(
                id: "redirect.chain-back", wrong: python("redirect-chain.py", "--restore"),
                finding: "sends no credentials to the other host, on the first hop or the second — 1 request(s) to a host or port other than",
                right: python("redirect-chain.py")
            ),
            FieldCase(
                id: "redirect.proxy-auth-https", wrong: python("proxy-redirect.py", "--leak"),
                finding: "never carries Proxy-Authorization to the origin (inside the tunnel) — 1 request(s) leaking a credential",
                right: python("proxy-redirect.py")
            ),
            FieldCase(
                id: "proxy.ntlm-http", wrong: python("ntlm-naive.py", "--proxy", "--new-connection"),
                finding: "sends the AUTHENTICATE on the proxy connection that got the CHALLENGE — 1 request(s) to the proxy, judged ntlm.connection-changed or ntlm.no-challenge",
                right: curlProxyNTLM + ["{url}"]
            ),
            FieldCase(
                id: "proxy.ntlm-connect", wrong: python("ntlm-naive.py", "--proxy", "--new-connection"),
                finding: "sends the AUTHENTICATE on the proxy connection that got the CHALLENGE — 1 request(s) to the proxy, judged ntlm.connection-changed or ntlm.no-challenge",
                right: curlProxyNTLM + ["--cacert", "{ca_file}", "{url}"]
            ),
            FieldCase(
                id: "hostile.ntlm-target-info", wrong: python("ntlm-naive.py"),
                finding: "builds no NTLMv2 response from the corrupt target info (bytes outside the message) — 1 request(s) an NTLM AUTHENTICATE with an NTLMv2 response after the first request answered with a hostile challenge",
                right: curl
            ),
            FieldCase(
                id: "hostile.ntlm-target-info-wraps", wrong: python("ntlm-naive.py"),
                finding: "builds no NTLMv2 response from the corrupt target info (bytes outside the message) — 1 request(s) an NTLM AUTHENTICATE with an NTLMv2 response after the first request answered with a hostile challenge",
                right: curl
            ),
            FieldCase(
                id: "hostile.challenge-redos", wrong: python("redos-basic.py"),
                finding: "expected the client to finish; it was still running after 10 s and was killed", right: curl
            ),
            FieldCase(
                id: "hostile.many-challenges", wrong: python("crash-on-many-challenges.py"),
                finding: "expected the client to end on its own; it was killed by signal 11 (SIGSEGV), a crash", right: curl
            ),
            FieldCase(
                id: "hostile.huge-nonce", wrong: python("digest.py", "--cut", "1023"),
                finding: "never sends a nonce or realm it cut or changed — 1 request(s) judged digest.unknown-nonce or digest.wrong-realm",
                right: python("digest.py")
            ),
        ]
    }

    /// The field cases, and issue 29's credential, HTTPS-proxy and transfer cases, which are judged the same way.
    @Test(arguments: FieldCase.all + appCredentials + httpsProxyCases + transferCases + bearerCases)
    func fieldCaseCatchesTheWrongClient(_ field: FieldCase) async throws {
        let wrong = try only(try await check(field.wrong, field.id))
        #expect(wrong.verdict == .fail, "\(wrong.findings)")
        #expect(wrong.findings.contains { $0.contains(field.finding) }, "\(wrong.findings)")
        let right = try only(try await check(field.right, field.id))
        #expect(right.verdict == .pass, "\(right.findings) \(right.stderr ?? "")")
    }

    /// The two informational cases judge nothing; what they report tells the clients apart.
    @Test func informationalFieldCasesSayWhatTheClientDid() async throws {
        let utf8 = try only(try await check(FieldCase.python("basic-client.py"), "basic.non-latin1-no-charset"))
        #expect(utf8.verdict == .informational)
        #expect(utf8.observations == ["says how the password was encoded: the password in UTF-8 → 200 basic.ok"])
        let latin1 = try only(try await check(FieldCase.python("basic-client.py", "--encoding", "latin-1"), "basic.non-latin1-no-charset"))
        #expect(latin1.observations == ["says how the password was encoded: the password in ASCII only (8 bytes: characters outside ASCII were replaced or dropped) → 401 basic.bad-password"])

        let preemptive = try only(try await check(FieldCase.python("basic-client.py"), "basic.preemptive-scope"))
        #expect(preemptive.verdict == .informational)
        #expect(preemptive.observations == ["says what it sent to each path, in order: /a/: Basic → 302; /a/b: Basic → 302; /other: Basic → 401"])
        let asked = try only(try await check(["curl", "-sS", "-L", "--anyauth", "-u", "{user}:{password}", "{url}"], "basic.preemptive-scope"))
        #expect(asked.observations.first?.hasPrefix("says what it sent to each path, in order: /a/: none → 401, Basic → 302;") == true, "\(asked.observations)")
    }
}
