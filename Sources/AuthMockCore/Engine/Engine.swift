import Foundation
internal import Crypto

/// Decides what to answer: scenario + state + request (+ clock + random source) → response + journal entry.
///
/// The engine is a value with no I/O. The server shell owns one, behind a lock, and only carries out what
/// it returns; tests drive it directly with a fixed clock and a seeded generator.
///
/// ```swift
/// var random = RandomSource.seeded(1)
/// var engine = Engine(scenario: scenario, random: &random)
/// let exchange = engine.handle(Request(method: "GET", target: "/"), now: Date(), random: &random)
/// // exchange.response.status == 401, exchange.entry.verdict == .noCredentials
/// ```
public struct Engine: Sendable {
    /// Limits that bound the engine's memory, and which side of a proxy the engine plays.
    public struct Configuration: Sendable, Equatable {
        /// How many journal entries stay in memory (`GET /_authmock/journal`); older ones are evicted.
        public var journalCapacity: Int
        public var role: Role

        public init(journalCapacity: Int = 10_000, role: Role = .origin) {
            self.journalCapacity = journalCapacity
            self.role = role
        }
    }

    /// An origin server (401, `WWW-Authenticate`, `Authorization`) or a proxy (407,
    /// `Proxy-Authenticate`, `Proxy-Authorization`). The rules are the same; the headers and status differ.
    public enum Role: String, Sendable, Equatable {
        case origin
        case proxy

        public var credentialsHeader: String { self == .proxy ? "Proxy-Authorization" : "Authorization" }
        public var challengeHeader: String { self == .proxy ? "Proxy-Authenticate" : "WWW-Authenticate" }
        public var challengeStatus: Int { self == .proxy ? 407 : 401 }
    }

    /// The reserved path prefix for control endpoints; scenarios cannot serve paths under it.
    public static let controlPrefix = "/_authmock/"

    public let scenario: Scenario
    public let role: Role
    let minter: NonceMinter
    /// The opaque value of each Digest challenge, by challenge index.
    let opaques: [Int: String]
    /// Results of checking passwords against stored hashes (bcrypt and friends are slow by design).
    let passwordMemo = PasswordVerificationMemo()
    /// The challenges that never change (all but Digest's, which carry a fresh nonce), rendered once: the
    /// 401 path is the hottest path of a client that is never given credentials.
    /// By challenge index; nil for Digest.
    let fixedChallenges: [String?]
    /// Whether any user's password is a crypt(3) hash (checked off the event loop, see `slowPasswordCheck`).
    let hasCryptHashes: Bool
    public internal(set) var state: EngineState
    /// URLs the shell bound, for `{url}`, `{other_host_url}`, `{http_url}` and `{second_url}` in resource
    /// headers (a redirect's `Location`).
    public private(set) var links: [String: String] = [:]

    /// The names resource headers may use as `{name}`.
    public static let linkNames = ["url", "other_host_url", "http_url", "second_url"]

    public mutating func setLinks(_ links: [String: String]) {
        self.links = links.filter { Self.linkNames.contains($0.key) }
    }

    public init(scenario: Scenario, configuration: Configuration = Configuration(), random: inout some RandomNumberGenerator) {
        self.scenario = scenario
        self.role = configuration.role
        self.minter = NonceMinter(random: &random)
        var opaques: [Int: String] = [:]
        for (index, challenge) in scenario.challenges.enumerated() {
            guard case .digest(let digest) = challenge else { continue }
            switch digest.opaque {
            case .none: break
            case .fixed(let value): opaques[index] = value
            case .generated: opaques[index] = Base64.encode(random.bytes(24), urlSafe: true)
            }
        }
        self.opaques = opaques
        self.fixedChallenges = scenario.challenges.map { challenge -> String? in
            switch challenge {
            case .basic(let basic):
                var parameters = [AuthParameter(name: "realm", value: scenario.realm, quoted: true)]
                if basic.charsetUTF8 { parameters.append(AuthParameter(name: "charset", value: "UTF-8", quoted: true)) }
                return AuthHeaderValue(scheme: "Basic", parameters: parameters).rendered
            case .ntlm: return "NTLM"
            case .negotiate: return "Negotiate"
            case .custom(let raw): return raw
            case .digest: return nil
            }
        }
        self.hasCryptHashes = scenario.users.contains { if case .crypt? = $0.stored { true } else { false } }
        self.state = EngineState(
            nonces: NonceStore(capacity: scenario.nonce.remember),
            journal: Journal(capacity: configuration.journalCapacity),
            users: scenario.users.map { UserRecord(user: $0) }
        )
    }

    /// Answers one request and records it.
    public mutating func handle(_ request: Request, now: Date, random: inout some RandomNumberGenerator) -> Exchange {
        if request.path.hasPrefix(Self.controlPrefix) || request.path == String(Self.controlPrefix.dropLast()) {
            return control(request, now: now)
        }
        if state.startedAt == nil { state.startedAt = now }
        state.requests += 1
        var events = applyStepsBeforeRequest(now: now)
        var decision = decide(request, now: now, random: &random)
        decision.response.fault = fault(for: decision, request: request)
        let entry = record(
            request: request, now: now, credentials: decision.credentials, verdict: decision.verdict,
            detail: decision.detail, response: decision.response
        )
        if let user = decision.authenticatedUser {
            events += recordSuccess(of: user, now: now)
        }
        decision.response.headers.append(HeaderField("X-Authmock-Verdict", decision.verdict.rawValue))
        var actions: [ServerAction] = []
        if let every = scenario.tls?.rotateAfterRequests, request.connection.tls != nil {
            state.requestsSinceRotation += 1
            if state.requestsSinceRotation >= every {
                state.requestsSinceRotation = 0
                actions.append(.rotateCertificate(keepKey: scenario.tls?.rotateKeepsKey ?? true))
            }
        }
        return Exchange(response: decision.response, entry: entry, events: events, actions: actions, authenticatedUser: decision.authenticatedUser)
    }

    /// Whether the request will be challenged whatever its body: a protected resource, no credentials and
    /// no NTLM-authenticated connection. The shell then answers `Expect: 100-continue` with the challenge
    /// instead of `100 Continue` (RFC 9110 §10.1.1 allows it; Apache and IIS do it), so that clients meet
    /// the case where the body they held back must be sent again with their credentials.
    public func challengesBeforeBody(_ request: Request) -> Bool {
        guard !request.path.hasPrefix(Self.controlPrefix), let resource = scenario.resource(forPath: request.path), resource.protected else {
            return false
        }
        return request.headers.values(role.credentialsHeader).isEmpty && ntlmUser(on: request.connection.id) == nil
    }

    /// Records a TLS connection when it closes: its handshake, and whether any request arrived on it.
    ///
    /// - Parameters:
    ///   - failure: why the handshake failed, or nil when it completed.
    ///   - requests: how many HTTP requests the connection carried.
    public mutating func recordTLSConnection(
        _ connection: ConnectionInfo, failure: String?, requests: Int, now: Date
    ) -> JournalEntry {
        let verdict: Verdict
        let detail: String
        if let failure {
            verdict = .tlsHandshakeFailed
            detail = failure
        } else if requests == 0 {
            verdict = .tlsNoRequest
            detail = "the handshake completed, then the client closed without sending a request"
        } else {
            verdict = .tlsOK
            detail = "\(requests) request(s) over \(connection.tls?.version ?? "TLS")"
        }
        return recordConnection(connection, verdict: verdict, detail: detail, requests: requests, now: now)
    }

    /// Records a connection the shell closed at once because it already held `limit` connections.
    public mutating func recordRefusedConnection(_ connection: ConnectionInfo, limit: Int, now: Date) -> JournalEntry {
        recordConnection(
            connection, verdict: .connectionLimit, detail: "closed at once: the server already holds \(limit) connections (--max-connections)",
            requests: nil, now: now
        )
    }

    /// A journal entry about a connection rather than a request: status 0, nothing was answered.
    private mutating func recordConnection(
        _ connection: ConnectionInfo, verdict: Verdict, detail: String, requests: Int?, now: Date
    ) -> JournalEntry {
        let entry = JournalEntry(
            seq: state.nextSeq, time: now, connection: connection.id, exchange: 0, remote: connection.remote, method: nil,
            target: nil, version: nil, headers: [], bodyBytes: 0, credentials: nil, verdict: verdict, detail: detail, status: 0,
            challenges: nil, tls: connection.tls, requests: requests
        )
        state.nextSeq += 1
        state.journal.append(entry)
        return entry
    }

    /// What the shell reports about its TLS identity (pins, files), served at `GET /_authmock/tls`.
    public mutating func setTLSDescription(_ json: [UInt8]?) {
        state.tlsDescription = json
    }

    /// Records a request the shell refused before it could be handed over whole (unparseable, headers too
    /// large, body too large), so that no exchange goes unjournaled.
    public mutating func reject(
        partial request: Request?, connection: ConnectionInfo, status: Int, verdict: Verdict, detail: String, now: Date
    ) -> Exchange {
        let response = Self.plain(status: status, "\(status) \(Self.reason(status)): \(detail)\n", close: true)
        var entry = JournalEntry(
            seq: 0, time: now, connection: connection.id, exchange: connection.exchange, remote: connection.remote,
            method: request?.method, target: request?.target, version: request?.version,
            headers: (request?.headers ?? []).map(Self.recorded), bodyBytes: request?.body.count ?? 0, credentials: nil,
            verdict: verdict, detail: detail, status: status, challenges: nil, tls: connection.tls
        )
        entry.seq = state.nextSeq
        state.nextSeq += 1
        state.journal.append(entry)
        return Exchange(response: response, entry: entry)
    }

    /// Appends entries another engine decided (the proxy's) to this journal, and continues the sequence
    /// after them, so that one journal tells both hops in order.
    public mutating func adopt(_ entries: [JournalEntry]) {
        for entry in entries {
            state.journal.append(entry)
            state.nextSeq = max(state.nextSeq, entry.seq + 1)
        }
    }

    /// Continues numbering journal entries at `seq` (see ``adopt(_:)``).
    public mutating func continueSequence(at seq: Int) {
        state.nextSeq = max(state.nextSeq, seq)
    }

    /// Starts the scenario over: clears the journal and every nonce (clients holding one get
    /// `stale=true` next time), restores the users and restarts the timeline. `seq` keeps counting.
    public mutating func reset(at now: Date? = nil) {
        state.journal.removeAll()
        state.nonces.removeAll()
        state.users = scenario.users.map { UserRecord(user: $0) }
        state.ntlm.removeAll()
        state.recentNTLMChallenges.removeAll()
        state.firedSteps = []
        state.requests = 0
        state.startedAt = now
        state.requestsSinceRotation = 0
        state.noncesIssued = 0
        state.faultsFired = [:]
    }

    /// Sets the moment the scenario started, from which `after:` timeline steps count. Without it the
    /// first request counts as the start.
    public mutating func start(at now: Date) {
        state.startedAt = now
    }

    // MARK: - Deciding

    struct Decision {
        var response: Response
        var verdict: Verdict
        var detail: String?
        var credentials: PresentedCredentials?
        /// Set when credentials were accepted (the user's successes count, even for a 403 resource).
        var authenticatedUser: String?
    }

    enum AuthOutcome {
        case granted(user: String, verdict: Verdict, detail: String? = nil, headers: [HeaderField] = [])
        case challenge(Verdict, String, stale: Bool = false)
        /// A 401 carrying only this challenge (the next leg of a multi-leg handshake such as NTLM).
        case continueHandshake(Verdict, String, header: String)
        case badRequest(Verdict, String)
    }

    private mutating func decide(_ request: Request, now: Date, random: inout some RandomNumberGenerator) -> Decision {
        guard let resource = scenario.resource(forPath: request.path) else {
            return Decision(
                response: Self.plain(status: 404, "404 Not Found\n"), verdict: .notFound,
                detail: "no resource of the scenario matches \(request.path)"
            )
        }
        guard resource.protected else {
            return Decision(response: grant(resource, user: nil), verdict: .publicResource, detail: nil)
        }

        let fields = request.headers.values(role.credentialsHeader)
        if fields.isEmpty, let user = ntlmUser(on: request.connection.id), activeUser(named: user) != nil, !isLocked(user) {
            return Decision(
                response: grant(resource, user: user), verdict: .ntlmConnectionAuthenticated,
                detail: "the connection was authenticated by NTLM as \(user)", authenticatedUser: user
            )
        }
        guard let field = fields.first else {
            return challenge(.noCredentials, "the request carried no Authorization header", stale: false, now: now, random: &random)
        }
        guard fields.count == 1 else {
            return Decision(
                response: Self.plain(status: 400, "400 Bad Request: more than one Authorization header\n"),
                verdict: .duplicateAuthorization, detail: "\(fields.count) Authorization headers; RFC 9110 allows one"
            )
        }
        let (scheme, token) = Self.schemeAndToken(field)
        var presented = PresentedCredentials(header: role.credentialsHeader, scheme: scheme)
        let outcome: AuthOutcome
        switch scheme.lowercased() {
        case "basic" where basicChallenge != nil:
            // Basic is a token68 (RFC 7617): read it directly, so base64 faults are named as such.
            outcome = verifyBasic(token, options: basicChallenge!, presented: &presented)
        case "ntlm", "negotiate":
            let isNegotiate = scheme.lowercased() == "negotiate"
            let options = scenario.challenges.lazy.compactMap { challenge -> NTLMChallenge? in
                switch challenge {
                case .ntlm(let options) where !isNegotiate: return options
                case .negotiate(let options) where isNegotiate: return options
                default: return nil
                }
            }.first
            guard let options else {
                outcome = .challenge(.schemeNotOffered, "the client used '\(scheme)', which this scenario does not accept")
                break
            }
            outcome = verifyNTLM(
                token: token, negotiate: isNegotiate, options: options, request: request, now: now, random: &random,
                presented: &presented
            )
        case "digest" where offersDigest:
            let credentials: AuthHeaderValue
            do throws(AuthSyntaxError) {
                credentials = try AuthHeader.parseCredentials(field)
            } catch {
                return Decision(
                    response: Self.plain(status: 400, "400 Bad Request: malformed Authorization header: \(error.reason)\n"),
                    verdict: .malformedAuthorization, detail: error.reason, credentials: presented
                )
            }
            outcome = verifyDigest(credentials, request: request, now: now, presented: &presented)
        case "":
            return Decision(
                response: Self.plain(status: 400, "400 Bad Request: the Authorization header has no auth-scheme\n"),
                verdict: .malformedAuthorization, detail: "the Authorization header has no auth-scheme", credentials: nil
            )
        default:
            outcome = .challenge(.schemeNotOffered, "the client used '\(scheme)', which this scenario does not accept")
        }

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
                response: response, verdict: verdict, detail: detail ?? "authenticated as \(user)", credentials: presented,
                authenticatedUser: user
            )
        case .continueHandshake(let verdict, let detail, let header):
            let response = Response(
                status: role.challengeStatus,
                headers: [HeaderField("Content-Type", scenario.unauthorized.contentType), HeaderField(role.challengeHeader, header)],
                body: Array(scenario.unauthorized.body.utf8)
            )
            return Decision(response: response, verdict: verdict, detail: detail, credentials: presented)
        case .challenge(let verdict, let detail, let stale):
            var decision = challenge(verdict, detail, stale: stale, now: now, random: &random)
            decision.credentials = presented
            return decision
        case .badRequest(let verdict, let detail):
            return Decision(
                response: Self.plain(status: 400, "400 Bad Request: \(detail)\n"), verdict: verdict, detail: detail,
                credentials: presented
            )
        }
    }

    var basicChallenge: BasicChallenge? {
        for case .basic(let basic) in scenario.challenges { return basic }
        return nil
    }

    private var offersDigest: Bool {
        scenario.challenges.contains { if case .digest = $0 { true } else { false } }
    }

    private func grant(_ resource: Resource, user: String?) -> Response {
        var headers = [HeaderField("Content-Type", resource.contentType)]
        headers += links.isEmpty ? resource.headers : resource.headers.map { HeaderField($0.name, Self.fill($0.value, links)) }
        return Response(status: resource.status, headers: headers, body: Self.render(resource.body, user: user ?? ""))
    }

    /// The challenge's status: the role's, unless the scenario plays a broken proxy that answers 401.
    var challengeStatus: Int { scenario.unauthorized.status ?? role.challengeStatus }
    var challengeHeader: String { challengeStatus == 401 ? "WWW-Authenticate" : role.challengeHeader }

    /// A 401 with a fresh set of challenges (fresh nonces for every Digest challenge).
    private mutating func challenge(
        _ verdict: Verdict, _ detail: String, stale: Bool, now: Date, random: inout some RandomNumberGenerator
    ) -> Decision {
        var headers = [HeaderField("Content-Type", scenario.unauthorized.contentType)]
        if scenario.unauthorized.sendChallenge {
            let values = renderChallenges(stale: stale, now: now, random: &random)
            switch scenario.challengeStyle {
            case .separateFields: headers += values.map { HeaderField(challengeHeader, $0) }
            case .singleField: headers.append(HeaderField(challengeHeader, values.joined(separator: ", ")))
            }
        }
        var response = Response(status: challengeStatus, headers: headers, body: Array(scenario.unauthorized.body.utf8))
        response.closeConnection = scenario.unauthorized.close
        response.chunked = scenario.unauthorized.chunked
        return Decision(response: response, verdict: verdict, detail: detail)
    }

    mutating func renderChallenges(stale: Bool, now: Date, random: inout some RandomNumberGenerator) -> [String] {
        scenario.challenges.enumerated().map { index, challenge in
            if let fixed = fixedChallenges[index] { return fixed }
            switch challenge {
            case .digest(let digest):
                let nonce = minter.mint(at: now, challengeIndex: index, random: &random)
                state.nonces.insert(nonce, NonceStore.Record(challengeIndex: index, issuedAt: now, serial: state.noncesIssued))
                state.noncesIssued += 1
                var parameters = [AuthParameter(name: "realm", value: scenario.realm, quoted: true)]
                if !digest.qop.isEmpty {
                    parameters.append(AuthParameter(name: "qop", value: digest.qop.map(\.rawValue).joined(separator: ", "), quoted: true))
                }
                if let algorithm = digest.algorithm { parameters.append(AuthParameter(name: "algorithm", value: algorithm.token, quoted: false)) }
                parameters.append(AuthParameter(name: "nonce", value: nonce, quoted: true))
                if let opaque = opaques[index] { parameters.append(AuthParameter(name: "opaque", value: opaque, quoted: true)) }
                if digest.charsetUTF8 { parameters.append(AuthParameter(name: "charset", value: "UTF-8", quoted: false)) }
                if digest.userhash { parameters.append(AuthParameter(name: "userhash", value: "true", quoted: false)) }
                if stale { parameters.append(AuthParameter(name: "stale", value: "true", quoted: false)) }
                return AuthHeaderValue(scheme: "Digest", parameters: parameters).rendered
            case .basic, .ntlm, .negotiate, .custom:
                preconditionFailure("rendered once, in init")
            }
        }
    }

    // MARK: - Faults

    /// The effect of the first scenario fault that matches this answer and has not used up its `times`.
    private mutating func fault(for decision: Decision, request: Request) -> Fault.Effect? {
        guard !scenario.faults.isEmpty else { return nil }
        let isChallenge = decision.response.status == challengeStatus
        let isGranted = decision.authenticatedUser != nil || decision.verdict == .publicResource
        for (index, fault) in scenario.faults.enumerated() {
            switch fault.trigger {
            case .challenge where !isChallenge, .granted where !isGranted: continue
            default: break
            }
            if let path = fault.path, !Resource(path: path).matches(path: request.path) { continue }
            let fired = state.faultsFired[index, default: 0]
            if let times = fault.times, fired >= times { continue }
            state.faultsFired[index] = fired + 1
            return fault.effect
        }
        return nil
    }

    // MARK: - Journal

    private mutating func record(
        request: Request, now: Date, credentials: PresentedCredentials?, verdict: Verdict, detail: String?, response: Response
    ) -> JournalEntry {
        let challenges = response.headers.values(challengeHeader)
        var entry = JournalEntry(
            seq: state.nextSeq, time: now, connection: request.connection.id, exchange: request.connection.exchange,
            remote: request.connection.remote, method: request.method, target: request.target, version: request.version,
            headers: request.headers.map(Self.recorded), bodyBytes: request.body.count, credentials: credentials,
            verdict: verdict, detail: detail, status: response.status, challenges: challenges.isEmpty ? nil : challenges,
            tls: request.connection.tls, hop: role == .proxy ? "proxy" : nil, leaks: Self.leaks(in: request, role: role),
            bodySHA256: request.body.isEmpty ? nil : SHA256.hash(data: request.body).hexString
        )
        entry.fault = response.fault?.journalText
        state.nextSeq += 1
        state.journal.append(entry)
        return entry
    }

    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Credentials sent to the wrong party: proxy credentials reaching the origin, or origin credentials
    /// sent to the proxy on CONNECT (where they are never needed and the proxy can read them).
    static func leaks(in request: Request, role: Role) -> [String]? {
        var leaks: [String] = []
        if role == .origin, !request.headers.values("Proxy-Authorization").isEmpty {
            leaks.append("Proxy-Authorization reached the origin")
        }
        if role == .proxy, request.method == "CONNECT", !request.headers.values("Authorization").isEmpty {
            leaks.append("Authorization (origin credentials) was sent to the proxy on CONNECT")
        }
        return leaks.isEmpty ? nil : leaks
    }

    static func recorded(_ field: HeaderField) -> JournalEntry.RecordedHeader {
        JournalEntry.RecordedHeader(
            name: field.name, value: field.value, credential: credentialHeaders.contains(field.name.lowercased()) ? true : nil
        )
    }

    // MARK: - Helpers

    static func plain(status: Int, _ text: String, close: Bool = false) -> Response {
        Response(
            status: status, headers: [HeaderField("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8),
            closeConnection: close
        )
    }

    /// The auth-scheme at the start of a header value; empty when it does not start with a token.
    /// A credentials field split into its scheme and what follows it: Basic's token68, or NTLM's and
    /// Negotiate's base64 token (Digest's parameters are parsed from the whole field).
    static func schemeAndToken(_ field: String) -> (scheme: String, token: Substring) {
        let scheme = leadingToken(field)
        let token = Substring(field.utf8.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.dropFirst(scheme.utf8.count))
        return (scheme, token)
    }

    package static func leadingToken(_ text: String) -> String {
        let utf8 = text.utf8
        let start = utf8.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? utf8.endIndex
        let end = utf8[start...].firstIndex { !AuthHeader.isTokenChar($0) } ?? utf8.endIndex
        return String(text[start..<end].prefix(64))
    }

    /// A body template with `{user}` replaced, as bytes (on the hot path: no Foundation bridging).
    static func render(_ template: String, user: String) -> [UInt8] {
        let placeholder = Array("{user}".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(template.utf8.count + user.utf8.count)
        var rest = template.utf8[...]
        while let brace = rest.firstIndex(of: UInt8(ascii: "{")) {
            bytes += rest[..<brace]
            if rest[brace...].starts(with: placeholder) {
                bytes += user.utf8
                rest = rest[rest.index(brace, offsetBy: placeholder.count)...]
            } else {
                bytes.append(UInt8(ascii: "{"))
                rest = rest[rest.index(after: brace)...]
            }
        }
        bytes += rest
        return bytes
    }

    /// Replaces `{name}` by `values[name]`; unknown names stay as they are.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        var result = text
        for (name, value) in values { result = result.replacingOccurrences(of: "{\(name)}", with: value) }
        return result
    }

    /// Reason phrases for the statuses authmock sends.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 407: return "Proxy Authentication Required"
        case 413: return "Content Too Large"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        default: return "Status \(status)"
        }
    }
}

/// The engine's answer to one request.
public struct Exchange: Sendable, Equatable {
    public init(
        response: Response, entry: JournalEntry? = nil, events: [JournalEntry] = [], actions: [ServerAction] = [],
        authenticatedUser: String? = nil
    ) {
        self.response = response
        self.entry = entry
        self.events = events
        self.actions = actions
        self.authenticatedUser = authenticatedUser
    }

    /// Who the credentials proved to be, when they were accepted (for a proxy: forward the request).
    public var authenticatedUser: String?

    public var response: Response
    /// nil for control requests (`/_authmock/…`), which are not exchanges under test.
    public var entry: JournalEntry?
    /// Entries for what happened around the exchange (a user's password changed…).
    public var events: [JournalEntry]

    /// Every journal entry this exchange produced, in `seq` order.
    public var journalEntries: [JournalEntry] {
        (events + (entry.map { [$0] } ?? [])).sorted { $0.seq < $1.seq }
    }
    /// What the shell must do besides answering.
    public var actions: [ServerAction] = []
}

/// Work the engine asks of the shell, which owns the resources involved.
public enum ServerAction: Sendable, Equatable {
    /// Replace the TLS leaf for new connections, keeping its key or not.
    case rotateCertificate(keepKey: Bool)
}

struct IssuedNTLMChallenge: Sendable, Equatable {
    var connection: UInt64
    var serverChallenge: [UInt8]
}

/// Everything that changes while a scenario is served.
public struct EngineState: Sendable, Equatable {
    var nonces: NonceStore
    public internal(set) var journal: Journal
    public internal(set) var nextSeq = 1
    var requestsSinceRotation = 0
    /// Nonces issued since start or reset (for `nonce.stale-first`).
    var noncesIssued = 0
    var tlsDescription: [UInt8]?
    var users: [UserRecord]
    var ntlm: [UInt64: NTLMConnectionState] = [:]
    /// The last CHALLENGEs sent, with their connections, to name an AUTHENTICATE sent on the wrong one.
    var recentNTLMChallenges: [IssuedNTLMChallenge] = []
    var firedSteps: Set<Int> = []
    /// HTTP requests decided since start or reset (control requests excluded).
    var requests = 0
    var startedAt: Date?
    /// How many answers each scenario fault (by index) has been played on, for `times:`.
    var faultsFired: [Int: Int] = [:]

    /// How many Digest nonces are remembered right now (bounded by the scenario's `nonce.remember`).
    public var rememberedNonces: Int { nonces.count }

    /// How many connections have NTLM state (a handshake in progress or done); closed ones have none.
    public var ntlmConnections: Int { ntlm.count }
}
