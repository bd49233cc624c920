import Foundation

/// The origin and, when the scenario has a `proxy:` section, the forward proxy in front of it: two
/// engines, one random source, and one journal in one sequence for both hops.
///
/// A value with no I/O, like ``Engine``. The server keeps one behind a lock; each call returns the
/// journal entries it produced (in an ``Exchange``, or as entries), for the server to deliver to the
/// journal file and its observer before it lets go of the lock, so they arrive in `seq` order.
///
/// The journal is the origin engine's. For each call to the proxy, the pair lends it to the proxy's
/// engine, which numbers its entries there and marks them `hop: proxy`: `seq` is set in one place
/// (``JournalLog``), and no entry is copied from one journal to another.
///
/// ```swift
/// var pair = EnginePair(scenario: scenario, journalCapacity: 10_000, random: .seeded(1), startedAt: now)
/// let hop = pair.handleProxy(Request(method: "CONNECT", target: "127.0.0.1:8443"), now: now)
/// // hop.response.status == 407, hop.entry?.hop == "proxy", hop.entry?.seq == 1
/// let origin = pair.handle(Request(method: "GET", target: "/"), now: now)
/// // origin.entry?.seq == 2
/// ```
public struct EnginePair: Sendable {
    /// The origin's engine. Its journal is the pair's.
    public private(set) var origin: Engine
    /// The forward proxy's engine, when the scenario has one. Its own journal stays empty.
    public private(set) var proxy: Engine?
    /// Feeds nonces, NTLM challenges and opaques to both engines, in the order they decide.
    private var random: RandomSource

    /// The engines for `scenario`; `after:` timeline steps count from `startedAt`.
    public init(scenario: Scenario, journalCapacity: Int, random: RandomSource, startedAt: Date) {
        var random = random
        origin = Engine(scenario: scenario, configuration: .init(journalCapacity: journalCapacity), random: &random)
        origin.start(at: startedAt)
        // The smallest journal there is: the proxy writes into the origin's, lent for each call.
        proxy = scenario.proxyScenario.map {
            Engine(scenario: $0, configuration: .init(journalCapacity: 1, hop: .proxy, foreignUsers: scenario.users), random: &random)
        }
        self.random = random
    }

    // MARK: - Requests

    /// Answers a request to the origin. The proxy's users are changed at `/_authmock/proxy/users…`, by
    /// the proxy's engine; `POST /_authmock/reset` resets both engines.
    public mutating func handle(_ request: Request, now: Date) -> Exchange {
        if request.path.hasPrefix(Self.proxyUsersPrefix) {
            var forwarded = request
            forwarded.target = Engine.controlPrefix + String(request.target.dropFirst((Engine.controlPrefix + "proxy/").count))
            return handleProxy(forwarded, now: now)
        }
        let exchange = origin.handle(request, now: now, random: &random)
        if request.method == "POST", request.path == Engine.controlPrefix + "reset" {
            // The timeline of the proxy starts again with its next request, as it did at first.
            proxy?.reset()
        }
        return exchange
    }

    /// Answers a request to the forward proxy; a 404 when the scenario has no proxy.
    public mutating func handleProxy(_ request: Request, now: Date) -> Exchange {
        onProxy { engine, random in engine.handle(request, now: now, random: &random) } ?? Self.noProxy
    }

    /// Refuses a request with `status` and journals it as `hop`'s: one the shell could not hand over whole
    /// (unparseable, too large, a header timeout), or a whole one whose proxy target the proxy may not
    /// reach. Both roles journal it alike.
    ///
    /// - Parameters:
    ///   - request: the request as far as it was read; nil when not even its head was (the entry then has
    ///     no method, target or version).
    ///   - connection: the connection it came on, at the exchange being refused.
    ///   - close: whether the answer closes the connection.
    public mutating func reject(
        _ request: Request?, connection: ConnectionInfo, hop: Hop, status: Int, verdict: Verdict, detail: String,
        close: Bool, now: Date
    ) -> Exchange {
        let refuse = { (engine: inout Engine) in
            engine.reject(partial: request, connection: connection, status: status, verdict: verdict, detail: detail, now: now)
        }
        var exchange: Exchange
        switch hop {
        case .origin:
            exchange = refuse(&origin)
        case .proxy:
            guard let rejected = onProxy({ engine, _ in refuse(&engine) }) else { return Self.noProxy }
            exchange = rejected
        }
        exchange.response.closeConnection = close
        return exchange
    }

    /// Records an HTTP/2 stream or connection the origin ended with an error code instead of an answer (see
    /// ``Engine/recordHTTP2Failure(_:connection:reset:goaway:verdict:detail:now:)``). The proxy speaks HTTP/1.1 only.
    public mutating func recordHTTP2Failure(
        _ request: Request?, connection: ConnectionInfo, reset: String?, goaway: String?, verdict: Verdict, detail: String, now: Date
    ) -> JournalEntry {
        origin.recordHTTP2Failure(request, connection: connection, reset: reset, goaway: goaway, verdict: verdict, detail: detail, now: now)
    }

    /// What the shell does with a request to `hop`, decided in one call: answer it now, or first run a
    /// slow password check off the event loop (bcrypt and friends are slow by design) and then ask
    /// ``answer(_:hop:now:)``, which finds the check's result and answers at once. The answer is the same
    /// either way; only where the hashing runs differs.
    public enum Plan: Sendable {
        case answer(Exchange)
        case verifyFirst(SlowCheck)
    }

    /// Plans the answer to `request` on `hop` (see ``Plan``).
    public mutating func plan(_ request: Request, hop: Hop, now: Date) -> Plan {
        let engine = hop == .origin ? origin : proxy
        if let work = engine?.slowPasswordCheck(request) { return .verifyFirst(SlowCheck(work: work)) }
        return .answer(answer(request, hop: hop, now: now))
    }

    /// Answers `request` on `hop`: the origin, or the forward proxy (a 404 when the scenario has none).
    public mutating func answer(_ request: Request, hop: Hop, now: Date) -> Exchange {
        switch hop {
        case .origin: handle(request, now: now)
        case .proxy: handleProxy(request, now: now)
        }
    }

    /// Whether the origin challenges `request` whatever its body (see ``Engine/challengesBeforeBody(_:)``).
    public func challengesBeforeBody(_ request: Request) -> Bool {
        origin.challengesBeforeBody(request)
    }

    // MARK: - Connections

    /// Records a TLS connection to the origin when it closes (see ``Engine/recordTLSConnection(_:failure:requests:now:)``).
    public mutating func recordTLSConnection(_ connection: ConnectionInfo, failure: String?, requests: Int, now: Date) -> JournalEntry {
        origin.recordTLSConnection(connection, failure: failure, requests: requests, now: now)
    }

    /// Records a connection closed at once because the server already held `limit` connections.
    public mutating func recordRefusedConnection(_ connection: ConnectionInfo, limit: Int, now: Date) -> JournalEntry {
        origin.recordRefusedConnection(connection, limit: limit, now: now)
    }

    /// Forgets everything either engine kept about a closed connection.
    public mutating func connectionClosed(_ connection: UInt64) {
        origin.connectionClosed(connection)
        proxy?.connectionClosed(connection)
    }

    // MARK: - The host

    /// Starts both engines over, as `POST /_authmock/reset` does; `after:` steps count from `now`.
    public mutating func reset(at now: Date) {
        origin.reset(at: now)
        proxy?.reset(at: now)
    }

    /// Changes a user of the origin's scenario and journals it; nil when there is no such user.
    public mutating func changeUser(_ name: String, _ action: TimelineStep.Action, reason: String, now: Date) -> JournalEntry? {
        origin.changeUser(name, action, reason: reason, now: now)
    }

    /// The origin's URLs, for `{url}` and friends in resource headers.
    public mutating func setLinks(_ links: [String: String]) {
        origin.setLinks(links)
    }

    /// What `GET /_authmock/tls` serves.
    public mutating func setTLSDescription(_ json: [UInt8]?) {
        origin.setTLSDescription(json)
    }

    // MARK: - Reading

    /// The retained journal entries newer than `since`, both hops.
    public func journalPage(since: Int) -> Engine.JournalPage {
        origin.journalPage(since: since)
    }

    /// The in-memory journal of both hops.
    public var journal: Journal { origin.state.journal }

    /// The `seq` the next entry gets, whichever engine decides it.
    public var nextSeq: Int { origin.state.nextSeq }

    /// Connections with NTLM state, both hops.
    public var ntlmConnections: Int { origin.state.ntlmConnections + (proxy?.state.ntlmConnections ?? 0) }

    /// Digest nonces remembered, both hops.
    public var rememberedNonces: Int { origin.state.rememberedNonces + (proxy?.state.rememberedNonces ?? 0) }

    /// The origin's users as they are now (see ``Engine/currentUsers``).
    public var currentUsers: [User] { origin.currentUsers }

    // MARK: - Lending the journal

    static let proxyUsersPrefix = Engine.controlPrefix + "proxy/users"

    /// The answer when the scenario has no proxy.
    static var noProxy: Exchange { Exchange(response: Response(status: 404)) }

    /// Runs `body` on the proxy's engine with the origin's journal lent to it, so that the proxy's
    /// entries take their places in the one sequence; nil when there is no proxy. `swap` moves the
    /// journals without copying them.
    private mutating func onProxy<T>(_ body: (inout Engine, inout RandomSource) -> T) -> T? {
        guard proxy != nil else { return nil }
        swap(&origin.log, &proxy!.log)
        defer { swap(&origin.log, &proxy!.log) }
        return body(&proxy!, &random)
    }
}

/// The slow part of answering a request (checking a password against a crypt(3) hash that was not
/// checked before), for the shell to run off its event loop. Running it leaves the result where the
/// engine finds it; it touches nothing else.
public struct SlowCheck: Sendable {
    let work: @Sendable () -> Void

    public func run() { work() }
}
