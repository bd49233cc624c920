import AuthMockCore
import Foundation

/// An engine with the journal an ``EnginePair`` would hand it: the targets' invariants read the journal's
/// growth after each request.
public struct JournaledEngine: Sendable {
    public var engine: Engine
    public var journal: JournalLog

    public init(_ engine: Engine, capacity: Int) {
        self.engine = engine
        journal = JournalLog(capacity: capacity)
    }

    public var state: (journal: Journal, nextSeq: Int) { (journal.journal, journal.nextSeq) }
    public var hop: Hop { engine.hop }
    public var scenario: Scenario { engine.scenario }

    public mutating func handle(_ request: Request, now: Date, random: inout some RandomNumberGenerator) -> Exchange {
        engine.handle(request, now: now, random: &random, journal: &journal)
    }
}
