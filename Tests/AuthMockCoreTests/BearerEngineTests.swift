import Foundation
import Testing
@testable import AuthMockCore
import AuthMockTestSupport

/// Bearer tokens (RFC 6750) on the engine alone: static tokens, issued tokens, scopes, the three ways a
/// token travels, and the errors of §3.1 in the challenge.
struct BearerEngineTests {
    func harness() throws -> Harness { Harness(try loadShipped("bearer.yaml")) }

    /// The `Bearer` challenge of an exchange, parsed.
    func bearer(_ exchange: Exchange) -> AuthHeaderValue? {
        exchange.challenges.first { $0.scheme == "Bearer" }
    }

    @Test func noTokenGetsAChallengeWithoutError() throws {
        var h = try harness()
        let first = h.send()
        #expect(first.status == 401 && first.verdict == .noCredentials)
        let challenge = try #require(bearer(first))
        #expect(challenge[parameter: "realm"] == "authmock api")
        #expect(challenge[parameter: "error"] == nil, "RFC 6750 §3.1: no error code when the request had no token")
        #expect(challenge[parameter: "resource_metadata"] == "/.well-known/oauth-protected-resource")
    }

    @Test func staticTokenGrantsAndNamesItsUser() throws {
        var h = try harness()
        let ok = h.send(authorization: "Bearer alice-static-token")
        #expect(ok.status == 200 && ok.verdict == .bearerOK)
        #expect(ok.response.bodyText == "Hello, alice!\n")
        #expect(ok.entry?.credentials?.user == "alice")
        #expect(ok.entry?.credentials?.params?["token"] == "static")
        // The scheme is case-insensitive (RFC 9110 §11.1); the token is not.
        #expect(h.send(authorization: "bearer alice-static-token").verdict == .bearerOK)
        #expect(h.send(authorization: "Bearer ALICE-STATIC-TOKEN").verdict == .bearerUnknownToken)
    }

    @Test func unknownTokenIsInvalidToken() throws {
        var h = try harness()
        let refused = h.send(authorization: "Bearer not-a-token-we-issued")
        #expect(refused.status == 401 && refused.verdict == .bearerUnknownToken)
        let challenge = try #require(bearer(refused))
        #expect(challenge[parameter: "error"] == "invalid_token")
        #expect(challenge[parameter: "error_description"] != nil)
    }

    @Test func malformedTokenIsInvalidRequest() throws {
        var h = try harness()
        for field in ["Bearer ", "Bearer two words", "Bearer tok=en", "Bearer \"quoted\"", "Bearer =abc"] {
            let refused = h.send(authorization: field)
            #expect(refused.status == 400, "\(field)")
            #expect(refused.verdict == .bearerMalformed, "\(field)")
            #expect(bearer(refused)?[parameter: "error"] == "invalid_request", "\(field)")
        }
        // Padding at the end is part of the b64token syntax.
        #expect(h.send(authorization: "Bearer abc==").verdict == .bearerUnknownToken)
    }

    @Test func insufficientScopeIs403WithTheScopeNeeded() throws {
        var h = try harness()
        let refused = h.send(authorization: "Bearer alice-static-token", "GET", "/admin")
        #expect(refused.status == 403 && refused.verdict == .bearerInsufficientScope)
        let challenge = try #require(bearer(refused))
        #expect(challenge[parameter: "error"] == "insufficient_scope")
        #expect(challenge[parameter: "scope"] == "admin")
        let bob = h.send(authorization: "Bearer bob-admin-token", "GET", "/admin")
        #expect(bob.status == 200 && bob.response.bodyText == "Admin area for bob.\n")
    }

    @Test func queryTokenIsGrantedAndFlagged() throws {
        var h = try harness()
        let query = h.send("GET", "/?x=1&access_token=alice-static-token")
        #expect(query.status == 200 && query.verdict == .bearerInQuery)
        #expect(query.entry?.credentials?.header == "access_token (query)")
        #expect(query.entry?.detail?.contains("§2.3") == true)
    }

    @Test func formBodyTokenIsGranted() throws {
        var h = try harness()
        let form = [HeaderField("Content-Type", "application/x-www-form-urlencoded")]
        let body = Array("access_token=alice-static-token&other=1".utf8)
        let post = h.send("POST", "/", headers: form, body: body)
        #expect(post.status == 200 && post.verdict == .bearerOK)
        #expect(post.entry?.credentials?.header == "access_token (form body)")
        // Not a form content type, or a GET: §2.2's conditions do not hold, so there is no token.
        #expect(h.send("POST", "/", headers: [HeaderField("Content-Type", "text/plain")], body: body).verdict == .noCredentials)
        #expect(h.send("GET", "/", headers: form, body: body).verdict == .noCredentials)
    }

    @Test func moreThanOneMethodIsInvalidRequest() throws {
        var h = try harness()
        let both = h.send(
            "GET", "/?access_token=alice-static-token",
            headers: [HeaderField("Authorization", "Bearer alice-static-token")]
        )
        #expect(both.status == 400 && both.verdict == .bearerMultipleMethods)
        #expect(bearer(both)?[parameter: "error"] == "invalid_request")
        let twice = h.send("GET", "/?access_token=a&access_token=b")
        #expect(twice.verdict == .bearerMultipleMethods)
    }

    /// bearer.yaml's timeline: alice's tokens expire after her third success.
    @Test func timelineExpiresTheStaticToken() throws {
        var h = try harness()
        for _ in 1...2 { #expect(h.send(authorization: "Bearer alice-static-token").verdict == .bearerOK) }
        let third = h.send(authorization: "Bearer alice-static-token")
        #expect(third.verdict == .bearerOK)
        #expect(third.events.map(\.verdict) == [.userTokensExpired])
        let expired = h.send(authorization: "Bearer alice-static-token")
        #expect(expired.status == 401 && expired.verdict == .bearerExpired)
        #expect(bearer(expired)?[parameter: "error"] == "invalid_token")
        #expect(h.send(authorization: "Bearer bob-admin-token").verdict == .bearerOK, "bob's token is his own")
    }

    @Test func issuedTokenExpiresWithItsLifetime() throws {
        var h = try harness()
        let token = try #require(OAuthTests.token(h.send(
            "POST", "/oauth/token", headers: OAuthTests.form + [HeaderField("Authorization", basic("app", "app-secret"))],
            body: Array("grant_type=client_credentials".utf8)
        )))
        #expect(token["expires_in"] == .number(60))
        let access = try #require(token["access_token"]?.text)
        let ok = h.send(authorization: "Bearer \(access)", "GET", "/admin")
        #expect(ok.status == 200 && ok.response.bodyText == "Admin area for app.\n", "client credentials speak for the client")
        h.now = t0.addingTimeInterval(59.9)
        #expect(h.send(authorization: "Bearer \(access)").verdict == .bearerOK)
        h.now = t0.addingTimeInterval(60)
        let expired = h.send(authorization: "Bearer \(access)")
        #expect(expired.verdict == .bearerExpired && expired.status == 401)
    }

    @Test func protectedResourceMetadataNamesTheServers() throws {
        var h = try harness()
        h.engine.setLinks(["url": "http://127.0.0.1:8080/"])
        let challenge = try #require(bearer(h.send()))
        #expect(challenge[parameter: "resource_metadata"] == "http://127.0.0.1:8080/.well-known/oauth-protected-resource")
        let metadata = h.send("GET", "/.well-known/oauth-protected-resource")
        let document = try JSONDecoder().decode([String: JSONValue].self, from: Data(metadata.response.body))
        #expect(document["resource"] == .string("http://127.0.0.1:8080"))
        #expect(document["authorization_servers"] == .array([.string("http://127.0.0.1:8080")]))
        let server = h.send("GET", "/.well-known/oauth-authorization-server")
        let serverDocument = try JSONDecoder().decode([String: JSONValue].self, from: Data(server.response.body))
        #expect(serverDocument["token_endpoint"] == .string("http://127.0.0.1:8080/oauth/token"))
        #expect(serverDocument["issuer"] == .string("http://127.0.0.1:8080"))
    }

    @Test func b64tokenSyntax() {
        for valid in ["a", "abc-._~+/", "abc=", "abc==", "A0"] { #expect(BearerToken.isValid(valid), "\(valid)") }
        for invalid in ["", "=", "a b", "a=b", "a\"", "é", "a,b"] { #expect(!BearerToken.isValid(invalid), "\(invalid)") }
    }
}
