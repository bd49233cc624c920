/// The engine's reading of one exchange, as a stable dotted name (`digest.stale-nonce`).
///
/// A struct over a string rather than an enum, so that later schemes add verdicts without breaking
/// anyone who switches over them; the names are part of the journal format and do not change.
public struct Verdict: RawRepresentable, Sendable, Hashable, Codable, CustomStringConvertible,
    ExpressibleByStringLiteral
{
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    // Outside authentication.
    public static let noCredentials: Verdict = "no-credentials"
    public static let publicResource: Verdict = "public"
    public static let notFound: Verdict = "not-found"
    public static let malformedRequest: Verdict = "http.malformed"
    public static let headersTooLarge: Verdict = "http.headers-too-large"
    public static let bodyTooLarge: Verdict = "http.body-too-large"
    /// The request head trickled in for longer than the header timeout: 408, connection closed.
    public static let headerTimeout: Verdict = "http.header-timeout"
    /// A connection beyond the server's connection limit, closed at once (no request was read).
    public static let connectionLimit: Verdict = "connection.limit"
    /// NTLM or Negotiate on an HTTP/2 stream: reset with `HTTP_1_1_REQUIRED` (RFC 9113 §7), no response.
    public static let http2HTTP11Required: Verdict = "http2.http11-required"
    /// A stream opened after the server's GOAWAY: reset with `REFUSED_STREAM` (RFC 9113 §6.8), unprocessed,
    /// so the client may retry it on a new connection. Status 0.
    public static let http2RefusedStream: Verdict = "http2.refused-stream"
    /// A stream that breaks HTTP/2's rules for a request (a missing or unknown pseudo-header, an upper-case
    /// or connection-specific field, a body longer than its content-length, a header block the HTTP/1
    /// translation rejects): reset with the stream error in `reset` (`PROTOCOL_ERROR`). Status 0.
    public static let http2Malformed: Verdict = "http2.malformed"
    /// Bytes that break HTTP/2 on the connection itself (a bad preface, an unparseable or oversized frame, a
    /// flood): `GOAWAY` with the error in `goaway`, and the connection closed (RFC 9113 §5.4.1). Status 0.
    public static let http2ConnectionError: Verdict = "http2.connection-error"
    /// The client reset a stream (or its connection closed) before the request on it was complete: nothing
    /// was answered. Status 0.
    public static let http2StreamReset: Verdict = "http2.stream-reset"

    // TLS connections (one entry per connection, written when it closes).
    /// The handshake completed and the client sent at least one request.
    public static let tlsOK: Verdict = "tls.ok"
    /// The handshake completed but the client closed without a request: what a client does when its
    /// pin or trust check fails after the handshake.
    public static let tlsNoRequest: Verdict = "tls.no-request"
    /// The handshake failed; `detail` says why (the client's alert, or the server's reason).
    public static let tlsHandshakeFailed: Verdict = "tls.handshake-failed"
    /// The handshake failed because the client spoke plain HTTP (a request, or a proxy's CONNECT) to a TLS
    /// listener: what a client does that takes an `https://` proxy for an `http://` one.
    public static let tlsPlainHTTP: Verdict = "tls.plain-http"

    // NTLM and Negotiate (MS-NLMP, RFC 4559).
    /// A NEGOTIATE arrived; the CHALLENGE was sent (401) and is bound to this connection.
    public static let ntlmNegotiate: Verdict = "ntlm.negotiate"
    public static let ntlmOK: Verdict = "ntlm.ok"
    /// A request without credentials on a connection NTLM already authenticated.
    public static let ntlmConnectionAuthenticated: Verdict = "ntlm.connection-authenticated"
    public static let ntlmMalformed: Verdict = "ntlm.malformed"
    public static let ntlmUnknownUser: Verdict = "ntlm.unknown-user"
    public static let ntlmWrongPassword: Verdict = "ntlm.wrong-password"
    public static let ntlmWrongDomain: Verdict = "ntlm.wrong-domain"
    public static let ntlmV1Refused: Verdict = "ntlm.v1-refused"
    /// The AUTHENTICATE answers a CHALLENGE sent on another connection.
    public static let ntlmConnectionChanged: Verdict = "ntlm.connection-changed"
    public static let ntlmNoChallenge: Verdict = "ntlm.no-challenge"
    public static let ntlmAnonymous: Verdict = "ntlm.anonymous"
    public static let negotiateKerberosUnsupported: Verdict = "negotiate.kerberos-unsupported"

    // The forward proxy.
    /// A target that is not this scenario's origin (or not loopback at all): 403.
    public static let proxyTargetRefused: Verdict = "proxy.target-refused"
    /// CONNECT without host:port, an origin-form target sent to the proxy, a target too long.
    public static let proxyBadTarget: Verdict = "proxy.bad-target"

    // The control plane (`/_authmock/…`), whose own requests are journaled only when refused.
    /// A control request the ``ControlGuard`` refused: 401 (no or a wrong control token), 403 (a `Host` that
    /// is not the server's) or 415 (no JSON content type); `detail` starts with the reason
    /// (`token-missing:`, `token-wrong:`, `host:`, `content-type:`).
    public static let controlRefused: Verdict = "control.refused"

    // The SOCKS5 listener (RFC 1928, RFC 1929): one entry per handshake, `hop: socks5`, status 0.
    /// A CONNECT to one of the scenario's origins, granted (REP 0); the origin plays on the connection.
    public static let socks5OK: Verdict = "socks5.ok"
    /// The client closed the connection in the middle of the handshake.
    public static let socks5Truncated: Verdict = "socks5.truncated"
    /// A handshake message did not arrive whole within the header timeout.
    public static let socks5Timeout: Verdict = "socks5.timeout"
    /// A version byte other than 5 (greeting, request) or 1 (RFC 1929): `X'FF'`, auth status 1, or REP 1.
    public static let socks5BadVersion: Verdict = "socks5.bad-version"
    /// None of the methods the client offered is one the scenario takes: `X'FF'`, closed.
    public static let socks5NoAcceptableMethod: Verdict = "socks5.no-acceptable-method"
    /// A zero-length username, or one longer than its length byte said: auth status 1, closed.
    public static let socks5BadUsername: Verdict = "socks5.bad-username"
    public static let socks5UnknownUser: Verdict = "socks5.unknown-user"
    /// A known user with the wrong password: auth status 1, closed (RFC 1929 §2).
    public static let socks5BadPassword: Verdict = "socks5.bad-password"
    /// A request that cannot be read (an empty domain name): REP 1.
    public static let socks5Malformed: Verdict = "socks5.malformed"
    /// BIND, UDP ASSOCIATE or an unknown command: REP 7.
    public static let socks5CommandNotSupported: Verdict = "socks5.command-not-supported"
    /// An ATYP other than 1, 3 or 4: REP 8.
    public static let socks5AddressTypeNotSupported: Verdict = "socks5.address-type-not-supported"
    /// A target that is not loopback or not one of the scenario's origins: REP 2 (not allowed by ruleset).
    public static let socks5TargetRefused: Verdict = "socks5.target-refused"
    /// The scenario's `socks5.fault` was played.
    public static let socks5Fault: Verdict = "socks5.fault"

    // Users changing while the scenario runs (timeline steps and POST /_authmock/users/{name}).
    /// The client presented a password the user had before a change (or a removed user's last one).
    public static let credentialStalePassword: Verdict = "credential.stale-password"
    /// Valid credentials of a locked user: 403.
    public static let credentialLocked: Verdict = "credential.locked"
    public static let userPasswordChanged: Verdict = "user.password-changed"
    public static let userLocked: Verdict = "user.locked"
    public static let userUnlocked: Verdict = "user.unlocked"
    public static let userRemoved: Verdict = "user.removed"
    /// The user's (or OAuth client's) access tokens expired by the timeline (`expire-tokens`).
    public static let userTokensExpired: Verdict = "user.tokens-expired"

    // Any scheme.
    public static let duplicateAuthorization: Verdict = "auth.duplicate-header"
    public static let malformedAuthorization: Verdict = "auth.malformed"
    public static let schemeNotOffered: Verdict = "auth.scheme-not-offered"

    // Basic (RFC 7617).
    public static let basicOK: Verdict = "basic.ok"
    public static let basicMalformed: Verdict = "basic.malformed"
    public static let basicUnknownUser: Verdict = "basic.unknown-user"
    public static let basicBadPassword: Verdict = "basic.bad-password"
    public static let basicWrongCharset: Verdict = "basic.wrong-charset"

    // Digest (RFC 7616).
    public static let digestOK: Verdict = "digest.ok"
    public static let digestMalformed: Verdict = "digest.malformed"
    public static let digestURIMismatch: Verdict = "digest.uri-mismatch"
    public static let digestWrongRealm: Verdict = "digest.wrong-realm"
    public static let digestAlgorithmNotOffered: Verdict = "digest.algorithm-not-offered"
    public static let digestQOPNotOffered: Verdict = "digest.qop-not-offered"
    public static let digestQOPMissing: Verdict = "digest.qop-missing"
    public static let digestUnknownNonce: Verdict = "digest.unknown-nonce"
    public static let digestNonceAlgorithmMismatch: Verdict = "digest.nonce-algorithm-mismatch"
    public static let digestOpaqueMismatch: Verdict = "digest.opaque-mismatch"
    public static let digestUserhashNotOffered: Verdict = "digest.userhash-not-offered"
    public static let digestUnknownUser: Verdict = "digest.unknown-user"
    public static let digestBadResponse: Verdict = "digest.bad-response"
    /// The client announced one algorithm but computed with another (e.g. SHA-256 for SHA-512-256).
    public static let digestAlgorithmSubstituted: Verdict = "digest.algorithm-substituted"
    public static let digestStaleNonce: Verdict = "digest.stale-nonce"
    /// qop=auth-int announced, but the response was computed without the body's hash in A2.
    public static let digestAuthIntWithoutBody: Verdict = "digest.auth-int-without-body"
    public static let digestNCReplay: Verdict = "digest.nc-replay"
    /// Granted, and the nonce was the `nextnonce` of an earlier `Authentication-Info` (RFC 7616 §3.5).
    public static let digestNextnonceUsed: Verdict = "digest.nextnonce-used"

    // Bearer (RFC 6750).
    public static let bearerOK: Verdict = "bearer.ok"
    /// Granted, but the token came in the URI's query (`access_token=`), which RFC 6750 §2.3 says SHOULD NOT be
    /// used: it ends up in logs, history and `Referer`.
    public static let bearerInQuery: Verdict = "bearer.in-query"
    /// Not a token (RFC 6750 §2.1): 400 `invalid_request`.
    public static let bearerMalformed: Verdict = "bearer.malformed"
    /// The token came by more than one method (header, form body, query): 400 `invalid_request` (§2).
    public static let bearerMultipleMethods: Verdict = "bearer.multiple-methods"
    /// A token the server never issued: 401 `invalid_token`.
    public static let bearerUnknownToken: Verdict = "bearer.unknown-token"
    /// A token past its lifetime or its uses, or expired by the timeline: 401 `invalid_token`.
    public static let bearerExpired: Verdict = "bearer.expired"
    /// A token of a family revoked when its refresh token was reused, or of a removed user: 401 `invalid_token`.
    public static let bearerRevoked: Verdict = "bearer.revoked"
    /// A refresh token sent to the resource server, which must only ever see access tokens: 401
    /// `invalid_token`, and journaled as a leak.
    public static let bearerRefreshToken: Verdict = "bearer.refresh-token"
    /// A valid token without the scope the resource needs: 403 `insufficient_scope` (§3.1).
    public static let bearerInsufficientScope: Verdict = "bearer.insufficient-scope"

    // The token endpoint (RFC 6749 §§3.2, 4.3, 4.4, 5, 6).
    /// A client credentials or password grant answered with a token.
    public static let oauthTokenIssued: Verdict = "oauth.token-issued"
    /// A refresh token exchanged for a new access token (and, rotating, a new refresh token).
    public static let oauthRefreshed: Verdict = "oauth.refreshed"
    /// A request the endpoint cannot read: not a POST, not a form, a parameter missing or repeated (§5.2).
    public static let oauthInvalidRequest: Verdict = "oauth.invalid-request"
    /// An unknown client, a wrong secret, or no client authentication: 401 (§5.2).
    public static let oauthInvalidClient: Verdict = "oauth.invalid-client"
    /// A wrong password, an unknown or revoked refresh token, one issued to another client (§5.2).
    public static let oauthInvalidGrant: Verdict = "oauth.invalid-grant"
    /// A refresh token that rotation had already retired: its family is revoked (Security BCP §4.14.2).
    public static let oauthRefreshReused: Verdict = "oauth.refresh-reused"
    public static let oauthUnsupportedGrantType: Verdict = "oauth.unsupported-grant-type"
    /// A scope beyond what the client, the user or the original grant may have (§5.2).
    public static let oauthInvalidScope: Verdict = "oauth.invalid-scope"

    /// Every verdict the engine gives, for checking the names case files use (a test keeps it complete).
    public static let known: [Verdict] = [
        .noCredentials, .publicResource, .notFound, .malformedRequest, .headersTooLarge, .bodyTooLarge, .headerTimeout,
        .connectionLimit, .http2HTTP11Required, .http2RefusedStream, .http2Malformed, .http2ConnectionError,
        .http2StreamReset, .tlsOK, .tlsNoRequest, .tlsHandshakeFailed, .tlsPlainHTTP, .ntlmNegotiate, .ntlmOK,
        .ntlmConnectionAuthenticated, .ntlmMalformed, .ntlmUnknownUser, .ntlmWrongPassword, .ntlmWrongDomain,
        .ntlmV1Refused, .ntlmConnectionChanged, .ntlmNoChallenge, .ntlmAnonymous, .negotiateKerberosUnsupported,
        .proxyTargetRefused, .proxyBadTarget, .controlRefused, .socks5OK, .socks5Truncated, .socks5Timeout,
        .socks5BadVersion,
        .socks5NoAcceptableMethod, .socks5BadUsername, .socks5UnknownUser, .socks5BadPassword, .socks5Malformed,
        .socks5CommandNotSupported, .socks5AddressTypeNotSupported, .socks5TargetRefused, .socks5Fault,
        .credentialStalePassword, .credentialLocked, .userPasswordChanged,
        .userLocked, .userUnlocked, .userRemoved, .duplicateAuthorization, .malformedAuthorization, .schemeNotOffered,
        .basicOK, .basicMalformed, .basicUnknownUser, .basicBadPassword, .basicWrongCharset, .digestOK,
        .digestMalformed, .digestURIMismatch, .digestWrongRealm, .digestAlgorithmNotOffered, .digestQOPNotOffered,
        .digestQOPMissing, .digestUnknownNonce, .digestNonceAlgorithmMismatch, .digestOpaqueMismatch,
        .digestUserhashNotOffered, .digestUnknownUser, .digestBadResponse, .digestAlgorithmSubstituted,
        .digestStaleNonce, .digestAuthIntWithoutBody, .digestNCReplay, .digestNextnonceUsed, .userTokensExpired,
        .bearerOK, .bearerInQuery, .bearerMalformed, .bearerMultipleMethods, .bearerUnknownToken, .bearerExpired,
        .bearerRevoked, .bearerRefreshToken, .bearerInsufficientScope, .oauthTokenIssued, .oauthRefreshed,
        .oauthInvalidRequest, .oauthInvalidClient, .oauthInvalidGrant, .oauthRefreshReused,
        .oauthUnsupportedGrantType, .oauthInvalidScope,
    ]
}
