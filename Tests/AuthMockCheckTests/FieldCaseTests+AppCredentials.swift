import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The leak matrix for credentials the application supplies itself (issue 29): a header it sets, the URL's
/// userinfo, a netrc file. For each `leak.*` case a few lines of Python (Clients/app-credentials.py, wrong on
/// purpose with a flag) fail on the behaviour the case names, and a right client passes: curl where curl is
/// right, the same script with its defaults where it is not (curl keeps a Proxy-Authorization it was given
/// with `-H` on a redirect to another origin).
extension CheckRunnerTests {
    static let appCredentials: [FieldCase] = {
        func wrong(_ flag: String) -> [String] { FieldCase.python("app-credentials.py", flag) }
        let right = FieldCase.python("app-credentials.py")
        let curlHeader = ["curl", "-sS", "--fail", "-L", "-H", "{header}", "--cacert", "{ca_file}", "{url}"]
        let curlURL = ["curl", "-sS", "--fail", "-L", "--cacert", "{ca_file}", "{url}"]
        let curlNetrc = ["curl", "-sS", "-L", "--netrc-file", "{netrc_file}", "{url}"]
        let otherHost = "to a host or port other than"
        return [
            FieldCase(
                id: "leak.authorization-header.other-host", wrong: wrong("--keep"),
                finding: "carries no credential header to the other host — 1 request(s) \(otherHost)", right: curlHeader
            ),
            FieldCase(
                id: "leak.authorization-header.other-port", wrong: wrong("--strip-on-host"),
                finding: "carries no credential header to the other port — 1 request(s) \(otherHost)", right: curlHeader
            ),
            FieldCase(
                id: "leak.authorization-header.https-to-http", wrong: wrong("--strip-on-host"),
                finding: "carries no credential header over cleartext — 1 request(s) over cleartext", right: curlHeader
            ),
            FieldCase(
                id: "leak.authorization-header.chain-back", wrong: wrong("--restore"),
                finding: "sends no credentials to the other host, on the first hop or the second — 1 request(s)",
                right: curlHeader
            ),
            FieldCase(
                id: "leak.proxy-authorization-header.other-host", wrong: wrong("--keep"),
                finding: "carries no Proxy-Authorization to the other host (at the first origin it is the application's own doing) — 1 request(s) \(otherHost)",
                right: right
            ),
            FieldCase(
                id: "leak.proxy-authorization-header.other-port", wrong: wrong("--strip-on-host"),
                finding: "carries no Proxy-Authorization to the other port (at the first origin it is the application's own doing) — 1 request(s) \(otherHost)",
                right: right
            ),
            FieldCase(
                id: "leak.proxy-authorization-header.https-to-http", wrong: wrong("--strip-on-host"),
                finding: "carries no Proxy-Authorization over cleartext (at the first origin it is the application's own doing) — 1 request(s) over cleartext",
                right: right
            ),
            FieldCase(
                id: "leak.userinfo.other-host", wrong: wrong("--keep"),
                finding: "sends no credentials to the other host — 1 request(s) \(otherHost)", right: curlURL
            ),
            FieldCase(
                id: "leak.userinfo.other-port", wrong: wrong("--strip-on-host"),
                finding: "sends no credentials to the other port — 1 request(s) \(otherHost)", right: curlURL
            ),
            FieldCase(
                id: "leak.userinfo.https-to-http", wrong: wrong("--strip-on-host"),
                finding: "sends no credentials over cleartext — 1 request(s) over cleartext", right: curlURL
            ),
            FieldCase(
                id: "leak.userinfo.chain-back", wrong: wrong("--restore"),
                finding: "sends no credentials to the other host, on the first hop or the second — 1 request(s)",
                right: curlURL
            ),
            FieldCase(
                id: "leak.netrc.other-host", wrong: wrong("--netrc-first"),
                finding: "sends no credentials to the other host, for which the netrc has no entry — 1 request(s) \(otherHost)",
                right: curlNetrc
            ),
            FieldCase(
                id: "leak.netrc.entry-without-password", wrong: wrong("--netrc-borrow"),
                finding: "never authenticates as alice at the other host (her password came from the first host's entry) — 1 request(s) \(otherHost)",
                right: curlNetrc
            ),
            FieldCase(
                id: "leak.netrc.empty-default", wrong: wrong("--netrc-borrow"),
                finding: "never authenticates as alice at the other host (her password came from the first host's entry) — 1 request(s) \(otherHost)",
                right: curlNetrc
            ),
            FieldCase(
                id: "leak.netrc.userinfo-host", wrong: wrong("--netrc-split"),
                finding: "never authenticates as alice at the other host, for which the netrc has no entry — 1 request(s) \(otherHost)",
                right: curlNetrc
            ),
        ]
    }()

    /// No standard says which custom headers hold a secret: an API key kept on a redirect is reported, not
    /// failed; one dropped passes. The header counts as a credential because the case gave it as one.
    @Test(arguments: ["leak.api-key-header.other-host", "leak.api-key-header.https-to-http"])
    func apiKeyKeptOnARedirectIsInformational(id: String) async throws {
        let kept = try only(try await check(FieldCase.python("app-credentials.py", "--keep"), id))
        #expect(kept.verdict == .informational, "\(kept.findings)")
        #expect(kept.findings.first?.contains("says whether X-Api-Key (or any credential header) went") == true)
        #expect(kept.findings.first?.contains("carrying a credential header") == true, "\(kept.findings)")
        let dropped = try only(try await check(FieldCase.python("app-credentials.py"), id))
        #expect(dropped.verdict == .pass, "\(dropped.findings)")
        // Without the header the case is not met: a client that sends no key showed nothing.
        let none = try only(try await check(["curl", "-sS", "-L", "--cacert", "{ca_file}", "{url}"], id))
        #expect(none.verdict == .unimplemented, "\(none.findings)")
    }
}
