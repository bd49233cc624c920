import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers

/// The lock around the origin's and the proxy's engines (an ``EnginePair``), and where their journal
/// entries go once decided.
///
/// Every decision takes the lock, asks the pure engines, and delivers the entries it produced to the
/// journal file and the observer before letting go, so that both see entries in `seq` order. The
/// engines do no I/O, so the lock is held only for the decision itself.
final class LockedEngines: Sendable {
    private let locked: NIOLockedValueBox<EnginePair>
    /// Where decided entries go besides memory: the journal file and an observer (the fixture library's
    /// `takeRequest`).
    private let sinks = NIOLockedValueBox(Sinks())
    let clock: @Sendable () -> Date

    private struct Sinks {
        var file: JournalFile?
        var observer: (@Sendable (JournalEntry) -> Void)?

        func deliver(_ entries: [JournalEntry]) {
            for entry in entries {
                file?.append(entry)
                observer?(entry)
            }
        }
    }

    init(scenario: Scenario, configuration: ServerConfiguration) {
        let random = configuration.seed.map(RandomSource.seeded) ?? .system
        // `after:` timeline steps count from here.
        let pair = EnginePair(
            scenario: scenario, journalCapacity: configuration.journalCapacity, random: random,
            startedAt: configuration.clock()
        )
        locked = NIOLockedValueBox(pair)
        clock = configuration.clock
    }

    func setJournalFile(_ file: JournalFile?) {
        sinks.withLockedValue { $0.file = file }
    }

    func setObserver(_ observer: (@Sendable (JournalEntry) -> Void)?) {
        sinks.withLockedValue { $0.observer = observer }
    }

    /// Decides under the lock, and delivers what the decision journaled before the lock is released.
    private func decide<T>(_ body: (inout EnginePair, Date) -> (T, [JournalEntry])) -> T {
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        return locked.withLockedValue { pair in
            let (result, entries) = body(&pair, now)
            sinks.deliver(entries)
            return result
        }
    }

    /// Reads the engines under the lock; nothing is decided or journaled.
    func read<T>(_ body: (EnginePair) -> T) -> T {
        locked.withLockedValue { body($0) }
    }

    // MARK: Exchanges

    /// Refuses a request the shell could not hand over whole, or a proxy target it may not reach, and
    /// journals it as the origin's or the proxy's.
    func reject(
        _ request: Request?, connection: ConnectionInfo, hop: Hop, status: Int, verdict: Verdict, detail: String,
        close: Bool
    ) -> Exchange {
        decide { pair, now in
            let exchange = pair.reject(
                request, connection: connection, hop: hop, status: status, verdict: verdict, detail: detail,
                close: close, now: now
            )
            return (exchange, exchange.journalEntries)
        }
    }

    /// Journals an HTTP/2 stream or connection ended with an error code instead of an answer (status 0).
    func recordHTTP2Failure(
        _ request: Request?, connection: ConnectionInfo, reset: String?, goaway: String?, verdict: Verdict,
        detail: String
    ) {
        decide { pair, now in
            let entry = pair.recordHTTP2Failure(
                request, connection: connection, reset: reset, goaway: goaway, verdict: verdict, detail: detail,
                now: now
            )
            return ((), [entry])
        }
    }

    /// Plans the answer to a request on `hop`: now, or after a slow check (see ``EnginePair/Plan``).
    func plan(_ request: Request, hop: Hop) -> EnginePair.Plan {
        if let page = journalPage(request, hop: hop) { return .answer(page) }
        return decide { pair, now in
            let plan = pair.plan(request, hop: hop, now: now)
            guard case .answer(let exchange) = plan else { return (plan, []) }
            return (plan, exchange.journalEntries)
        }
    }

    /// Answers a request on `hop` once its slow check ran.
    func answer(_ request: Request, hop: Hop) -> Exchange {
        if let page = journalPage(request, hop: hop) { return page }
        return decide { pair, now in
            let exchange = pair.answer(request, hop: hop, now: now)
            return (exchange, exchange.journalEntries)
        }
    }

    /// `GET /_authmock/journal` to the origin, answered here: the page can be large, so it is copied under
    /// the lock and encoded outside it. nil for any other request, and for one the control guard refuses
    /// (the pair then refuses and journals it).
    private func journalPage(_ request: Request, hop: Hop) -> Exchange? {
        guard hop == .origin, let since = Engine.journalPageRequest(request),
            read({ $0.controlGuard?.check(request) == nil })
        else { return nil }
        return Exchange(response: Engine.json(read { $0.journalPage(since: since) }))
    }

    func challengesBeforeBody(_ request: Request) -> Bool {
        read { $0.challengesBeforeBody(request) }
    }

    var keepsConnectionAfterEarlyChallenge: Bool {
        read { $0.keepsConnectionAfterEarlyChallenge }
    }

    // MARK: Connections

    func connectionClosed(_ id: UInt64) {
        locked.withLockedValue { $0.connectionClosed(id) }
    }

    /// Records a TLS connection's handshake and request count when it closes.
    func recordTLSConnection(
        _ connection: ConnectionInfo, failure: String?, requests: Int, plainHTTP: Bool = false, hop: Hop = .origin
    ) {
        decide { pair, now in
            let entry = pair.recordTLSConnection(
                connection, failure: failure, requests: requests, plainHTTP: plainHTTP, hop: hop, now: now
            )
            return ((), [entry])
        }
    }

    /// Journals how a SOCKS5 handshake ended.
    func recordSOCKS5(_ outcome: SOCKS5Outcome, connection: ConnectionInfo) {
        decide { pair, now in ((), [pair.recordSOCKS5(outcome, connection: connection, now: now)]) }
    }

    func recordRefusedConnection(_ connection: ConnectionInfo, limit: Int) {
        decide { pair, now in ((), [pair.recordRefusedConnection(connection, limit: limit, now: now)]) }
    }

    // MARK: The host's controls

    /// Changes a user of the origin's scenario, as `POST /_authmock/users/{name}` does.
    func changeUser(_ name: String, _ action: TimelineStep.Action, reason: String) -> Bool {
        decide { pair, now in
            guard let entry = pair.changeUser(name, action, reason: reason, now: now) else { return (false, []) }
            return (true, [entry])
        }
    }

    /// As `POST /_authmock/reset`: `after:` timeline steps count from now again.
    func reset() {
        let now = clock()
        locked.withLockedValue { $0.reset(at: now) }
    }

    /// Who may use the control plane, from what the listeners are (see ``ControlGuard``).
    func setControlGuard(_ controlGuard: ControlGuard) {
        locked.withLockedValue { $0.controlGuard = controlGuard }
    }

    func setLinks(_ links: [String: String]) {
        locked.withLockedValue { $0.setLinks(links) }
    }

    func setTryWhere(_ bound: TryCommands.Where) {
        locked.withLockedValue { $0.setTryWhere(bound) }
    }

    func setTLSInfo(_ info: TLSInfo) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let json = (try? encoder.encode(info)).map { Array($0) + [UInt8(ascii: "\n")] }
        locked.withLockedValue { $0.setTLSDescription(json) }
    }
}
