import Foundation
import Testing
@testable import AuthMockCore
import AuthMockTestSupport
import Crypto

/// The token endpoint (RFC 6749) on the engine alone: grants, refresh with rotation, reuse detection, and
/// every bad request answered with an error of §5.2.
struct OAuthTests {
    static let form = [HeaderField("Content-Type", "application/x-www-form-urlencoded")]
    static let app = HeaderField("Authorization", basic("app", "app-secret"))

    /// The JSON object of a 200 from the token endpoint; nil for anything else.
    static func token(_ exchange: Exchange) -> [String: JSONValue]? {
        guard exchange.status == 200 else { return nil }
        return try? JSONDecoder().decode([String: JSONValue].self, from: Data(exchange.response.body))
    }

    /// The `error` of a refusal, and the headers every token answer carries.
    static func error(_ exchange: Exchange) -> String? {
        let body = try? JSONDecoder().decode([String: JSONValue].self, from: Data(exchange.response.body))
        return body?["error"]?.text
    }

    func harness() throws -> Harness { Harness(try loadShipped("oauth-refresh.yaml")) }

    @discardableResult
    func post(_ h: inout Harness, _ form: String, headers: [HeaderField] = [Self.app]) -> Exchange {
        h.send("POST", "/oauth/token", headers: Self.form + headers, body: Array(form.utf8))
    }

    func login(_ h: inout Harness) throws -> (access: String, refresh: String) {
        let answer = post(&h, "grant_type=password&username=alice&password=wonderland")
        #expect(answer.verdict == .oauthTokenIssued)
        let token = try #require(Self.token(answer))
        #expect(token["token_type"] == .string("Bearer"))
        #expect(answer.response.headers.first("Cache-Control") == "no-store", "RFC 6749 §5.1")
        return (try #require(token["access_token"]?.text), try #require(token["refresh_token"]?.text))
    }

    func refresh(_ h: inout Harness, _ token: String) -> Exchange {
        post(&h, "grant_type=refresh_token&refresh_token=\(token)")
    }

    @Test func passwordGrantTokenServesItsUses() throws {
        var h = try harness()
        let (access, _) = try login(&h)
        for _ in 1...2 { #expect(h.send(authorization: "Bearer \(access)").verdict == .bearerOK) }
        let used = h.send(authorization: "Bearer \(access)")
        #expect(used.status == 401 && used.verdict == .bearerExpired)
        #expect(used.challenges.first?[parameter: "error"] == "invalid_token")
        #expect(post(&h, "grant_type=password&username=alice&password=nope").verdict == .oauthInvalidGrant)
        #expect(Self.error(post(&h, "grant_type=password&username=alice&password=nope")) == "invalid_grant")
    }

    @Test func refreshRotatesAndTheNewTokensWork() throws {
        var h = try harness()
        let (_, first) = try login(&h)
        let answer = refresh(&h, first)
        #expect(answer.verdict == .oauthRefreshed)
        let token = try #require(Self.token(answer))
        let access = try #require(token["access_token"]?.text)
        let second = try #require(token["refresh_token"]?.text)
        #expect(second != first, "rotation hands out a new refresh token")
        #expect(h.send(authorization: "Bearer \(access)").verdict == .bearerOK)
        #expect(refresh(&h, second).verdict == .oauthRefreshed, "the rotated token works once")
        #expect(h.journal.entries.filter { $0.verdict == .oauthRefreshed }.count == 2)
    }

    /// OAuth 2.0 Security BCP §4.14.2: a retired refresh token revokes its family, access tokens included.
    @Test func reusedRefreshTokenRevokesTheFamily() throws {
        var h = try harness()
        let (_, first) = try login(&h)
        let rotated = try #require(Self.token(refresh(&h, first)))
        let access = try #require(rotated["access_token"]?.text)
        let second = try #require(rotated["refresh_token"]?.text)

        let reuse = refresh(&h, first)
        #expect(reuse.status == 400 && reuse.verdict == .oauthRefreshReused)
        #expect(Self.error(reuse) == "invalid_grant")
        let revoked = h.send(authorization: "Bearer \(access)")
        #expect(revoked.status == 401 && revoked.verdict == .bearerRevoked)
        let alsoRevoked = refresh(&h, second)
        #expect(alsoRevoked.verdict == .oauthInvalidGrant, "the thief's token is dead too")
        // A new login starts a new family.
        let (fresh, _) = try login(&h)
        #expect(h.send(authorization: "Bearer \(fresh)").verdict == .bearerOK)
    }

    @Test func withoutRotationTheRefreshTokenStays() throws {
        let scenario = try load("""
            version: 1
            name: no-rotation
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Bearer}]
            oauth:
              clients: [{id: app, secret: app-secret}]
              grants: [password, refresh_token]
              refresh-token: {rotate: false}
            """)
        var h = Harness(scenario)
        let (_, token) = try login(&h)
        for _ in 1...3 {
            let answer = refresh(&h, token)
            #expect(answer.verdict == .oauthRefreshed)
            #expect(Self.token(answer)?["refresh_token"] == nil, "no new refresh token: the old one stays (§6)")
        }
    }

    @Test func refreshTokenAtTheResourceServerIsALeak() throws {
        var h = try harness()
        let (_, refreshToken) = try login(&h)
        let leaked = h.send(authorization: "Bearer \(refreshToken)")
        #expect(leaked.status == 401 && leaked.verdict == .bearerRefreshToken)
        #expect(leaked.entry?.leaks == ["a refresh token was sent to the resource server"])
    }

    @Test func refreshTokenOfAnotherClientIsInvalidGrant() throws {
        let scenario = try load("""
            version: 1
            name: two-clients
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Bearer}]
            oauth:
              clients: [{id: app, secret: app-secret}, {id: other, secret: other-secret}]
              grants: [password, refresh_token]
            """)
        var h = Harness(scenario)
        let (access, token) = try login(&h)
        let other = post(&h, "grant_type=refresh_token&refresh_token=\(token)", headers: [
            HeaderField("Authorization", basic("other", "other-secret"))
        ])
        #expect(other.verdict == .oauthInvalidGrant)
        let accessAsRefresh = refresh(&h, access)
        #expect(accessAsRefresh.verdict == .oauthInvalidGrant)
        #expect(accessAsRefresh.entry?.detail == "an access token was sent as the refresh token")
    }

    /// Bad input to the endpoint: each answered with the §5.2 error it is, as JSON, never cached.
    @Test func badRequestsGetTheirErrors() throws {
        var h = try harness()
        let cases: [(String, Exchange, Int, String, Verdict)] = [
            ("GET", h.send("GET", "/oauth/token"), 405, "invalid_request", .oauthInvalidRequest),
            ("JSON", h.send("POST", "/oauth/token", headers: [HeaderField("Content-Type", "application/json"), Self.app],
                           body: Array(#"{"grant_type":"password"}"#.utf8)), 400, "invalid_request", .oauthInvalidRequest),
            ("no grant_type", post(&h, "username=alice"), 400, "invalid_request", .oauthInvalidRequest),
            ("grant twice", post(&h, "grant_type=password&grant_type=password"), 400, "invalid_request", .oauthInvalidRequest),
            ("unknown grant", post(&h, "grant_type=urn:x"), 400, "unsupported_grant_type", .oauthUnsupportedGrantType),
            ("not enabled", post(&h, "grant_type=client_credentials"), 400, "unsupported_grant_type",
             .oauthUnsupportedGrantType),
            ("bad escape", post(&h, "grant_type=pass%zzword"), 400, "invalid_request", .oauthInvalidRequest),
            ("huge", post(&h, "grant_type=password&x=" + String(repeating: "a", count: 1024 * 1024)), 400,
             "invalid_request", .oauthInvalidRequest),
            ("malformed Basic", post(&h, "grant_type=password", headers: [HeaderField("Authorization", "Basic !!!")]), 400,
             "invalid_request", .oauthInvalidRequest),
            ("wrong secret", post(&h, "grant_type=password", headers: [HeaderField("Authorization", basic("app", "x"))]),
             401, "invalid_client", .oauthInvalidClient),
            ("unknown client", post(&h, "grant_type=password", headers: [HeaderField("Authorization", basic("x", "y"))]),
             401, "invalid_client", .oauthInvalidClient),
            ("no client", post(&h, "grant_type=password", headers: []), 401, "invalid_client", .oauthInvalidClient),
            ("Digest client", post(&h, "grant_type=password", headers: [HeaderField("Authorization", "Digest x=1")]), 401,
             "invalid_client", .oauthInvalidClient),
            ("two methods", post(&h, "grant_type=password&client_secret=app-secret"), 400, "invalid_request",
             .oauthInvalidRequest),
            ("no refresh_token", post(&h, "grant_type=refresh_token"), 400, "invalid_request", .oauthInvalidRequest),
            ("unknown refresh", post(&h, "grant_type=refresh_token&refresh_token=rt_nope"), 400, "invalid_grant",
             .oauthInvalidGrant),
        ]
        for (name, exchange, status, error, verdict) in cases {
            #expect(exchange.status == status, "\(name)")
            #expect(Self.error(exchange) == error, "\(name)")
            #expect(exchange.verdict == verdict, "\(name)")
            #expect(exchange.response.headers.first("Cache-Control") == "no-store", "\(name)")
            #expect(exchange.response.headers.first("Content-Type") == "application/json", "\(name)")
        }
        let invalidClient = post(&h, "grant_type=password", headers: [HeaderField("Authorization", basic("app", "x"))])
        #expect(invalidClient.response.headers.first("WWW-Authenticate") == #"Basic realm="authmock api""#)
        #expect(h.send("GET", "/oauth/token").response.headers.first("Allow") == "POST")
    }

    @Test func clientSecretPostAndScopes() throws {
        let scenario = try load("""
            version: 1
            name: scopes
            users: [{name: alice, password: wonderland, scope: read}]
            challenges: [{scheme: Bearer}]
            oauth:
              clients: [{id: app, secret: "s e+c", scope: read write}]
              grants: [client_credentials, password]
            """)
        var h = Harness(scenario)
        // client_secret_post, the secret form-encoded.
        let posted = post(&h, "grant_type=client_credentials&client_id=app&client_secret=s+e%2Bc&scope=write", headers: [])
        #expect(posted.verdict == .oauthTokenIssued)
        #expect(Self.token(posted)?["scope"] == .string("write"))
        #expect(posted.entry?.credentials?.scheme == "client_secret_post")
        // Basic with the id and secret form-encoded before base64 (RFC 6749 §2.3.1).
        let encoded = HeaderField("Authorization", basic("app", "s+e%2Bc"))
        #expect(post(&h, "grant_type=client_credentials", headers: [encoded]).verdict == .oauthTokenIssued)
        let beyond = post(&h, "grant_type=client_credentials&scope=admin", headers: [encoded])
        #expect(beyond.verdict == .oauthInvalidScope && Self.error(beyond) == "invalid_scope")
        let userBeyond = post(&h, "grant_type=password&username=alice&password=wonderland&scope=write", headers: [encoded])
        #expect(userBeyond.verdict == .oauthInvalidScope, "alice may only have read")
        let userToken = Self.token(post(&h, "grant_type=password&username=alice&password=wonderland", headers: [encoded]))
        #expect(userToken?["scope"] == .string("read write"), "the client's scope, when none is asked")
    }

    @Test func tokensAreDeterministicWithASeed() throws {
        var one = try harness()
        var two = try harness()
        #expect(try login(&one).access == login(&two).access)
    }

    @Test func faultsApplyToTheTokenEndpoint() throws {
        let scenario = try load("""
            version: 1
            name: slow-refresh
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Bearer}]
            oauth:
              clients: [{id: app, secret: app-secret}]
              grants: [password, refresh_token]
            faults:
              - {when: any, path: /oauth/token, effect: close, times: 1}
            """)
        var h = Harness(scenario)
        let first = post(&h, "grant_type=password&username=alice&password=wonderland")
        #expect(first.response.fault == .close && first.entry?.fault == "close")
        #expect(post(&h, "grant_type=password&username=alice&password=wonderland").response.fault == nil)
    }

    @Test func formEncoding() {
        let pairs = FormEncoding.decode(Array("a=1&b=x+y%2Bz&&c&d=%C3%A9".utf8))
        #expect(pairs?.map(\.name) == ["a", "b", "c", "d"])
        #expect(pairs?.map(\.value) == ["1", "x y+z", "", "é"])
        #expect(FormEncoding.decode(Array("a=%2".utf8)) == nil)
        #expect(FormEncoding.decode(Array("a=%FF".utf8)) == nil, "not UTF-8")
    }
}

/// What a scenario may not say about Bearer and `oauth:`, each reported where it was written.
struct OAuthScenarioTests {
    @Test func mistakesAreReportedWithPositions() {
        let found = diagnostics("""
            version: 1
            name: x
            users:
              - name: alice
                token: "two words"
              - name: bob
                password: pw
                scope: 'a"b'
            challenges:
              - scheme: Basic
            resources:
              - path: /
                scope: admin
            oauth:
              clients: [{id: app, secret: s}, {id: app}]
              grants: [client_credentials, implicit]
            timeline:
              - at-request: 1
                user: nobody
                expire-tokens: true
            """)
        #expect(found.contains { $0.hasPrefix("bad.yaml:5:12: a user's token 'two words' is not a Bearer token") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:8:12: a user's scope 'a\"b' is not a list of scope tokens") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:13:12: scope is for Bearer tokens") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:15:40: client 'app' is listed twice") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:16:32: grant type 'implicit' is not one") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:19:11: timeline user 'nobody' is not in users or oauth.clients") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:15:3: oauth issues Bearer tokens, and no challenge accepts them") }, "\(found)")
    }

    @Test func expireTokensMayNameAClient() throws {
        let scenario = try load("""
            version: 1
            name: x
            challenges: [{scheme: Bearer}]
            oauth:
              clients: [{id: app, secret: s}]
            timeline:
              - {at-request: 2, user: app, expire-tokens: true}
            """)
        var h = Harness(scenario)
        let answer = h.send("POST", "/oauth/token", headers: OAuthTests.form + [HeaderField("Authorization", basic("app", "s"))],
                            body: Array("grant_type=client_credentials".utf8))
        let access = try #require(OAuthTests.token(answer)?["access_token"]?.text)
        let expired = h.send(authorization: "Bearer \(access)")
        #expect(expired.verdict == .bearerExpired)
        #expect(h.journal.entries.map(\.verdict).contains(.userTokensExpired))
    }
}

/// The `server-error` fault: a 500 instead of the answer, decided as usual (the refresh rotated anyway).
struct ServerErrorFaultTests {
    @Test func refreshThatFailsWithA500StillRotated() throws {
        let scenario = try load("""
            version: 1
            name: refresh-500
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Bearer}]
            oauth:
              clients: [{id: app, secret: app-secret}]
              grants: [password, refresh_token]
            faults:
              - {when: any, path: /oauth/token, effect: server-error, times: 1}
            """)
        var h = Harness(scenario)
        let form = OAuthTests.form + [OAuthTests.app]
        let failed = h.send("POST", "/oauth/token", headers: form, body: Array("grant_type=password&username=alice&password=wonderland".utf8))
        #expect(failed.status == 500 && failed.entry?.fault == "server-error" && failed.entry?.status == 500)
        #expect(failed.verdict == .oauthTokenIssued, "decided as usual; the client never saw the token")
        let again = h.send("POST", "/oauth/token", headers: form, body: Array("grant_type=password&username=alice&password=wonderland".utf8))
        #expect(again.status == 200 && again.response.fault == nil)
    }
}

/// JWT access tokens (`format: jwt`): EdDSA-signed, verifiable with the JWK Set the server publishes,
/// claims that say what the store says, and the same tokens from the same seed.
struct JWTAccessTokenTests {
    static let yaml = """
        version: 1
        name: jwt
        users: [{name: alice, password: wonderland, scope: read}]
        challenges: [{scheme: Bearer}]
        oauth:
          clients: [{id: app, secret: app-secret}]
          grants: [password, refresh_token]
          access-token: {lifetime: 60s, format: jwt}
        """

    func decode(_ part: Substring) throws -> [String: JSONValue] {
        var text = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        let data = try #require(Data(base64Encoded: text))
        return try JSONDecoder().decode([String: JSONValue].self, from: data)
    }

    func login(_ h: inout Harness) throws -> String {
        let answer = h.send(
            "POST", "/oauth/token", headers: OAuthTests.form + [OAuthTests.app],
            body: Array("grant_type=password&username=alice&password=wonderland".utf8)
        )
        return try #require(OAuthTests.token(answer)?["access_token"]?.text)
    }

    @Test func signedWithThePublishedKeyAndCarryingTheGrant() throws {
        var h = Harness(try load(Self.yaml))
        h.engine.setLinks(["url": "http://127.0.0.1:8080/"])
        let token = try login(&h)
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3)
        let header = try decode(parts[0])
        #expect(header["alg"] == .string("EdDSA") && header["typ"] == .string("at+jwt"))
        let claims = try decode(parts[1])
        #expect(claims["sub"] == .string("alice") && claims["client_id"] == .string("app"))
        #expect(claims["scope"] == .string("read") && claims["iss"] == .string("http://127.0.0.1:8080"))
        #expect(claims["iat"] == .number(t0.timeIntervalSince1970))
        #expect(claims["exp"] == .number(t0.timeIntervalSince1970 + 60))

        let jwks = h.send("GET", "/.well-known/jwks.json")
        let document = try JSONDecoder().decode([String: JSONValue].self, from: Data(jwks.response.body))
        guard case .array(let keys)? = document["keys"], case .object(let key)? = keys.first else {
            Issue.record("no key in \(document)")
            return
        }
        #expect(key["kty"] == .string("OKP") && key["crv"] == .string("Ed25519") && key["kid"] == header["kid"])
        let x = try #require(key["x"]?.text)
        var padded = x.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while padded.count % 4 != 0 { padded += "=" }
        let publicKey = try Curve25519.Signing.PublicKey(rawRepresentation: try #require(Data(base64Encoded: padded)))
        var signature = String(parts[2]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while signature.count % 4 != 0 { signature += "=" }
        let signed = Data("\(parts[0]).\(parts[1])".utf8)
        #expect(publicKey.isValidSignature(try #require(Data(base64Encoded: signature)), for: signed))

        let metadata = h.send("GET", "/.well-known/oauth-authorization-server")
        #expect(metadata.response.bodyText.contains(#""jwks_uri":"http://127.0.0.1:8080/.well-known/jwks.json""#))
        #expect(h.send(authorization: "Bearer \(token)").verdict == .bearerOK)
        h.now = t0.addingTimeInterval(60)
        #expect(h.send(authorization: "Bearer \(token)").verdict == .bearerExpired, "the store's expiry, the exp claim's")
    }

    @Test func aChangedClaimIsAnUnknownToken() throws {
        var h = Harness(try load(Self.yaml))
        let token = try login(&h)
        let parts = token.split(separator: ".")
        var claims = try decode(parts[1])
        claims["scope"] = .string("read admin")
        let forged = parts[0] + "." + Base64.encode(Array(JSONValue.object(claims).json.utf8), urlSafe: true) + "." + parts[2]
        #expect(h.send(authorization: "Bearer \(forged)").verdict == .bearerUnknownToken)
    }

    @Test func theSameSeedIssuesTheSameTokens() throws {
        var one = Harness(try load(Self.yaml))
        var two = Harness(try load(Self.yaml))
        #expect(try login(&one) == login(&two))
        #expect(one.send("GET", "/.well-known/jwks.json").response.body == two.send("GET", "/.well-known/jwks.json").response.body)
    }
}

/// The token store's bound: a full store forgets its older half before it keeps a new token.
struct TokenStoreTests {
    @Test func aFullStoreForgetsTheOlderHalf() {
        var store = TokenStore(capacity: 4)
        for n in 1...5 {
            store.insert(access: "at-\(n)", TokenStore.Access(subject: "alice", scope: nil, issuedAt: t0))
            store.insert(refresh: "rt-\(n)", TokenStore.Refresh(subject: "alice", client: "app", scope: nil, family: 1))
        }
        #expect((1...5).map { store.access[TokenStore.key("at-\($0)")] != nil } == [false, false, true, true, true])
        #expect((1...5).map { store.refresh[TokenStore.key("rt-\($0)")] != nil } == [false, false, true, true, true])
        #expect(store.access[TokenStore.key("at-5")]?.serial == 9, "numbered in issue order, both kinds together")
    }
}
