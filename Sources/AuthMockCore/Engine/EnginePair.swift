#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The origin and, when the scenario has a `proxy:` section, the forward proxy in front of it: two
/// engines, one random source, and the journal of both hops in one sequence.
///
/// A value with no I/O, like ``Engine``. The server keeps one behind a lock; each call returns the
/// journal entries it produced (in an ``Exchange``, or as entries), for the server to deliver to the
/// journal file and its observer before it lets go of the lock, so they arrive in `seq` order.
///
/// The pair owns the journal (a ``JournalLog``): it hands it to whichever engine decides, which appends
/// its entries there (the proxy's marked `hop: proxy`), so `seq` is set in one place and no entry is
/// copied from one journal to another. Control requests (`/_authmock/…`) go to the ``ControlPlane``.
///
/// ```swift
/// var pair = EnginePair(scenario: scenario, journalCapacity: 10_000, random: .seeded(1), startedAt: now)
/// let hop = pair.answer(Request(method: "CONNECT", target: "127.0.0.1:8443"), hop: .proxy, now: now)
/// // hop.response.status == 407, hop.entry?.hop == .proxy, hop.entry?.seq == 1
/// let origin = pair.answer(Request(method: "GET", target: "/"), hop: .origin, now: now)
/// // origin.entry?.seq == 2
/// ```
public struct EnginePair: Sendable {
    /// The origin's engine.
    public package(set) var origin: Engine
    /// The forward proxy's engine, when the scenario has one.
    public private(set) var proxy: Engine?
    /// Feeds nonces, NTLM challenges and opaques to both engines, in the order they decide.
    private var random: RandomSource
    /// The journal of both hops.
    private var log: JournalLog
    /// Who may use the control plane (see ``ControlGuard``); nil checks nothing, for a pair driven without a
    /// listener (tests, fuzz targets). `AuthMockServer` always sets one.
    public var controlGuard: ControlGuard?

    /// The engines for `scenario`; `after:` timeline steps count from `startedAt`.
    public init(scenario: Scenario, journalCapacity: Int, random: RandomSource, startedAt: Date) {
        var random = random
        origin = Engine(scenario: scenario, random: &random)
        origin.start(at: startedAt)
        proxy = scenario.proxyScenario.map {
            Engine(scenario: $0, configuration: .init(hop: .proxy, foreignUsers: scenario.users), random: &random)
        }
        self.random = random
        log = JournalLog(capacity: journalCapacity)
    }

    /// A pair around an engine built elsewhere (tests drive one with their own random sources), without a
    /// proxy and without a start time: the first request starts the timeline.
    package init(origin: Engine, random: RandomSource, journalCapacity: Int) {
        self.origin = origin
        proxy = nil
        self.random = random
        log = JournalLog(capacity: journalCapacity)
    }

    // MARK: - Requests

    /// Answers a request to the origin (see ``answer(_:hop:now:)``).
    public mutating func handle(_ request: Request, now: Date) -> Exchange {
        answer(request, hop: .origin, now: now)
    }

    /// Answers a request to the forward proxy (see ``answer(_:hop:now:)``).
    public mutating func handleProxy(_ request: Request, now: Date) -> Exchange {
        answer(request, hop: .proxy, now: now)
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
        // In place, through `onEngine`: `engine(hop)` would copy the whole engine, and this runs for every request.
        let work = onEngine(hop) { engine, _, _ in engine.slowPasswordCheck(request) } ?? nil
        if let work { return .verifyFirst(SlowCheck(work: work)) }
        return .answer(answer(request, hop: hop, now: now))
    }

    /// Answers `request` on `hop`: the origin, or the forward proxy (a 404 when the scenario has none).
    /// `/_authmock/…` requests are the control plane's; the proxy's users are changed at
    /// `/_authmock/proxy/users…`, and `POST /_authmock/reset` resets both engines.
    public mutating func answer(_ request: Request, hop: Hop, now: Date) -> Exchange {
        guard hasEngine(hop) else { return Self.noProxy }
        if ControlPlane.isControl(request.path) {
            return ControlPlane.answer(request, hop: hop, pair: &self, now: now)
        }
        return onEngine(hop) { engine, random, journal in
            engine.handle(request, now: now, random: &random, journal: &journal)
        } ?? Self.noProxy
    }

    /// Refuses a request with `status` and journals it as `hop`'s: one the shell could not hand over whole
    /// (unparseable, too large, a header timeout), or a whole one whose proxy target the proxy may not
    /// reach. Both hops journal it alike.
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
        guard var exchange = onEngine(hop, { engine, _, journal in
            engine.reject(
                partial: request, connection: connection, status: status, verdict: verdict, detail: detail, now: now,
                journal: &journal
            )
        }) else { return Self.noProxy }
        exchange.response.closeConnection = close
        return exchange
    }

    /// Records an HTTP/2 stream or connection the origin ended with an error code instead of an answer (see
    /// ``Engine/recordHTTP2Failure(_:connection:reset:goaway:verdict:detail:now:journal:)``). The proxy
    /// speaks HTTP/1.1 only.
    public mutating func recordHTTP2Failure(
        _ request: Request?, connection: ConnectionInfo, reset: String?, goaway: String?, verdict: Verdict,
        detail: String, now: Date
    ) -> JournalEntry {
        origin.recordHTTP2Failure(
            request, connection: connection, reset: reset, goaway: goaway, verdict: verdict, detail: detail, now: now,
            journal: &log
        )
    }

    /// Whether the origin challenges `request` whatever its body (see ``Engine/challengesBeforeBody(_:)``).
    public func challengesBeforeBody(_ request: Request) -> Bool {
        origin.challengesBeforeBody(request)
    }

    /// Whether the origin keeps the connection after a challenge sent before the body.
    public var keepsConnectionAfterEarlyChallenge: Bool { origin.keepsConnectionAfterEarlyChallenge }

    // MARK: - Connections

    /// Records a TLS connection to the origin, or to an HTTPS proxy (then journaled as the proxy's), when it
    /// closes (see ``Engine/recordTLSConnection(_:failure:requests:now:journal:)``).
    public mutating func recordTLSConnection(
        _ connection: ConnectionInfo, failure: String?, requests: Int, plainHTTP: Bool = false, hop: Hop = .origin,
        now: Date
    ) -> JournalEntry {
        if hop == .proxy, proxy != nil {
            return proxy!.recordTLSConnection(
                connection, failure: failure, requests: requests, plainHTTP: plainHTTP, now: now, journal: &log
            )
        }
        return origin.recordTLSConnection(
            connection, failure: failure, requests: requests, plainHTTP: plainHTTP, now: now, journal: &log
        )
    }

    /// Records a connection closed at once because the server already held `limit` connections.
    public mutating func recordRefusedConnection(_ connection: ConnectionInfo, limit: Int, now: Date) -> JournalEntry {
        origin.recordRefusedConnection(connection, limit: limit, now: now, journal: &log)
    }

    /// Forgets everything either engine kept about a closed connection.
    public mutating func connectionClosed(_ connection: UInt64) {
        origin.connectionClosed(connection)
        proxy?.connectionClosed(connection)
    }

    /// Journals a SOCKS5 handshake (see ``SOCKS5Session``): the listener has no engine, only the journal.
    public mutating func recordSOCKS5(_ outcome: SOCKS5Outcome, connection: ConnectionInfo, now: Date) -> JournalEntry {
        log.append(JournalEntry(socks5: outcome, connection: connection, time: now))
    }

    // MARK: - The host

    /// Starts both engines and the journal over; `after:` steps count from `now`. `seq` keeps counting.
    public mutating func reset(at now: Date) {
        origin.reset(at: now)
        proxy?.reset(at: now)
        log.removeAll()
    }

    /// `POST /_authmock/reset` to `hop`: that engine starts over at `now`, the journal empties, and after
    /// the origin's reset the proxy's timeline starts again with its next request, as it did at first.
    mutating func resetByControl(_ hop: Hop, at now: Date) {
        switch hop {
        case .origin:
            origin.reset(at: now)
            proxy?.reset()
        case .proxy:
            proxy?.reset(at: now)
        case .socks5:
            break
        }
        log.removeAll()
    }

    /// Changes a user of the origin's scenario and journals it; nil when there is no such user.
    public mutating func changeUser(_ name: String, _ action: TimelineStep.Action, reason: String, now: Date)
        -> JournalEntry?
    {
        origin.changeUser(name, action, reason: reason, now: now, journal: &log)
    }

    /// The origin's URLs, for `{url}` and friends in resource headers.
    public mutating func setLinks(_ links: [String: String]) {
        origin.setLinks(links)
    }

    /// Where the live page's try commands point (the banner's: URL, CA and client files, the proxy).
    public mutating func setTryWhere(_ bound: TryCommands.Where) {
        origin.setTryWhere(bound)
    }

    /// What `GET /_authmock/tls` serves.
    public mutating func setTLSDescription(_ json: [UInt8]?) {
        origin.setTLSDescription(json)
    }

    // MARK: - Reading

    /// The retained journal entries newer than `since`, both hops.
    public func journalPage(since: Int) -> Engine.JournalPage {
        Engine.journalPage(log.journal, since: since)
    }

    /// The in-memory journal of both hops.
    public var journal: Journal { log.journal }

    /// The `seq` the next entry gets, whichever engine decides it.
    public var nextSeq: Int { log.nextSeq }

    /// Connections with NTLM state, both hops.
    public var ntlmConnections: Int { origin.state.ntlmConnections + (proxy?.state.ntlmConnections ?? 0) }

    /// Digest nonces remembered, both hops.
    public var rememberedNonces: Int { origin.state.rememberedNonces + (proxy?.state.rememberedNonces ?? 0) }

    /// The origin's users as they are now (see ``Engine/currentUsers``).
    public var currentUsers: [User] { origin.currentUsers }

    // MARK: - The engines

    /// The answer when the scenario has no proxy.
    static var noProxy: Exchange { Exchange(response: Response(status: 404)) }

    /// The engine that plays `hop`; nil for the proxy when the scenario has none.
    func engine(_ hop: Hop) -> Engine? {
        switch hop {
        case .origin: origin
        case .proxy: proxy
        case .socks5: nil
        }
    }

    /// Whether an engine plays `hop`, without copying it as `engine(hop) != nil` would.
    func hasEngine(_ hop: Hop) -> Bool {
        switch hop {
        case .origin: true
        case .proxy: proxy != nil
        case .socks5: false
        }
    }

    /// Runs `body` on `hop`'s engine with the random source and the journal; nil when there is no proxy.
    mutating func onEngine<T>(_ hop: Hop, _ body: (inout Engine, inout RandomSource, inout JournalLog) -> T) -> T? {
        switch hop {
        case .origin:
            return body(&origin, &random, &log)
        case .proxy:
            guard proxy != nil else { return nil }
            return body(&proxy!, &random, &log)
        case .socks5:
            return nil
        }
    }
}

/// The slow part of answering a request (checking a password against a crypt(3) hash that was not
/// checked before), for the shell to run off its event loop. Running it leaves the result where the
/// engine finds it; it touches nothing else.
public struct SlowCheck: Sendable {
    let work: @Sendable () -> Void

    public func run() { work() }
}
