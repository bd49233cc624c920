/// A scenario's `oauth:` section: a token endpoint on the origin (RFC 6749) that issues the access tokens a
/// `Bearer` challenge accepts, and refresh tokens that rotate and betray their reuse.
///
/// ```yaml
/// oauth:
///   token-path: /oauth/token        # the default
///   clients: [{id: app, secret: app-secret}]
///   grants: [client_credentials, password, refresh_token]
///   scope: read                     # granted when a request names none
///   access-token: {lifetime: 60s, uses: 3}
///   refresh-token: {rotate: true, reuse-detection: true}
/// ```
public struct OAuthSettings: Sendable, Equatable {
    /// Where the token endpoint listens, on the origin.
    public var tokenPath: String
    public var clients: [OAuthClient]
    /// The grant types the endpoint takes; any other is `unsupported_grant_type`.
    public var grants: [OAuthGrant]
    /// The scope granted when a token request names none; nil grants the client's whole scope.
    public var scope: String?
    public var accessToken: AccessTokenPolicy
    public var refreshToken: RefreshTokenPolicy

    public static let defaultTokenPath = "/oauth/token"
    /// The most bytes of form the endpoint reads; a larger body is `invalid_request`.
    public static let formLimit = 64 * 1024

    public init(
        tokenPath: String = OAuthSettings.defaultTokenPath, clients: [OAuthClient],
        grants: [OAuthGrant] = [.clientCredentials, .refreshToken], scope: String? = nil,
        accessToken: AccessTokenPolicy = AccessTokenPolicy(), refreshToken: RefreshTokenPolicy = RefreshTokenPolicy()
    ) {
        self.tokenPath = tokenPath
        self.clients = clients
        self.grants = grants
        self.scope = scope
        self.accessToken = accessToken
        self.refreshToken = refreshToken
    }
}

/// A client of the token endpoint (RFC 6749 §2): its id, and its secret unless it is public.
public struct OAuthClient: Sendable, Equatable {
    public var id: String
    /// nil for a public client, which names itself with `client_id` alone.
    public var secret: String?
    /// The scopes it may be granted, space-separated; nil: any.
    public var scope: String?

    public init(id: String, secret: String?, scope: String? = nil) {
        self.id = id
        self.secret = secret
        self.scope = scope
    }
}

/// The grant types authmock's token endpoint can take.
public enum OAuthGrant: String, Sendable, Equatable, CaseIterable {
    /// RFC 6749 §4.4: the client's own token; no refresh token (§4.4.3).
    case clientCredentials = "client_credentials"
    /// RFC 6749 §4.3: a user's name and password, for a token and a refresh token.
    case password
    /// RFC 6749 §6: a refresh token for a new access token (and, rotating, a new refresh token).
    case refreshToken = "refresh_token"
}

/// How long the access tokens the endpoint issues last.
public struct AccessTokenPolicy: Sendable, Equatable {
    /// Seconds from issue; nil never expires by time (`expires_in` is then not sent).
    public var lifetime: Double?
    /// Requests a token serves before it expires; nil: any number.
    public var uses: Int?
    public var format: AccessTokenFormat

    public init(lifetime: Double? = 3600, uses: Int? = nil, format: AccessTokenFormat = .opaque) {
        self.lifetime = lifetime
        self.uses = uses
        self.format = format
    }
}

/// What an issued access token looks like to the client.
public enum AccessTokenFormat: String, Sendable, Equatable, CaseIterable {
    /// `at_` and 32 random base64url characters: it says nothing.
    case opaque
    /// A JWT (RFC 9068's access token profile, `typ: at+jwt`) signed with EdDSA (Ed25519, RFC 8037): `iss`,
    /// `sub`, `aud`, `client_id`, `scope`, `iat`, `exp`, `jti`; the key at `/.well-known/jwks.json`.
    case jwt
}

/// What happens to a refresh token once used.
public struct RefreshTokenPolicy: Sendable, Equatable {
    /// Each refresh returns a new refresh token and retires the one presented (OAuth 2.0 Security BCP
    /// §4.14.2); false keeps the same refresh token valid.
    public var rotate: Bool
    /// A retired refresh token presented again revokes its whole family: every token issued from the same
    /// grant, access tokens included (BCP §4.14.2). false only refuses it.
    public var reuseDetection: Bool

    public init(rotate: Bool = true, reuseDetection: Bool = true) {
        self.rotate = rotate
        self.reuseDetection = reuseDetection
    }
}
