#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Engine {
    struct Decision {
        var response: Response
        var verdict: Verdict
        var detail: String?
        var credentials: PresentedCredentials?
        /// Set when credentials were accepted (the user's successes count, even for a 403 resource).
        var authenticatedUser: String?
    }

    /// What a scheme made of the credentials it was given.
    enum AuthOutcome: Sendable {
        case granted(user: String, verdict: Verdict, detail: String? = nil, headers: [HeaderField] = [])
        case challenge(Verdict, String, stale: Bool = false)
        /// A 401 carrying only this challenge (the next leg of a multi-leg handshake such as NTLM).
        /// `hostile` says what the scenario corrupted in it on purpose.
        case continueHandshake(Verdict, String, header: String, hostile: String? = nil)
        case badRequest(Verdict, String)
        /// The credentials field is not a list of auth-params at all (Digest): a 400 saying so.
        case unparseable(String)
        /// A Bearer token refused with an RFC 6750 §3.1 error: 400, 401 or 403 with the error in the challenge.
        case bearerRefused(BearerError, Verdict, String)
    }

    /// Which resource, whether it needs credentials, and what the credentials field (one at most) proves.
    mutating func decide(_ request: Request, now: Date, random: inout some RandomNumberGenerator) -> Decision {
        if let served = serveOAuth(request, now: now, random: &random) { return served }
        guard let resource = scenario.resource(forPath: request.resourcePath) else {
            return Decision(
                response: Self.plain(status: 404, "404 Not Found\n"), verdict: .notFound,
                detail: "no resource of the scenario matches \(request.resourcePath)"
            )
        }
        guard resource.protected else {
            return Decision(response: grant(resource, user: nil), verdict: .publicResource, detail: nil)
        }

        let fields = request.headers.values(hop.credentialsHeader)
        if let refusal = http11Required(request, resource: resource, credentials: fields) { return refusal }
        if fields.isEmpty, let user = ntlmUser(on: request.connection.id), activeUser(named: user) != nil,
            !isLocked(user)
        {
            return Decision(
                response: grant(resource, user: user), verdict: .ntlmConnectionAuthenticated,
                detail: "the connection was authenticated by NTLM as \(user)", authenticatedUser: user
            )
        }
        if let decision = bearerOutsideHeader(request, resource: resource, fields: fields, now: now, random: &random) {
            return decision
        }
        guard let field = fields.first else {
            return challenge(
                .noCredentials, "the request carried no Authorization header", stale: false, for: resource, now: now,
                random: &random
            )
        }
        guard fields.count == 1 else {
            return Decision(
                response: Self.plain(status: 400, "400 Bad Request: more than one Authorization header\n"),
                verdict: .duplicateAuthorization, detail: "\(fields.count) Authorization headers; RFC 9110 allows one"
            )
        }
        let (scheme, token) = Self.schemeAndToken(field)
        guard !scheme.isEmpty else {
            return Decision(
                response: Self.plain(status: 400, "400 Bad Request: the Authorization header has no auth-scheme\n"),
                verdict: .malformedAuthorization, detail: "the Authorization header has no auth-scheme",
                credentials: nil
            )
        }
        var presented = PresentedCredentials(header: hop.credentialsHeader, scheme: scheme)
        guard resource.offers(scheme) else {
            let detail = "the client used '\(scheme)', which \(resource.path) does not accept "
                + "(it offers \(resource.schemes!.joined(separator: ", ")))"
            return decision(
                for: .challenge(.schemeNotOffered, detail), resource: resource, presented: presented, now: now,
                random: &random
            )
        }
        let outcome = verify(
            field, scheme: scheme, token: token, request: request, now: now, random: &random, presented: &presented
        )
        return decision(for: outcome, resource: resource, presented: presented, now: now, random: &random)
    }

    /// Hands the credentials to their scheme, when the scenario offers it.
    private mutating func verify(
        _ field: String, scheme: String, token: Substring, request: Request, now: Date,
        random: inout some RandomNumberGenerator, presented: inout PresentedCredentials
    ) -> AuthOutcome {
        // A scheme the scenario does not offer is challenged again.
        guard let known = AuthScheme(token: scheme), let options = schemeOptions[known] else {
            return .challenge(.schemeNotOffered, "the client used '\(scheme)', which this scenario does not accept")
        }
        let attempt = Attempt(field: field, scheme: known, token: token, request: request, now: now)
        return options.verify(attempt, engine: &self, random: &random, presented: &presented)
    }

    /// The answer to a scheme's outcome: the resource, a challenge, the next leg of a handshake, or a 400.
    private mutating func decision(
        for outcome: AuthOutcome, resource: Resource, presented: PresentedCredentials, now: Date,
        random: inout some RandomNumberGenerator
    ) -> Decision {
        switch outcome {
        case .granted(let user, let verdict, let detail, let headers):
            guard !isLocked(user) else {
                return Decision(
                    response: Self.plain(status: 403, "403 Forbidden: \(user) is locked\n"), verdict: .credentialLocked,
                    detail: "valid credentials, but \(user) is locked", credentials: presented
                )
            }
            var response = grant(resource, user: user)
            response.headers += headers
            return Decision(
                response: response, verdict: verdict, detail: detail ?? "authenticated as \(user)",
                credentials: presented, authenticatedUser: user
            )
        case .continueHandshake(let verdict, let detail, let header, let hostile):
            var response = Response(
                status: hop.challengeStatus,
                headers: [
                    HeaderField("Content-Type", scenario.unauthorized.contentType),
                    HeaderField(hop.challengeHeader, header),
                ],
                body: Array(scenario.unauthorized.body.utf8)
            )
            response.hostile = hostile
            return Decision(response: response, verdict: verdict, detail: detail, credentials: presented)
        case .challenge(let verdict, let detail, let stale):
            var decision = challenge(verdict, detail, stale: stale, for: resource, now: now, random: &random)
            decision.credentials = presented
            return decision
        case .badRequest(let verdict, let detail):
            return Decision(
                response: Self.plain(status: 400, "400 Bad Request: \(detail)\n"), verdict: verdict, detail: detail,
                credentials: presented
            )
        case .unparseable(let reason):
            return Decision(
                response: Self.plain(status: 400, "400 Bad Request: malformed Authorization header: \(reason)\n"),
                verdict: .malformedAuthorization, detail: reason, credentials: presented
            )
        case .bearerRefused(let error, let verdict, let detail):
            guard case .invalidToken = error else {
                // 400 and 403 carry the Bearer challenge alone, with the error (RFC 6750 §3.1).
                let bearer = schemeOptions[.bearer] as? BearerChallenge ?? BearerChallenge()
                let status = error.status
                var response = Self.plain(status: status, "\(status) \(Self.reason(status)): \(detail)\n")
                response.headers.append(HeaderField(challengeHeader, renderBearerChallenge(bearer, error: error)))
                return Decision(response: response, verdict: verdict, detail: detail, credentials: presented)
            }
            var decision = challenge(
                verdict, detail, stale: false, for: resource, now: now, random: &random, bearerError: error
            )
            decision.credentials = presented
            return decision
        }
    }

    /// A Bearer token in the query or a form body (RFC 6750 §2.2, §2.3) when the credentials header has none;
    /// a 400 when the token came by more than one method (§2). nil when neither applies.
    private mutating func bearerOutsideHeader(
        _ request: Request, resource: Resource, fields: [String], now: Date, random: inout some RandomNumberGenerator
    ) -> Decision? {
        guard schemeOptions[.bearer] != nil, resource.offers(AuthScheme.bearer.token) else { return nil }
        let outside = Self.bearerTokensOutsideHeader(request)
        guard !outside.isEmpty else { return nil }
        let inHeader = fields.contains { AuthScheme(token: Self.schemeAndToken($0).scheme) == .bearer }
        guard fields.isEmpty || inHeader else { return nil }
        var presented = PresentedCredentials(header: outside[0].location.field(hop), scheme: AuthScheme.bearer.token)
        if outside.count + (inHeader ? 1 : 0) > 1 {
            let ways = (inHeader ? ["header"] : []) + outside.map(\.location.rawValue)
            let outcome = AuthOutcome.bearerRefused(
                .invalidRequest("The access token was sent by more than one method"), .bearerMultipleMethods,
                "the token came in \(ways.joined(separator: " and ")); RFC 6750 §2 allows one method per request"
            )
            return decision(for: outcome, resource: resource, presented: presented, now: now, random: &random)
        }
        let outcome = verifyBearer(
            Substring(outside[0].token), from: outside[0].location, request: request, now: now, presented: &presented
        )
        return decision(for: outcome, resource: resource, presented: presented, now: now, random: &random)
    }

    /// NTLM and Negotiate authenticate a connection, which HTTP/2 multiplexes: on an HTTP/2 stream, unless the
    /// scenario allows them, a request that presents one, or that could only be answered with one (the
    /// resource offers no other scheme), gets `RST_STREAM` `HTTP_1_1_REQUIRED` instead of a response.
    private func http11Required(_ request: Request, resource: Resource, credentials fields: [String]) -> Decision? {
        guard request.connection.httpProtocol == .h2, scenario.http2.connectionAuth == .reset else { return nil }
        let reason: String
        if let field = fields.first {
            let scheme = Self.schemeAndToken(field).scheme
            guard AuthScheme(token: scheme)?.isConnectionBound == true else { return nil }
            reason = "the client sent \(scheme) credentials on HTTP/2 stream \(request.connection.stream ?? 0)"
        } else {
            let offered = scenario.challenges.filter(resource.offers).map(\.scheme)
            guard !offered.isEmpty, offered.allSatisfy({ AuthScheme(token: $0)?.isConnectionBound == true }) else {
                return nil
            }
            reason = "the resource needs \(offered.joined(separator: " or ")), which HTTP/2 cannot carry "
                + "(stream \(request.connection.stream ?? 0))"
        }
        var response = Response(status: 0)
        response.streamReset = .http11Required
        return Decision(
            response: response, verdict: .http2HTTP11Required, detail: reason + ": reset with HTTP_1_1_REQUIRED"
        )
    }

    func grant(_ resource: Resource, user: String?) -> Response {
        var headers = [HeaderField("Content-Type", resource.contentType)]
        headers +=
            links.isEmpty ? resource.headers : resource.headers.map { HeaderField($0.name, Self.fill($0.value, links)) }
        headers += resource.setCookies.map { HeaderField("Set-Cookie", $0.fieldValue) }
        return Response(status: resource.status, headers: headers, body: Self.render(resource.body, user: user ?? ""))
    }
}

/// What ends a scheme's verification before its last step (a refusal, or the next leg of a handshake):
/// the outcome the whole verification answers with.
struct AuthRefusal: Error {
    var outcome: Engine.AuthOutcome

    static func badRequest(_ verdict: Verdict, _ detail: String) -> AuthRefusal {
        AuthRefusal(outcome: .badRequest(verdict, detail))
    }

    static func challenge(_ verdict: Verdict, _ detail: String, stale: Bool = false) -> AuthRefusal {
        AuthRefusal(outcome: .challenge(verdict, detail, stale: stale))
    }
}
