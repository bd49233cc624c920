import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The `bearer.*` and `oauth.*` cases (issue 33): each is caught on Clients/oauth-client.py with one rule
/// broken, and passed by the same script with its defaults, or by curl's `--oauth2-bearer` where curl can.
extension CheckRunnerTests {
    static let bearerCurl = ["curl", "-sS", "--fail", "-L", "--oauth2-bearer", "{token}", "{url}"]

    static func oauthClient(_ flags: String...) -> [String] {
        FieldCase.python("oauth-client.py") + flags
    }

    static let bearerCases: [FieldCase] = [
        FieldCase(
            id: "bearer.static-token", wrong: oauthClient("--token-in-query"),
            finding: "never puts the token in the URI's query", right: bearerCurl
        ),
        FieldCase(
            id: "bearer.expired-token", wrong: oauthClient("--retry-401", "5"),
            finding: "does not retry the refused token in a loop", right: oauthClient()
        ),
        FieldCase(
            id: "bearer.insufficient-scope", wrong: oauthClient("--retry-403", "4"),
            finding: "sends the same token at most twice", right: oauthClient()
        ),
        FieldCase(
            id: "bearer.redirect-other-host", wrong: oauthClient("--keep-auth-on-redirect"),
            finding: "carries no token to the other host", right: bearerCurl
        ),
        FieldCase(
            id: "bearer.https-to-http", wrong: oauthClient("--keep-auth-on-redirect"),
            finding: "carries no token over cleartext", right: oauthClient()
        ),
        FieldCase(
            id: "oauth.password-grant", wrong: oauthClient("--send-refresh-token"),
            finding: "never sends the refresh token to the resource server", right: oauthClient()
        ),
        FieldCase(
            id: "oauth.refresh-on-expiry", wrong: oauthClient("--no-refresh"),
            finding: "renews the expired token with its refresh token and is served again", right: oauthClient()
        ),
        FieldCase(
            id: "oauth.parallel-refresh", wrong: oauthClient("--no-single-flight"),
            finding: "refreshes once for all of them", right: oauthClient()
        ),
        FieldCase(
            id: "oauth.refresh-fails", wrong: oauthClient("--refresh-loop", "6"),
            finding: "tries the refresh at most twice", right: oauthClient()
        ),
        FieldCase(
            id: "oauth.rotated-refresh-token", wrong: oauthClient("--keep-old-refresh"),
            finding: "never presents a retired refresh token", right: oauthClient()
        ),
    ]

    /// A 401 without a challenge: a client that keys its refresh on `invalid_token` passes; one that refreshes on
    /// any 401 is informational, never fail.
    @Test func bareUnauthorizedTellsTheRefreshPoliciesApart() async throws {
        let keyed = try only(try await check(Self.oauthClient(), "oauth.401-without-challenge"))
        #expect(keyed.verdict == .pass, "\(keyed.findings)")
        let any = try only(try await check(Self.oauthClient("--refresh-on-any-401"), "oauth.401-without-challenge"))
        #expect(any.verdict == .informational, "\(any.findings)")
    }

    /// A client that never speaks Bearer or OAuth (curl with a user and password) is unimplemented on them,
    /// never passed: a pass needs the behaviour.
    @Test(arguments: ["bearer.static-token", "bearer.expired-token", "oauth.password-grant", "oauth.refresh-fails"])
    func bearerCasesAreUnimplementedWithoutBearer(_ id: String) async throws {
        let report = try only(try await check(["curl", "-sS", "--fail", "-u", "{user}:{password}", "{url}"], id))
        #expect(report.verdict == .unimplemented, "\(report.findings)")
    }

    /// curl's `--oauth2-bearer` sends a given token but gets none: the oauth cases are unimplemented for it.
    @Test func curlBearerHasNoTokenEndpoint() async throws {
        let report = try only(try await check(["curl", "-sS", "--fail", "--oauth2-bearer", "{token}", "{url}"], "oauth.refresh-on-expiry"))
        #expect(report.verdict == .unimplemented, "\(report.findings)")
    }

    /// The inputs of a Bearer case and of an OAuth case.
    @Test func bearerAndOAuthInputs() async throws {
        let printed = ["printf", "%s|", "{token}", "{user}", "{password}", "{token_url}", "{client_id}", "{client_secret}"]
        let bearer = try only(try await check(printed, "bearer.static-token")).stdout ?? ""
        #expect(bearer == "alice-access-token||||||", "a token alone: no user, no password")
        let oauth = try only(try await check(printed, "oauth.password-grant")).stdout ?? ""
        let fields = oauth.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        #expect(Array(fields[0...2]) == ["", "alice", "wonderland"], "\(fields)")
        #expect(fields[3].hasPrefix("http://127.0.0.1:") && fields[3].hasSuffix("/oauth/token"), "\(fields)")
        #expect(Array(fields[4...5]) == ["app", "app-secret"], "\(fields)")
    }
}
