import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The cookie cases and the subdomain redirect (issue 29): each is caught on a cookie engine of a few lines
/// (Clients/cookie-jar.py) with one rule broken, and passed by curl with its cookie engine on (`-c`) or by
/// the same script with the rule kept. The script connects to 127.0.0.1 and names the host in `Host`, so
/// these tests need no resolver for *.localhost; curl resolves those names itself.
extension CheckRunnerTests {
    struct CookieCase: Sendable, CustomTestStringConvertible {
        var id: String
        var wrong: [String]
        /// A sentence the wrong client's finding must contain.
        var finding: String
        var right: [String]
        var testDescription: String { id }

        static func jar(_ flags: String...) -> [String] {
            ["python3", "\(CheckRunnerTests.clients)/cookie-jar.py"] + flags
        }

        /// curl as a user with a cookie jar runs it: `-c` starts its cookie engine (its manual).
        static let curl = ["curl", "-sS", "--fail", "-L", "-c", "{cookie_jar}", "{url}"]

        static let all: [CookieCase] = [
            CookieCase(
                id: "cookie.host-only-subdomain", wrong: jar("--host-only-as-domain"),
                finding: "sends the host-only cookie to no other host, the subdomain included — 1 request(s)",
                right: curl
            ),
            CookieCase(
                id: "cookie.secure-https-to-http", wrong: jar("--ignore-secure"),
                finding: "sends the Secure cookie over no cleartext request — 1 request(s) over cleartext",
                right: curl + ["--cacert", "{ca_file}"]
            ),
            CookieCase(
                id: "cookie.path-scope", wrong: jar("--prefix-path"),
                finding: "sends the cookie nowhere outside /account, /accounting included — 1 request(s) for /accounting",
                right: curl
            ),
            CookieCase(
                id: "cookie.other-host", wrong: jar("--any-host"),
                finding: "sends the cookie to no other host — 1 request(s) to a host or port other than", right: curl
            ),
            CookieCase(
                id: "cookie.chain-back", wrong: jar("--any-host"),
                finding: "sends the cookie to B (the other host) on no hop — 1 request(s) to a host or port other than",
                right: curl
            ),
            CookieCase(
                id: "redirect.subdomain", wrong: jar("--basic-subdomains"),
                finding: "sends no credentials to the subdomain — 1 request(s) to a host or port other than",
                right: ["curl", "-sS", "--fail", "-L", "--anyauth", "-u", "{user}:{password}", "{url}"]
            ),
        ]
    }

    @Test(arguments: CookieCase.all)
    func cookieCaseCatchesTheWrongClient(_ field: CookieCase) async throws {
        let wrong = try only(try await check(field.wrong, field.id))
        #expect(wrong.verdict == .fail, "\(wrong.findings)")
        #expect(wrong.findings.contains { $0.contains(field.finding) }, "\(wrong.findings)")
        let right = try only(try await check(field.right, field.id))
        #expect(right.verdict == .pass, "\(right.findings) \(right.stderr ?? "")")
        let script = try only(try await check(CookieCase.jar(field.id == "redirect.subdomain" ? "--basic" : "-"), field.id))
        #expect(script.verdict == .pass, "the script with the rule kept: \(script.findings)")
    }

    /// The two informational cases: a client that sends the cookie where RFC 6265 has it go passes, one that
    /// keeps it back is informational, never fail.
    @Test func informationalCookieCasesTellTheClientsApart() async throws {
        let domain = try only(try await check(CookieCase.curl, "cookie.domain-subdomain"))
        #expect(domain.verdict == .pass, "\(domain.findings)")
        let strict = try only(try await check(CookieCase.jar(), "cookie.domain-subdomain"))
        #expect(strict.verdict == .pass, "\(strict.findings)")
        let port = try only(try await check(CookieCase.curl, "cookie.other-port"))
        #expect(port.verdict == .pass, "\(port.findings)")
        let byPort = try only(try await check(CookieCase.jar("--ports"), "cookie.other-port"))
        #expect(byPort.verdict == .informational, "\(byPort.findings)")
    }

    /// The two pattern keys the cookie cases brought, `cookie:` and `path:`, refuse what could never match.
    @Test func cookieAndPathKeysRefuseBadValues() {
        let found = AuthMockCheckTests.diagnostics(file: "c.yaml", """
            version: 1
            name: c
            users: []
            challenges: []
            resources: [{path: /, protected: false, set-cookies: [{name: session}]}]
            case: {title: t}
            expect:
              checks:
                - that: a
                  never: {cookie: "two words", path: account}
                - that: b
                  never: {cookie: session, path: "/a*b"}
              outcome: success
            """)
        #expect(found.contains("c.yaml:10:23: cookie 'two words' is neither true, false nor a cookie's name — write true, false, or a name such as session"), "\(found)")
        #expect(found.contains { $0.hasPrefix("c.yaml:10:42: path 'account' is not a request path") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("c.yaml:12:38: path '/a*b' is not a request path") }, "\(found)")
        #expect(found.count == 3, "\(found.joined(separator: " | "))")
    }

    /// Without a cookie engine a client never brings a cookie back: every cookie case is unimplemented, not a
    /// pass it did nothing for.
    @Test func aClientWithoutCookiesPassesNoCookieCase() async throws {
        let report = try await check(["curl", "-sS", "--fail", "-L", "{url}"], "cookie.*")
        #expect(report.cases.count == 7)
        for item in report.cases {
            #expect(item.verdict == .unimplemented, "\(item.id): \(item.verdict) \(item.findings)")
        }
    }
}
