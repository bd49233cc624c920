#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The token endpoint (RFC 6749 §3.2) of a scenario's `oauth:` section, and the metadata documents that
/// point clients at it (RFC 8414, RFC 9728). Its answers are decided like any other: journaled, faults
/// applied (`path: /oauth/token`), every refusal an error of §5.2 in JSON.
extension Engine {
    /// The answer when the request is for the token endpoint or a metadata document; nil otherwise.
    mutating func serveOAuth(_ request: Request, now: Date, random: inout some RandomNumberGenerator) -> Decision? {
        let path = request.resourcePath
        if let oauth = scenario.oauth, path == oauth.tokenPath {
            var form = TokenRequest(request: request, oauth: oauth)
            do throws(TokenError) {
                return try tokenResponse(&form, oauth: oauth, now: now, random: &random)
            } catch {
                return Decision(
                    response: error.response(realm: scenario.realm), verdict: error.verdict, detail: error.detail,
                    credentials: form.presented
                )
            }
        }
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        if path == Self.jwksPath, let signer = tokenSigner {
            return metadata(jwks(signer), "the token signing key (RFC 7517 JWK Set)")
        }
        if path == Self.authorizationServerMetadataPath, let oauth = scenario.oauth {
            return metadata(authorizationServer(oauth), "the authorization server's metadata (RFC 8414)")
        }
        if path == Self.resourceMetadataPath, let bearer = schemeOptions[.bearer] as? BearerChallenge,
            bearer.resourceMetadata
        {
            return metadata(protectedResource(bearer), "the protected resource's metadata (RFC 9728)")
        }
        return nil
    }

    static let authorizationServerMetadataPath = "/.well-known/oauth-authorization-server"

    /// A JSON object answer (keys sorted, whole numbers without a fraction).
    static func json(object: [String: JSONValue]) -> Response {
        Response(
            status: 200, headers: [HeaderField("Content-Type", "application/json")],
            body: Array((JSONValue.object(object).json + "\n").utf8)
        )
    }

    private func metadata(_ document: [String: JSONValue], _ what: String) -> Decision {
        Decision(response: Self.json(object: document), verdict: .publicResource, detail: what)
    }

    private func authorizationServer(_ oauth: OAuthSettings) -> [String: JSONValue] {
        let url = baseURL
        var document: [String: JSONValue] = [
            "issuer": .string(url),
            "token_endpoint": .string(url + oauth.tokenPath),
            "grant_types_supported": .array(oauth.grants.map { .string($0.rawValue) }),
            "token_endpoint_auth_methods_supported": .array([
                .string("client_secret_basic"), .string("client_secret_post"),
            ]),
        ]
        if let scope = oauth.scope {
            document["scopes_supported"] = .array(Self.scopeTokens(scope).map(JSONValue.string))
        }
        if tokenSigner != nil { document["jwks_uri"] = .string(url + Self.jwksPath) }
        return document
    }

    private func protectedResource(_ bearer: BearerChallenge) -> [String: JSONValue] {
        let url = baseURL
        var document: [String: JSONValue] = [
            "resource": .string(url),
            "bearer_methods_supported": .array([.string("header"), .string("body"), .string("query")]),
        ]
        if scenario.oauth != nil { document["authorization_servers"] = .array([.string(url)]) }
        if let scope = bearer.scope {
            document["scopes_supported"] = .array(Self.scopeTokens(scope).map(JSONValue.string))
        }
        return document
    }

    /// Reads, authenticates and grants one token request; every refusal is thrown.
    private mutating func tokenResponse(
        _ form: inout TokenRequest, oauth: OAuthSettings, now: Date, random: inout some RandomNumberGenerator
    ) throws(TokenError) -> Decision {
        try form.read()
        let client = try authenticate(&form, oauth: oauth)
        let grantName = try form.single("grant_type", required: true)!
        guard let grant = OAuthGrant(rawValue: grantName), oauth.grants.contains(grant) else {
            let taken = oauth.grants.map(\.rawValue).joined(separator: ", ")
            throw TokenError(
                .unsupportedGrantType, .oauthUnsupportedGrantType,
                "grant_type '\(grantName)' is not one this endpoint takes (\(taken))"
            )
        }
        let requested = try form.single("scope").map(Self.scopeTokens)
        switch grant {
        case .clientCredentials:
            let scope = try grantedScope(requested, limits: [client.scope, oauth.scope])
            let access = issueAccess(
                subject: client.id, client: client.id, scope: scope, family: nil, oauth: oauth, now: now,
                random: &random)
            return issued(
                .oauthTokenIssued, "client_credentials: a token for \(client.id)", access: access, refresh: nil,
                scope: scope, oauth: oauth, form: form)
        case .password:
            let username = try form.single("username", required: true)!
            let password = try form.single("password", required: true)!
            form.presented.params?["username"] = username
            guard let user = activeUser(named: username),
                passwordMatches(user, Array(password.utf8)), !isLocked(username)
            else {
                throw TokenError(
                    .invalidGrant, .oauthInvalidGrant,
                    "the password grant for '\(username)' failed: unknown user, wrong password or locked")
            }
            let scope = try grantedScope(requested, limits: [client.scope, user.scope, oauth.scope])
            let family = scenarioState.tokens.newFamily()
            let access = issueAccess(
                subject: username, client: client.id, scope: scope, family: family, oauth: oauth, now: now,
                random: &random)
            let refresh = issueRefresh(
                subject: username, client: client.id, scope: scope, family: family, random: &random)
            return issued(
                .oauthTokenIssued, "password: a token for \(username), refresh family \(family)", access: access,
                refresh: refresh, scope: scope, oauth: oauth, form: form)
        case .refreshToken:
            return try refresh(&form, client: client, requested: requested, oauth: oauth, now: now, random: &random)
        }
    }

    /// RFC 6749 §6, with rotation and reuse detection (OAuth 2.0 Security BCP §4.14.2).
    private mutating func refresh(
        _ form: inout TokenRequest, client: OAuthClient, requested: [String]?, oauth: OAuthSettings, now: Date,
        random: inout some RandomNumberGenerator
    ) throws(TokenError) -> Decision {
        let presentedToken = try form.single("refresh_token", required: true)!
        let key = TokenStore.key(presentedToken)
        guard let record = scenarioState.tokens.refresh[key] else {
            let what =
                scenarioState.tokens.access[key] != nil || staticTokens[key] != nil
                ? "an access token was sent as the refresh token" : "a refresh token this server never issued"
            throw TokenError(.invalidGrant, .oauthInvalidGrant, what)
        }
        form.presented.params?["family"] = String(record.family)
        guard record.client == client.id else {
            throw TokenError(
                .invalidGrant, .oauthInvalidGrant, "the refresh token was issued to \(record.client), not \(client.id)")
        }
        guard !scenarioState.tokens.isRevoked(record.family) else {
            throw TokenError(
                .invalidGrant, .oauthInvalidGrant, "the refresh token's family \(record.family) was revoked")
        }
        if record.used {
            if oauth.refreshToken.reuseDetection {
                scenarioState.tokens.revoke(family: record.family)
                throw TokenError(
                    .invalidGrant, .oauthRefreshReused,
                    "a refresh token retired by rotation came back: family \(record.family) is revoked, "
                        + "its access tokens too"
                )
            }
            throw TokenError(.invalidGrant, .oauthInvalidGrant, "a refresh token retired by rotation")
        }
        guard activeUser(named: record.subject) != nil, !isLocked(record.subject) else {
            throw TokenError(.invalidGrant, .oauthInvalidGrant, "\(record.subject) was removed or is locked")
        }
        if let requested, let original = record.scope, let beyond = requested.first(where: { !original.contains($0) }) {
            throw TokenError(.invalidScope, .oauthInvalidScope, "scope '\(beyond)' was not in the original grant")
        }
        let scope = requested ?? record.scope
        let access = issueAccess(
            subject: record.subject, client: client.id, scope: scope, family: record.family, oauth: oauth, now: now,
            random: &random)
        var refresh: String?
        if oauth.refreshToken.rotate {
            scenarioState.tokens.markUsed(refresh: key)
            refresh = issueRefresh(
                subject: record.subject, client: client.id, scope: scope, family: record.family, random: &random)
        }
        let detail =
            "refresh_token: a new token for \(record.subject), family \(record.family)"
            + (oauth.refreshToken.rotate ? ", the refresh token rotated" : "")
        return issued(.oauthRefreshed, detail, access: access, refresh: refresh, scope: scope, oauth: oauth, form: form)
    }

    /// The client, authenticated by Basic (§2.3.1) or by the body's `client_id` and `client_secret`.
    private func authenticate(_ form: inout TokenRequest, oauth: OAuthSettings) throws(TokenError) -> OAuthClient {
        let bodyID = try form.single("client_id")
        let bodySecret = try form.single("client_secret")
        var id: String
        var secret: String?
        if let field = form.request.headers.first("Authorization") {
            guard AuthScheme(token: Self.schemeAndToken(field).scheme) == .basic else {
                throw TokenError(
                    .invalidClient, .oauthInvalidClient, "client authentication must be Basic (RFC 6749 §2.3.1)")
            }
            guard let basic = BasicCredentials(field: field),
                let user = FormEncoding.decodeComponent(basic.user.utf8),
                let password = FormEncoding.decodeComponent(basic.password)
            else {
                throw TokenError(
                    .invalidRequest, .oauthInvalidRequest, "the Basic client credentials are not base64 of 'id:secret'")
            }
            guard bodySecret == nil else {
                throw TokenError(
                    .invalidRequest, .oauthInvalidRequest,
                    "the client authenticated by Basic and client_secret both (RFC 6749 §2.3)")
            }
            if let bodyID, bodyID != user {
                throw TokenError(
                    .invalidRequest, .oauthInvalidRequest, "client_id '\(bodyID)' is not the Basic user-id '\(user)'")
            }
            id = user
            secret = password
            form.presented = PresentedCredentials(
                header: "Authorization", scheme: "Basic", user: id, params: form.presented.params)
        } else {
            guard let bodyID else {
                throw TokenError(
                    .invalidClient, .oauthInvalidClient, "no client authentication: no Authorization and no client_id")
            }
            id = bodyID
            secret = bodySecret
            form.presented = PresentedCredentials(
                header: "client_id (form body)", scheme: bodySecret == nil ? "none" : "client_secret_post", user: id,
                params: form.presented.params
            )
        }
        let known = oauth.clients.first { $0.id == id }
        // Compared whatever the client, so the time says nothing of which part was wrong.
        let expected = Array((known?.secret ?? "\u{0}authmock-no-such-client").utf8)
        let matches = constantTimeEquals(Array((secret ?? "").utf8), expected)
        guard let known else {
            throw TokenError(.invalidClient, .oauthInvalidClient, "no client '\(id)'")
        }
        if known.secret == nil, secret == nil || secret == "" { return known }
        guard known.secret != nil, secret != nil, matches else {
            throw TokenError(
                .invalidClient, .oauthInvalidClient,
                secret == nil ? "client '\(id)' sent no secret" : "wrong secret for client '\(id)'"
            )
        }
        return known
    }

    /// The scope granted: what was asked, within every limit; all of the first limit when nothing was asked.
    private func grantedScope(_ requested: [String]?, limits: [String?]) throws(TokenError) -> [String]? {
        let bounds = limits.compactMap { $0.map(Self.scopeTokens) }
        guard let requested else { return bounds.first }
        for token in requested where bounds.contains(where: { !$0.contains(token) }) {
            throw TokenError(.invalidScope, .oauthInvalidScope, "scope '\(token)' is beyond what may be granted")
        }
        return requested
    }

    private mutating func issueAccess(
        subject: String, client: String, scope: [String]?, family: Int?, oauth: OAuthSettings, now: Date,
        random: inout some RandomNumberGenerator
    ) -> String {
        let token =
            tokenSigner.map {
                jwt(signer: $0, subject: subject, client: client, scope: scope, oauth: oauth, now: now, random: &random)
            } ?? "at_" + Base64.encode(random.bytes(24), urlSafe: true)
        scenarioState.tokens.insert(
            access: token,
            TokenStore.Access(
                subject: subject, client: client, scope: scope, issuedAt: now,
                expiresAt: oauth.accessToken.lifetime.map { now.addingTimeInterval($0) },
                usesLeft: oauth.accessToken.uses,
                family: family
            ))
        return token
    }

    private mutating func issueRefresh(
        subject: String, client: String, scope: [String]?, family: Int, random: inout some RandomNumberGenerator
    ) -> String {
        let token = "rt_" + Base64.encode(random.bytes(32), urlSafe: true)
        scenarioState.tokens.insert(
            refresh: token,
            TokenStore.Refresh(subject: subject, client: client, scope: scope, family: family)
        )
        return token
    }

    /// §5.1: the token as JSON, never cached.
    private func issued(
        _ verdict: Verdict, _ detail: String, access: String, refresh: String?, scope: [String]?, oauth: OAuthSettings,
        form: TokenRequest
    ) -> Decision {
        var body: [String: JSONValue] = ["access_token": .string(access), "token_type": .string("Bearer")]
        if let lifetime = oauth.accessToken.lifetime { body["expires_in"] = .number(lifetime.rounded(.up)) }
        if let refresh { body["refresh_token"] = .string(refresh) }
        if let scope { body["scope"] = .string(scope.joined(separator: " ")) }
        var response = Self.json(object: body)
        response.headers += TokenError.noStore
        return Decision(response: response, verdict: verdict, detail: detail, credentials: form.presented)
    }
}

/// A token request as read from its form (RFC 6749 §3.2).
struct TokenRequest {
    var request: Request
    var oauth: OAuthSettings
    var parameters: [(name: String, value: String)] = []
    var presented = PresentedCredentials(header: "client_id (form body)", scheme: "none", params: [:])

    init(request: Request, oauth: OAuthSettings) {
        self.request = request
        self.oauth = oauth
    }

    /// POST, a form content type, a body the endpoint reads, every byte well escaped.
    mutating func read() throws(TokenError) {
        guard request.method == "POST" else {
            throw TokenError(
                .invalidRequest, .oauthInvalidRequest,
                "\(request.method) to the token endpoint, which takes POST (RFC 6749 §3.2)",
                status: 405
            )
        }
        guard Engine.isFormContent(request.headers.first("Content-Type")) else {
            let type = request.headers.first("Content-Type") ?? "none"
            throw TokenError(
                .invalidRequest, .oauthInvalidRequest,
                "Content-Type \(type), not application/x-www-form-urlencoded (RFC 6749 §4.4.2)"
            )
        }
        guard request.body.count <= OAuthSettings.formLimit else {
            throw TokenError(
                .invalidRequest, .oauthInvalidRequest,
                "a form of \(request.body.count) bytes, more than the \(OAuthSettings.formLimit) the endpoint reads"
            )
        }
        guard let pairs = FormEncoding.decode(request.body) else {
            throw TokenError(.invalidRequest, .oauthInvalidRequest, "the form has a malformed %-escape or is not UTF-8")
        }
        parameters = pairs
        presented.params?["grant_type"] = pairs.first { $0.name == "grant_type" }?.value
    }

    /// A parameter given at most once (§3.2: "MUST NOT be included more than once"); thrown when required and absent.
    func single(_ name: String, required: Bool = false) throws(TokenError) -> String? {
        let values = parameters.filter { $0.name == name }.map(\.value)
        if values.count > 1 {
            throw TokenError(
                .invalidRequest, .oauthInvalidRequest, "\(name) is given \(values.count) times (RFC 6749 §3.2)")
        }
        if required, values.first?.isEmpty ?? true {
            throw TokenError(.invalidRequest, .oauthInvalidRequest, "the request has no \(name)")
        }
        return values.first
    }
}

/// A refusal of the token endpoint: an error of RFC 6749 §5.2 and what the journal says of it.
struct TokenError: Error {
    enum Code: String {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unsupportedGrantType = "unsupported_grant_type"
        case invalidScope = "invalid_scope"
    }

    var code: Code
    var verdict: Verdict
    var detail: String
    var status: Int

    init(_ code: Code, _ verdict: Verdict, _ detail: String, status: Int? = nil) {
        self.code = code
        self.verdict = verdict
        self.detail = detail
        self.status = status ?? (code == .invalidClient ? 401 : 400)
    }

    static let noStore = [HeaderField("Cache-Control", "no-store"), HeaderField("Pragma", "no-cache")]

    func response(realm: String) -> Response {
        var response = Engine.json(object: ["error": .string(code.rawValue), "error_description": .string(detail)])
        response.status = status
        response.headers += Self.noStore
        if status == 405 { response.headers.append(HeaderField("Allow", "POST")) }
        // A 401 names the scheme to authenticate with (§5.2, RFC 9110 §11.6.1).
        if code == .invalidClient {
            response.headers.append(
                HeaderField(
                    "WWW-Authenticate",
                    AuthHeaderValue(
                        scheme: AuthScheme.basic.token,
                        parameters: [AuthParameter(name: "realm", value: realm, quoted: true)]
                    ).rendered))
        }
        return response
    }
}
