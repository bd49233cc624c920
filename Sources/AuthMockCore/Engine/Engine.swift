#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Decides what to answer: scenario + state + request (+ clock + random source) → response + journal entry.
///
/// The engine is a value with no I/O. The server shell owns one, behind a lock, and only carries out what
/// it returns; tests drive it directly with a fixed clock and a seeded generator. An ``EnginePair`` holds
/// the origin's engine and the forward proxy's, with one journal for both.
///
/// ```swift
/// var random = RandomSource.seeded(1)
/// var engine = Engine(scenario: scenario, random: &random)
/// let exchange = engine.handle(Request(method: "GET", target: "/"), now: Date(), random: &random)
/// // exchange.response.status == 401, exchange.entry.verdict == .noCredentials
/// ```
///
/// The engine's code is split by concern: deciding (`Engine+Decide`), challenges (`Engine+Challenges`),
/// faults (`Engine+Faults`), the journal (`Engine+Journal`), the schemes (`Auth/Engine+Basic`,
/// `+Digest`, `+NTLM`), users and the timeline (`Engine+Users`) and the control endpoints
/// (`Engine+Control`).
public struct Engine: Sendable {
    /// Which side of a proxy the engine plays, and whose credentials must not reach it.
    public struct Configuration: Sendable, Equatable {
        public var hop: Hop
        /// The other party's users (a proxy's: the origin's), whose credentials must never reach this one:
        /// a request that carries them is journaled as a leak.
        public var foreignUsers: [User]

        public init(hop: Hop = .origin, foreignUsers: [User] = []) {
            self.hop = hop
            self.foreignUsers = foreignUsers
        }
    }


    public let scenario: Scenario
    public let hop: Hop
    /// Users whose credentials do not belong here (``Configuration/foreignUsers``), those whose clear
    /// password is known and is no user's of this engine.
    let foreignUsers: [User]
    let minter: NonceMinter
    /// The opaque value of each Digest challenge, by challenge index.
    let opaques: [Int: String]
    /// Results of checking passwords against stored hashes (bcrypt and friends are slow by design).
    let passwordMemo = PasswordVerificationMemo()
    /// Digest's H(username:realm:password) per algorithm, hashed once per user and password.
    let digestBaseMemo = DigestBaseMemo()
    /// The challenges that never change (all but Digest's, which carry a fresh nonce), rendered once: the
    /// 401 path is the hottest path of a client that is never given credentials.
    /// By challenge index; nil for Digest.
    let fixedChallenges: [String?]
    /// The options of the scenario's first challenge of each scheme it accepts: what verifies its credentials.
    let schemeOptions: [AuthScheme: any SchemeOptions]
    /// The journal's `hostile` for a 401 carrying the scenario's raw challenges.
    let hostileChallenges: String?
    /// Whether any user's password is a crypt(3) hash (checked off the event loop, see `slowPasswordCheck`).
    let hasCryptHashes: Bool
    /// The cookies the scenario's resources set, which the journal looks for in `Cookie` (`cookies`).
    let serverCookies: [SetCookie]
    /// The users' static Bearer tokens, by digest (``TokenStore/key(_:)``), to the user's name.
    let staticTokens: [TokenStore.Key: String]
    /// Signs the JWT access tokens of `oauth.access-token.format: jwt`; nil otherwise.
    let tokenSigner: Ed25519Key?

    /// What changes while the scenario is served, for every connection alike: users, nonces, timeline.
    var scenarioState: ScenarioState
    /// What belongs to one TCP connection (NTLM handshakes); ``connectionClosed(_:)`` ends it.
    var connections = ConnectionStates()
    /// The sizes of the engine's state, for reading. The journal is its caller's (an ``EnginePair``'s).
    public var state: EngineState {
        EngineState(rememberedNonces: scenarioState.nonces.count, ntlmConnections: connections.ntlmCount)
    }

    /// URLs the shell bound, for `{url}`, `{other_host_url}`, `{http_url}`, `{second_url}`,
    /// `{other_host_userinfo_url}`, and with `subdomains: true` `{subdomain_url}` and `{sibling_url}`, in
    /// resource headers (a redirect's `Location`).
    public private(set) var links: [String: String] = [:]

    /// The names resource headers may use as `{name}`.
    public static let linkNames = [
        "url", "other_host_url", "http_url", "second_url", "other_host_userinfo_url", "subdomain_url", "sibling_url",
    ]

    public mutating func setLinks(_ links: [String: String]) {
        self.links = links.filter { Self.linkNames.contains($0.key) }
    }

    /// Where the shell bound the scenario, for the live page's try commands (the banner's); nil: from `links`.
    public private(set) var tryWhere: TryCommands.Where?

    public mutating func setTryWhere(_ bound: TryCommands.Where) {
        tryWhere = bound
    }

    public init(
        scenario: Scenario, configuration: Configuration = Configuration(), random: inout some RandomNumberGenerator
    ) {
        self.scenario = scenario
        self.hop = configuration.hop
        self.foreignUsers = configuration.foreignUsers.filter { foreign in
            foreign.knowsPassword && !foreign.password.isEmpty
                && !scenario.users.contains { $0.name == foreign.name && $0.password == foreign.password }
        }
        self.minter = NonceMinter(random: &random, size: scenario.nonce.size)
        self.opaques = Self.opaques(of: scenario, random: &random)
        self.fixedChallenges = Self.fixedChallenges(of: scenario)
        self.schemeOptions = Self.schemeOptions(of: scenario)
        self.hostileChallenges = Self.hostileChallenges(of: scenario)
        self.hasCryptHashes = scenario.users.contains { if case .crypt? = $0.stored { true } else { false } }
        self.serverCookies = scenario.setCookies
        self.staticTokens = Self.staticTokens(of: scenario)
        // Drawn last, and only for JWTs, so that every other scenario's seeded draws stay as they were.
        self.tokenSigner = scenario.oauth?.accessToken.format == .jwt ? Ed25519Key(seed: random.bytes(32)) : nil
        self.scenarioState = ScenarioState(
            nonces: NonceStore(capacity: scenario.nonce.remember), users: scenario.users.map { UserRecord(user: $0) }
        )
    }

    /// Answers one request and records it in `journal`. Control requests (`/_authmock/…`) are the
    /// ``ControlPlane``'s, not the engine's.
    public mutating func handle(
        _ request: Request, now: Date, random: inout some RandomNumberGenerator, journal: inout JournalLog
    ) -> Exchange {
        if scenarioState.startedAt == nil { scenarioState.startedAt = now }
        scenarioState.requests += 1
        var events = applyStepsBeforeRequest(now: now, journal: &journal)
        var decision = decide(request, now: now, random: &random)
        decision.response.fault = fault(for: decision, request: request)
        if decision.response.fault == .serverError {
            let effect = decision.response.fault
            decision.response = Self.plain(status: 500, "500 Internal Server Error: a scenario fault (server-error)\n")
            decision.response.fault = effect
        }
        // Before the journal shares the fields (``JournalEntry/responseHeaders``): appending later would copy them.
        decision.response.headers.append(HeaderField("X-Authmock-Verdict", decision.verdict.rawValue))
        let entry = record(
            request: request, now: now, credentials: decision.credentials, verdict: decision.verdict,
            detail: decision.detail, response: decision.response, journal: &journal
        )
        if let user = decision.authenticatedUser {
            events += recordSuccess(of: user, now: now, journal: &journal)
        }
        let actions = rotationActions(after: request)
        // The renewed certificate only reaches new connections: closing this one makes the client's next
        // request meet it, as a pinned client must (a real renewal reaches clients as their connections age).
        if !actions.isEmpty { decision.response.closeConnection = true }
        return Exchange(
            response: decision.response, entry: entry, events: events, actions: actions,
            authenticatedUser: decision.authenticatedUser
        )
    }

    /// Whether the request will be challenged whatever its body: a protected resource, no credentials and
    /// no NTLM-authenticated connection. The shell then answers `Expect: 100-continue` with the challenge
    /// instead of `100 Continue` (RFC 9110 §10.1.1 allows it; Apache and IIS do it), so that clients meet
    /// the case where the body they held back must be sent again with their credentials. Never with
    /// `before-body: continue`, which has the client send its body first.
    public func challengesBeforeBody(_ request: Request) -> Bool {
        guard scenario.unauthorized.beforeBody != .sendContinue, !ControlPlane.isControl(request.path),
            request.resourcePath != scenario.oauth?.tokenPath,
            let resource = scenario.resource(forPath: request.resourcePath), resource.protected
        else {
            return false
        }
        let fields = request.headers.values(hop.credentialsHeader)
        if fields.isEmpty { return ntlmUser(on: request.connection.id) == nil }
        // An NTLM NEGOTIATE is answered with the CHALLENGE whatever its body (IIS does so).
        guard scenario.unauthorized.beforeBody == .keepOpen, fields.count == 1 else { return false }
        return Self.isNTLMNegotiate(fields[0])
    }

    /// Whether the connection stays open after a challenge sent before the body (`before-body: keep-open`).
    public var keepsConnectionAfterEarlyChallenge: Bool { scenario.unauthorized.beforeBody == .keepOpen }

    /// `NTLM <base64 of a NEGOTIATE message>` (type 1), without SPNEGO.
    static func isNTLMNegotiate(_ field: String) -> Bool {
        let (scheme, token) = schemeAndToken(field)
        guard AuthScheme(token: scheme) == .ntlm, let bytes = Base64.decodeStrict(token.trimmingOWS().utf8),
            bytes.count >= 12, Array(bytes.prefix(8)) == NTLMMessage.signature
        else { return false }
        return bytes[8] == 1 && bytes[9] == 0 && bytes[10] == 0 && bytes[11] == 0
    }

    /// What the shell reports about its TLS identity (pins, files), served at `GET /_authmock/tls`.
    public mutating func setTLSDescription(_ json: [UInt8]?) {
        scenarioState.tlsDescription = json
    }

    /// Starts the scenario over: forgets every nonce (clients holding one get `stale=true` next time),
    /// restores the users, forgets every connection's state and restarts the timeline. The journal is
    /// its owner's to clear (``EnginePair/reset(at:)``).
    public mutating func reset(at now: Date? = nil) {
        scenarioState.reset(users: scenario.users, startedAt: now)
        connections.removeAll()
    }

    /// Sets the moment the scenario started, from which `after:` timeline steps count. Without it the
    /// first request counts as the start.
    public mutating func start(at now: Date) {
        scenarioState.startedAt = now
    }
}
