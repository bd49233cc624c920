@testable import AuthMockServer
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// Bearer tokens and the token endpoint through a real server and curl: what `scenarios/bearer.yaml` and
/// `scenarios/oauth-refresh.yaml` tell people to try.
@Suite(.serialized)
struct BearerCurlTests {
    /// The JSON object a token answer carries.
    func json(_ body: String) throws -> [String: JSONValue] {
        try JSONDecoder().decode([String: JSONValue].self, from: Data(body.utf8))
    }

    func bearer(_ token: String) -> [String] { ["-H", "Authorization: Bearer \(token)"] }

    /// curl gets a token from the endpoint (client credentials, Basic client authentication; a JWT in
    /// bearer.yaml) and a 200 with it; the token expires with its lifetime on the server's own clock.
    @Test func clientCredentialsTokenThenResource() async throws {
        var scenario = try shipped("bearer.yaml")
        // Long enough for the first use under a loaded test run, short enough to wait for.
        scenario.oauth?.accessToken.lifetime = 8
        try await withServer(scenario) { server in
            let issued = try await curl(["-u", "app:app-secret", "-d", "grant_type=client_credentials", server.url + "oauth/token"])
            #expect(issued.status == 200)
            let token = try #require(try json(issued.body)["access_token"]?.text)
            let granted = try await curl(bearer(token) + [server.url + "admin"])
            #expect(granted.status == 200 && granted.body == "Admin area for app.\n")
            try await Task.sleep(for: .milliseconds(8200))
            let expired = try await curl(bearer(token) + [server.url])
            #expect(expired.status == 401)
            #expect(server.journal.last?.verdict == .bearerExpired)
        }
    }

    /// A static token, its scope, the query form, and the timeline that expires it after three successes.
    @Test func staticTokenScopeQueryAndTimeline() async throws {
        try await withServer(try shipped("bearer.yaml")) { server in
            #expect(try await curl(bearer("alice-static-token") + [server.url]).status == 200)
            let forbidden = try await curl(["-D", "-"] + bearer("alice-static-token") + [server.url + "admin"])
            #expect(forbidden.status == 403)
            #expect(forbidden.body.contains(#"error="insufficient_scope""#))
            #expect(try await curl([server.url + "?access_token=alice-static-token"]).status == 200)
            #expect(server.journal.last?.verdict == .bearerInQuery)
            // A 403 is no success: this is alice's third, after which her token expires.
            #expect(try await curl(bearer("alice-static-token") + [server.url]).status == 200)
            #expect(try await curl(bearer("alice-static-token") + [server.url]).status == 401)
            #expect(server.journal.map(\.verdict).contains(.userTokensExpired))
        }
    }

    /// oauth-refresh.yaml: each access token serves 2 requests; the refresh rotates; the retired refresh
    /// token, presented again, revokes the family.
    @Test func passwordGrantRefreshRotationAndReuse() async throws {
        try await withServer(try shipped("oauth-refresh.yaml")) { server in
            let endpoint = server.url + "oauth/token"
            let login = try await curl([
                "-u", "app:app-secret", "-d", "grant_type=password", "-d", "username=alice", "-d", "password=wonderland",
                endpoint,
            ])
            let first = try json(login.body)
            let access = try #require(first["access_token"]?.text)
            let refresh = try #require(first["refresh_token"]?.text)
            for _ in 0..<2 { #expect(try await curl(bearer(access) + [server.url]).status == 200) }
            #expect(try await curl(bearer(access) + [server.url]).status == 401, "two uses, then expired")

            let refreshed = try await curl(["-u", "app:app-secret", "-d", "grant_type=refresh_token", "-d", "refresh_token=\(refresh)", endpoint])
            #expect(refreshed.status == 200)
            let second = try json(refreshed.body)
            let newAccess = try #require(second["access_token"]?.text)
            #expect(second["refresh_token"]?.text != refresh, "rotated")
            #expect(try await curl(bearer(newAccess) + [server.url]).status == 200)

            let reused = try await curl(["-u", "app:app-secret", "-d", "grant_type=refresh_token", "-d", "refresh_token=\(refresh)", endpoint])
            #expect(reused.status == 400)
            #expect(try json(reused.body)["error"] == .string("invalid_grant"))
            #expect(try await curl(bearer(newAccess) + [server.url]).status == 401, "the family is revoked")
            let verdicts = server.journal.map(\.verdict)
            #expect(verdicts.contains(.oauthRefreshReused) && verdicts.last == .bearerRevoked)
        }
    }

    /// Bad input to the endpoint through the whole stack: each a §5.2 error in JSON, the server still up.
    @Test func badTokenRequestsAreAnsweredAndJournaled() async throws {
        try await withServer(try shipped("oauth-refresh.yaml")) { server in
            let endpoint = server.url + "oauth/token"
            let json = try await curl(["-u", "app:app-secret", "-H", "Content-Type: application/json", "-d", "{}", endpoint])
            #expect(json.status == 400 && json.body.contains(#""error":"invalid_request""#))
            let malformed = try await curl(["-H", "Authorization: Basic %%%", "-d", "grant_type=password", endpoint])
            #expect(malformed.status == 400)
            // 900 KiB: under the server's 1 MiB body limit, over the endpoint's 64 KiB form limit.
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-big-form-\(getpid())")
            try Data(("grant_type=password&x=" + String(repeating: "a", count: 900 * 1024)).utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let huge = try await curl(["-u", "app:app-secret", "--data-binary", "@" + file.path, endpoint])
            #expect(huge.status == 400 && huge.body.contains("invalid_request"))
            // 1.5 MiB: over the server's body limit, refused by the shell, still in the endpoint's JSON.
            try Data(("grant_type=password&x=" + String(repeating: "a", count: 1536 * 1024)).utf8).write(to: file)
            let tooLarge = try await curl(["-u", "app:app-secret", "--data-binary", "@" + file.path, endpoint])
            #expect(tooLarge.status == 413 && tooLarge.body.contains(#""error":"invalid_request""#), "\(tooLarge.body)")
            let wrong = try await curl(["-u", "app:nope", "-d", "grant_type=password", endpoint])
            #expect(wrong.status == 401 && wrong.body.contains(#""error":"invalid_client""#))
            #expect(server.journal.count == 5)
            #expect(try await curl(["-u", "app:app-secret", "-d", "grant_type=password", "-d", "username=alice", "-d", "password=wonderland", endpoint]).status == 200)
        }
    }
}
