#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where a Bearer token came in a request (RFC 6750 §2).
enum BearerLocation: String, Sendable {
    /// `Authorization: Bearer …` (§2.1).
    case header
    /// `access_token=` in a form-encoded body (§2.2).
    case body
    /// `access_token=` in the URI's query (§2.3, which says SHOULD NOT).
    case query

    /// How the journal names the field that carried it.
    func field(_ hop: Hop) -> String {
        switch self {
        case .header: hop.credentialsHeader
        case .body: "access_token (form body)"
        case .query: "access_token (query)"
        }
    }
}

/// A Bearer refusal as RFC 6750 §3.1 names it, with what the `error_description` says.
enum BearerError: Sendable, Equatable {
    /// 400: the request is malformed (a token that is no token, more than one method).
    case invalidRequest(String)
    /// 401: expired, revoked, unknown, or not an access token.
    case invalidToken(String)
    /// 403: the token lacks `scope`, which the resource needs.
    case insufficientScope(String, scope: String)

    var code: String {
        switch self {
        case .invalidRequest: "invalid_request"
        case .invalidToken: "invalid_token"
        case .insufficientScope: "insufficient_scope"
        }
    }

    var status: Int {
        switch self {
        case .invalidRequest: 400
        case .invalidToken: 401
        case .insufficientScope: 403
        }
    }

    var description: String {
        switch self {
        case .invalidRequest(let text), .invalidToken(let text), .insufficientScope(let text, _): text
        }
    }
}

extension Engine {
    /// The scenario's users' static tokens, by ``TokenStore/key(_:)``.
    static func staticTokens(of scenario: Scenario) -> [TokenStore.Key: String] {
        var tokens: [TokenStore.Key: String] = [:]
        for user in scenario.users {
            if let token = user.token { tokens[TokenStore.key(token)] = user.name }
        }
        return tokens
    }

    /// Verifies a Bearer token (RFC 6750): a user's static token or one the token endpoint issued, alive, an
    /// access token, with the scope the resource needs.
    mutating func verifyBearer(
        _ token: Substring, from location: BearerLocation, request: Request, now: Date,
        presented: inout PresentedCredentials
    ) -> AuthOutcome {
        var params = ["token-in": location.rawValue]
        defer { presented.params = params }
        guard BearerToken.isValid(token) else {
            let detail =
                token.isEmpty
                ? "no token after 'Bearer'" : "the Bearer token is not a b64token (RFC 6750 §2.1)"
            return .bearerRefused(.invalidRequest("The access token is malformed"), .bearerMalformed, detail)
        }
        let key = TokenStore.key(token)
        let subject: String
        let scope: [String]?
        do throws(AuthRefusal) {
            (subject, scope) = try holder(of: key, now: now, presented: &presented, params: &params)
        } catch {
            return error.outcome
        }
        if let needed = scenario.resource(forPath: request.resourcePath)?.scope {
            let missing = Self.scopeTokens(needed).filter { !(scope?.contains($0) ?? true) }
            if !missing.isEmpty {
                return .bearerRefused(
                    .insufficientScope("The access token lacks the scope \(needed)", scope: needed),
                    .bearerInsufficientScope,
                    "the token's scope '\(scope?.joined(separator: " ") ?? "")' lacks \(missing.joined(separator: " "))"
                )
            }
        }
        if let record = scenarioState.tokens.access[key], record.usesLeft != nil {
            scenarioState.tokens.updateAccess(key) { $0.usesLeft! -= 1 }
        }
        let detail =
            "authenticated as \(subject) by a Bearer token"
            + (location == .query ? " in the URI's query (RFC 6750 §2.3: SHOULD NOT)" : "")
            + (location == .body ? " in the form body (RFC 6750 §2.2)" : "")
        return .granted(user: subject, verdict: location == .query ? .bearerInQuery : .bearerOK, detail: detail)
    }

    /// Whom a token speaks for, and its scope: a user's static token, or an access token the endpoint issued
    /// that still works. Anything else is refused with the reason.
    private func holder(
        of key: TokenStore.Key, now: Date, presented: inout PresentedCredentials, params: inout [String: String]
    ) throws(AuthRefusal) -> (subject: String, scope: [String]?) {
        if let owner = staticTokens[key] {
            presented.user = owner
            params["token"] = "static"
            guard let user = activeUser(named: owner) else {
                throw AuthRefusal(outcome: .bearerRefused(
                    .invalidToken("The access token was revoked"), .bearerRevoked,
                    "\(owner)'s static token: \(owner) was removed"
                ))
            }
            if scenarioState.tokens.expiredStatic.contains(owner) {
                throw AuthRefusal(outcome: .bearerRefused(
                    .invalidToken("The access token expired"), .bearerExpired,
                    "\(owner)'s static token, expired by the timeline"
                ))
            }
            return (owner, user.scope.map(Self.scopeTokens))
        }
        if let record = scenarioState.tokens.access[key] {
            presented.user = record.subject
            params["token"] = "issued"
            if let refusal = refusal(of: record, now: now) { throw AuthRefusal(outcome: refusal) }
            return (record.subject, record.scope)
        }
        if let refresh = scenarioState.tokens.refresh[key] {
            presented.user = refresh.subject
            params["token"] = "refresh"
            throw AuthRefusal(outcome: .bearerRefused(
                .invalidToken("A refresh token is not an access token"), .bearerRefreshToken,
                "\(refresh.client)'s refresh token for \(refresh.subject) was sent to the resource server"
            ))
        }
        throw AuthRefusal(outcome: .bearerRefused(
            .invalidToken("The access token is not one this server issued"), .bearerUnknownToken,
            "a token this server never issued"
        ))
    }

    /// Why an issued access token no longer works; nil when it does.
    private func refusal(of record: TokenStore.Access, now: Date) -> AuthOutcome? {
        if scenarioState.tokens.isRevoked(record.family) {
            return .bearerRefused(
                .invalidToken("The access token was revoked"), .bearerRevoked,
                "the token's grant was revoked when one of its refresh tokens was used twice"
            )
        }
        if activeUser(named: record.subject) == nil, record.client != record.subject {
            return .bearerRefused(
                .invalidToken("The access token was revoked"), .bearerRevoked, "\(record.subject) was removed"
            )
        }
        if record.expired {
            return .bearerRefused(
                .invalidToken("The access token expired"), .bearerExpired, "the token was expired by the timeline"
            )
        }
        if let expiresAt = record.expiresAt, now >= expiresAt {
            return .bearerRefused(
                .invalidToken("The access token expired"), .bearerExpired,
                "the token expired \(Self.seconds(now.timeIntervalSince(expiresAt))) ago"
            )
        }
        if record.usesLeft == 0 {
            return .bearerRefused(
                .invalidToken("The access token expired"), .bearerExpired, "the token has served all its requests"
            )
        }
        return nil
    }

    static func scopeTokens(_ scope: String) -> [String] {
        scope.split(separator: " ").map(String.init)
    }

    /// The Bearer tokens a request carries outside its credentials header: `access_token` in a form body
    /// (RFC 6750 §2.2: a form content type, a method with a body defined, not GET) and in the query (§2.3).
    static func bearerTokensOutsideHeader(_ request: Request) -> [(location: BearerLocation, token: String)] {
        var found: [(location: BearerLocation, token: String)] = []
        if let query = request.target.utf8.firstIndex(of: UInt8(ascii: "?")),
            let pairs = FormEncoding.decode(request.target.utf8[request.target.utf8.index(after: query)...])
        {
            found += pairs.filter { $0.name == "access_token" }.map { (.query, $0.value) }
        }
        if request.method != "GET", request.method != "HEAD", !request.body.isEmpty,
            isFormContent(request.headers.first("Content-Type")), let pairs = FormEncoding.decode(request.body)
        {
            found += pairs.filter { $0.name == "access_token" }.map { (.body, $0.value) }
        }
        return found
    }

    /// Whether a `Content-Type` is `application/x-www-form-urlencoded`, parameters allowed.
    static func isFormContent(_ value: String?) -> Bool {
        guard let value else { return false }
        let type = value.prefix { $0 != ";" }.trimmingOWS()
        return String(type).equalsIgnoringASCIICase("application/x-www-form-urlencoded")
    }

    /// A Bearer challenge (RFC 6750 §3): realm, scope, the metadata's URL (RFC 9728 §5.1), and the error.
    func renderBearerChallenge(_ bearer: BearerChallenge, error: BearerError?) -> String {
        var parameters = [AuthParameter(name: "realm", value: scenario.realm, quoted: true)]
        if case .insufficientScope(_, let scope) = error {
            parameters.append(AuthParameter(name: "scope", value: scope, quoted: true))
        } else if let scope = bearer.scope {
            parameters.append(AuthParameter(name: "scope", value: scope, quoted: true))
        }
        if bearer.resourceMetadata {
            parameters.append(
                AuthParameter(name: "resource_metadata", value: resourceMetadataURL, quoted: true)
            )
        }
        if let error {
            parameters.append(AuthParameter(name: "error", value: error.code, quoted: true))
            parameters.append(AuthParameter(name: "error_description", value: error.description, quoted: true))
        }
        return AuthHeaderValue(scheme: AuthScheme.bearer.token, parameters: parameters).rendered
    }

    /// Where the protected resource metadata is served (RFC 9728 §3.1).
    var resourceMetadataURL: String { baseURL + Self.resourceMetadataPath }

    /// The origin's URL without its trailing `/` (`http://127.0.0.1:8080`): the issuer and the resource, to
    /// which metadata paths are appended.
    var baseURL: String {
        let url = links["url"] ?? ""
        return url.hasSuffix("/") ? String(url.dropLast()) : url
    }
    static let resourceMetadataPath = "/.well-known/oauth-protected-resource"
}

extension BearerChallenge: SchemeOptions {
    static let keys = ["scheme", "scope", "resource-metadata"]

    static func read(_ fields: Fields, scheme: AuthScheme, reader: ScenarioReader) -> Challenge {
        reader.rejectKeys(fields, notIn: keys, scheme: scheme.token)
        return .bearer(
            BearerChallenge(
                scope: fields["scope"].flatMap { reader.scope($0, "scope") },
                resourceMetadata: fields["resource-metadata"].flatMap { reader.bool($0, "resource-metadata") } ?? false
            ))
    }

    func summary(_ scheme: AuthScheme) -> String {
        scheme.token + (scope.map { " scope=\($0)" } ?? "")
    }

    /// Fixed unless it names the metadata's URL, which is known once the server is bound.
    func fixedChallenge(_ scheme: AuthScheme, realm: String) -> String? {
        guard !resourceMetadata else { return nil }
        var parameters = [AuthParameter(name: "realm", value: realm, quoted: true)]
        if let scope { parameters.append(AuthParameter(name: "scope", value: scope, quoted: true)) }
        return AuthHeaderValue(scheme: scheme.token, parameters: parameters).rendered
    }

    func verify(
        _ attempt: Engine.Attempt, engine: inout Engine, random: inout some RandomNumberGenerator,
        presented: inout PresentedCredentials
    ) -> Engine.AuthOutcome {
        engine.verifyBearer(
            attempt.token.trimmingOWS(), from: .header, request: attempt.request, now: attempt.now,
            presented: &presented
        )
    }
}
