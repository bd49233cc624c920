/// A scripted authentication scenario: who may log in, which challenges are offered, and what each path answers.
///
/// Scenarios are written by hand in YAML (see ``ScenarioLoader``) or built in Swift. A scenario is a plain
/// value: the engine keeps everything that changes while serving (users, nonces, the journal) in its own state;
/// ``EngineState`` is the read-only view of it.
public struct Scenario: Sendable, Equatable {
    /// The schema version of the file format; only 1 exists.
    public static let schemaVersion = 1

    public var name: String
    public var description: String
    /// The protection space's realm, sent in every challenge.
    public var realm: String
    public var users: [User]
    /// The challenges offered on a 401, in this order.
    public var challenges: [Challenge]
    /// Several challenges as separate `WWW-Authenticate` fields, or all in one field.
    public var challengeStyle: ChallengeStyle
    public var nonce: NoncePolicy
    public var unauthorized: UnauthorizedResponse
    public var resources: [Resource]
    /// HTTPS settings; nil serves plain HTTP.
    public var tls: TLSSettings?
    /// Scripted changes to users (password changes, locks, removals), in order.
    public var timeline: [TimelineStep]
    /// A forward proxy in front of this scenario's origin, with its own realm, users and challenges.
    public var proxy: ProxySettings?
    /// Listen on a second port as well (same protocol, same engine); its URL is `{second_url}`.
    public var secondPort = false
    /// Ways the origin misbehaves (close after the challenge, stall, …), first match wins.
    public var faults: [Fault] = []
    /// HTTP/2 on the origin's listeners (off by default).
    public var http2 = HTTP2Policy()
    /// A SOCKS5 listener in front of the origins (`socks5:`); nil for none.
    public var socks5: SOCKS5Settings?
    /// Serve under loopback names (`subdomains: true`): the URL is `authmock.localhost`, and
    /// `{subdomain_url}` and `{sibling_url}` name the same listener as another host (``HostNames``).
    public var subdomains = false
    /// A token endpoint on the origin (`oauth:`) issuing the tokens a Bearer challenge accepts; nil for none.
    public var oauth: OAuthSettings?

    /// The names a `subdomains: true` scenario is reached by. Every `*.localhost` name is loopback
    /// (RFC 6761 §6.3): curl resolves them itself, glibc with the `myhostname` NSS module.
    public enum HostNames {
        /// The first host: the URL clients are given.
        public static let first = "authmock.localhost"
        /// A subdomain of the first host (`{subdomain_url}`), which a cookie for `Domain=authmock.localhost`
        /// reaches.
        public static let subdomain = "sub.authmock.localhost"
        /// Another host under the first host's parent (`{sibling_url}`): a name the first one's cookies never reach.
        public static let sibling = "sibling.localhost"
        public static let all = [first, subdomain, sibling]
    }

    /// Every cookie the scenario's resources set, each name and value once: what the journal looks for.
    public var setCookies: [SetCookie] {
        resources.flatMap(\.setCookies).reduce(into: []) { all, cookie in
            if !all.contains(where: { $0.name == cookie.name && $0.value == cookie.value }) { all.append(cookie) }
        }
    }

    public init(
        name: String,
        description: String = "",
        realm: String = "authmock",
        users: [User],
        challenges: [Challenge],
        challengeStyle: ChallengeStyle = .separateFields,
        nonce: NoncePolicy = NoncePolicy(),
        unauthorized: UnauthorizedResponse = UnauthorizedResponse(),
        resources: [Resource] = [Resource(path: "/")],
        tls: TLSSettings? = nil,
        timeline: [TimelineStep] = [],
        proxy: ProxySettings? = nil,
        secondPort: Bool = false,
        faults: [Fault] = [],
        http2: HTTP2Policy = HTTP2Policy()
    ) {
        self.http2 = http2
        self.secondPort = secondPort
        self.faults = faults
        self.name = name
        self.description = description
        self.realm = realm
        self.users = users
        self.challenges = challenges
        self.challengeStyle = challengeStyle
        self.nonce = nonce
        self.unauthorized = unauthorized
        self.resources = resources
        self.tls = tls
        self.timeline = timeline
        self.proxy = proxy
    }

    /// The scenario the proxy plays: its realm, users and challenges, guarding every target.
    public var proxyScenario: Scenario? {
        guard let proxy else { return nil }
        return Scenario(
            name: name + "-proxy", description: "the forward proxy of \(name)", realm: proxy.realm, users: proxy.users,
            challenges: proxy.challenges, nonce: nonce,
            unauthorized: proxy.unauthorized,
            resources: [Resource(path: "*", protected: !proxy.challenges.isEmpty, body: "")],
            faults: proxy.faults
        )
    }

    /// The resource that serves a path (the request target without its query), first match wins.
    /// The longest credentials field a correct client sends in answer (Digest echoes the realm and the
    /// nonce), with room for the rest: the shell's header limits rise to it, so that a hostile size of the
    /// scenario's own is answered by the engine, not refused as too large.
    public var answerFieldSize: Int {
        max(realm.utf8.count, proxy?.realm.utf8.count ?? 0) + nonce.size + 4096
    }

    public func resource(forPath path: String) -> Resource? {
        resources.first { $0.matches(path: path) }
    }
}

/// A scenario's `proxy:` section.
public struct ProxySettings: Sendable, Equatable {
    public var realm: String
    public var users: [User]
    /// Offered on a 407, in this order; empty makes an open proxy.
    public var challenges: [Challenge]
    /// What the 407 looks like (body, chunked, close, or a broken 401).
    public var unauthorized = UnauthorizedResponse(body: "407 Proxy Authentication Required\n")
    /// Ways the proxy misbehaves on its 407s (`on: challenge` only: a granted CONNECT becomes a tunnel).
    public var faults: [Fault] = []
    /// TLS on the proxy's own listener (an HTTPS proxy); nil speaks plain HTTP to clients.
    public var tls: ProxyTLSSettings?

    public init(realm: String = "authmock proxy", users: [User], challenges: [Challenge]) {
        self.realm = realm
        self.users = users
        self.challenges = challenges
    }
}

public struct User: Sendable, Equatable, Codable {
    public var name: String
    /// The password in clear; empty when the user came from a user file and only ``stored`` is known.
    public var password: String
    /// The NTLM domain (or any scheme's notion of one); nil when the scenario gives none.
    public var domain: String?
    /// The hash from an htpasswd or htdigest file, when the scenario does not know the password itself.
    public var stored: StoredPassword?
    /// Where the user came from when from a file: `users.htpasswd:3`.
    public var source: String?
    /// A static Bearer token that authenticates the user (RFC 6750); nil for none.
    public var token: String?
    /// The scopes of the user's static token and the most a password grant gives them, space-separated; nil: any.
    public var scope: String?

    public init(name: String, password: String, domain: String? = nil) {
        self.name = name
        self.password = password
        self.domain = domain
    }

    public init(name: String, stored: StoredPassword, source: String? = nil) {
        self.name = name
        self.password = ""
        self.stored = stored
        self.source = source
    }

    /// Whether the clear password is known (needed for Digest without an htdigest entry, and for NTLM).
    public var knowsPassword: Bool { stored == nil }

    enum CodingKeys: String, CodingKey {
        case name, password, domain, hash, source, token, scope
    }

    /// Users from files show `hash` (the scheme, e.g. `bcrypt`) and `source` instead of `password`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if stored == nil { try container.encode(password, forKey: .password) }
        try container.encodeIfPresent(domain, forKey: .domain)
        try container.encodeIfPresent(stored?.scheme, forKey: .hash)
        try container.encodeIfPresent(source, forKey: .source)
        try container.encodeIfPresent(token, forKey: .token)
        try container.encodeIfPresent(scope, forKey: .scope)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        password = try container.decodeIfPresent(String.self, forKey: .password) ?? ""
        domain = try container.decodeIfPresent(String.self, forKey: .domain)
        source = try container.decodeIfPresent(String.self, forKey: .source)
        token = try container.decodeIfPresent(String.self, forKey: .token)
        scope = try container.decodeIfPresent(String.self, forKey: .scope)
    }
}

/// How long a Digest nonce stays fresh and how `nc` is checked.
public struct NoncePolicy: Sendable, Equatable {
    /// Seconds after issue at which the right credentials get `stale=true`; nil never expires by time.
    public var lifetime: Double?
    /// Successful uses after which the nonce is stale; nil allows any number.
    public var maxUses: Int?
    /// Whether an `nc` seen before with a nonce is refused as a replay (``NCWindow``).
    public var strictNC: Bool
    /// How many nonces are remembered; the oldest are evicted (and count as stale) beyond this.
    public var remember: Int
    /// The first N nonces issued are answered with `stale=true` on their first correct use: a
    /// deterministic way to see whether a client retries with the new nonce (RFC 7616 §3.3).
    public var staleFirst: Int
    /// Characters in each nonce: the signed 39 and, beyond them, a padding for a hostile size (a client
    /// that cuts a long nonce sends one the server never issued).
    public var size: Int

    /// The length of a nonce without padding.
    public static let minimumSize = 39

    public init(
        lifetime: Double? = nil, maxUses: Int? = nil, strictNC: Bool = true, remember: Int = 10_000,
        staleFirst: Int = 0, size: Int = NoncePolicy.minimumSize
    ) {
        self.staleFirst = staleFirst
        self.size = size
        self.lifetime = lifetime
        self.maxUses = maxUses
        self.strictNC = strictNC
        self.remember = remember
    }
}

/// What a 401 looks like.
public struct UnauthorizedResponse: Sendable, Equatable {
    /// false sends a 401 with no `WWW-Authenticate` at all (a broken server clients must survive).
    public var sendChallenge: Bool
    public var body: String
    public var contentType: String
    /// Send the body chunked (`Transfer-Encoding: chunked`).
    public var chunked = false
    /// Close the connection after the challenge: the client must reconnect to answer it.
    public var close = false
    /// Overrides the challenge status: a broken proxy that answers 401 with `WWW-Authenticate`.
    public var status: Int?
    /// What follows the challenge sent instead of `100 Continue` (the origin's `before-body:`).
    public var beforeBody = BeforeBody.close

    /// A request with `Expect: 100-continue` that will be challenged whatever its body is answered before
    /// the body (RFC 9110 §10.1.1); then the server closes the connection or reads the body on. Or not early.
    public enum BeforeBody: String, Sendable, Equatable, CaseIterable {
        /// The 401 says `Connection: close`, and the connection ends after it.
        case close
        /// The connection stays open: a body that still comes is read and dropped, and the next request is
        /// read after it. An NTLM NEGOTIATE with a body is answered (with its CHALLENGE) before its body too.
        case keepOpen = "keep-open"
        /// No early challenge: `100 Continue`, and the challenge once the body is read (as most servers do), so
        /// a client that streams its body has sent it all to the request it must repeat.
        case sendContinue = "continue"
    }

    public init(
        sendChallenge: Bool = true, body: String = "401 Unauthorized\n",
        contentType: String = "text/plain; charset=utf-8"
    ) {
        self.sendChallenge = sendChallenge
        self.body = body
        self.contentType = contentType
    }
}

/// A path the scenario serves.
public struct Resource: Sendable, Equatable {
    /// An exact path, or a prefix when it ends in `*` (`/api/*`).
    public var path: String
    /// Whether credentials are required.
    public var protected: Bool
    /// The status once access is granted: 200 usually, 403 for "valid credentials, still forbidden".
    public var status: Int
    /// The body; `{user}` is replaced by the authenticated user's name.
    public var body: String
    public var contentType: String
    public var headers: [HeaderField]
    /// The schemes of the scenario's challenges this resource offers and accepts (`[Digest]`); nil: all.
    public var schemes: [String]?
    /// Cookies its granted answers set, one `Set-Cookie` field each (`set-cookies:`).
    public var setCookies: [SetCookie] = []
    /// The scopes a Bearer token needs here, space-separated (`scope:`); a token without them gets 403
    /// `insufficient_scope` (RFC 6750 §3.1). nil: any token.
    public var scope: String?

    /// Whether this resource offers (and accepts) the scheme.
    public func offers(_ scheme: String) -> Bool {
        schemes?.contains { $0.equalsIgnoringASCIICase(scheme) } ?? true
    }

    /// Whether this resource's 401 carries the challenge: every one without `schemes:`, else the accepted
    /// ones it names (custom and raw challenges are never named).
    public func offers(_ challenge: Challenge) -> Bool {
        schemes == nil || challenge.isAccepted && offers(challenge.scheme)
    }

    public init(
        path: String,
        protected: Bool = true,
        status: Int = 200,
        body: String? = nil,
        contentType: String = "text/plain; charset=utf-8",
        headers: [HeaderField] = []
    ) {
        self.path = path
        self.protected = protected
        self.status = status
        self.body = body ?? (protected ? "Hello, {user}!\n" : "OK\n")
        self.contentType = contentType
        self.headers = headers
    }

    public func matches(path requestPath: String) -> Bool {
        if path.hasSuffix("*") { return requestPath.hasPrefix(path.dropLast()) }
        return requestPath == path
    }
}
