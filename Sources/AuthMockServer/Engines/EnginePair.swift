// The origin and proxy engines as one value, as the shell used them before; it moves into the pure core next.
import AuthMockCore
import Foundation

struct EnginePair: Sendable {
    var origin: Engine
    var proxy: Engine?
    var random: RandomSource

    init(scenario: Scenario, journalCapacity: Int, random: RandomSource, startedAt: Date) {
        var random = random
        var engine = Engine(scenario: scenario, configuration: .init(journalCapacity: journalCapacity), random: &random)
        engine.start(at: startedAt)
        origin = engine
        proxy = scenario.proxyScenario.map { Engine(scenario: $0, configuration: .init(journalCapacity: 1, role: .proxy), random: &random) }
        self.random = random
    }

    var journal: Journal { origin.state.journal }

    mutating func handle(_ request: Request, now: Date) -> Exchange {
        if request.path.hasPrefix(Engine.controlPrefix + "proxy/users") {
            var forwarded = request
            forwarded.target = Engine.controlPrefix + String(request.target.dropFirst((Engine.controlPrefix + "proxy/").count))
            return handleProxy(forwarded, now: now)
        }
        let exchange = origin.handle(request, now: now, random: &random)
        if request.method == "POST", request.path == Engine.controlPrefix + "reset" { proxy?.reset() }
        return exchange
    }

    mutating func handleProxy(_ request: Request, now: Date) -> Exchange {
        guard proxy != nil else { return Exchange(response: Response(status: 404)) }
        proxy!.continueSequence(at: origin.state.nextSeq)
        let exchange = proxy!.handle(request, now: now, random: &random)
        origin.adopt(exchange.journalEntries)
        return exchange
    }

    mutating func reject(
        _ request: Request?, connection: ConnectionInfo, role: Engine.Role, status: Int, verdict: Verdict, detail: String, close: Bool, now: Date
    ) -> Exchange {
        if role == .origin {
            return origin.reject(partial: request, connection: connection, status: status, verdict: verdict, detail: detail, now: now)
        }
        guard proxy != nil else { return Exchange(response: Response(status: 404)) }
        proxy!.continueSequence(at: origin.state.nextSeq)
        var exchange = proxy!.reject(partial: request, connection: connection, status: status, verdict: verdict, detail: detail, now: now)
        exchange.response.closeConnection = close
        if var entry = exchange.entry {
            entry.hop = "proxy"
            exchange.entry = entry
        }
        origin.adopt(exchange.journalEntries)
        return exchange
    }

    func slowPasswordCheck(_ request: Request) -> (@Sendable () -> Void)? { origin.slowPasswordCheck(request) }
    func challengesBeforeBody(_ request: Request) -> Bool { origin.challengesBeforeBody(request) }
    func journalPage(since: Int) -> Engine.JournalPage { origin.journalPage(since: since) }

    mutating func connectionClosed(_ id: UInt64) {
        origin.connectionClosed(id)
        proxy?.connectionClosed(id)
    }

    mutating func recordTLSConnection(_ connection: ConnectionInfo, failure: String?, requests: Int, now: Date) -> JournalEntry {
        origin.recordTLSConnection(connection, failure: failure, requests: requests, now: now)
    }

    mutating func recordRefusedConnection(_ connection: ConnectionInfo, limit: Int, now: Date) -> JournalEntry {
        origin.recordRefusedConnection(connection, limit: limit, now: now)
    }

    mutating func changeUser(_ name: String, _ action: TimelineStep.Action, reason: String, now: Date) -> JournalEntry? {
        origin.changeUser(name, action, reason: reason, now: now)
    }

    mutating func reset(at now: Date) {
        origin.reset(at: now)
        proxy?.reset(at: now)
    }

    mutating func setLinks(_ links: [String: String]) { origin.setLinks(links) }
    mutating func setTLSDescription(_ json: [UInt8]?) { origin.setTLSDescription(json) }
}
