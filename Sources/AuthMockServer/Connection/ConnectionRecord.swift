import AuthMockCore

/// What the handlers of one connection share about it: its id, its peer, what its TLS handshake
/// settled, and how many exchanges it has carried.
///
/// One per connection (a CONNECT tunnel gets its own), used only on the connection's event loop.
final class ConnectionRecord {
    /// The handshake of a TLS connection, as far as it got.
    enum Handshake: Equatable {
        case pending
        case completed
        case failed(String)
    }

    /// Its number in the journal, once it has one: an accepted connection takes the next one at the first
    /// thing journaled about it, so a browser's connections that only ask the control plane (the live page
    /// polling) consume none and the first client's connection is number 1.
    private(set) var assignedID: UInt64?
    private let nextNumber: (() -> UInt64)?
    let isTLS: Bool
    /// Exchanges started on it were all control requests (`/_authmock/…`) while it had no number.
    private(set) var onlyControl = false
    var remote: String?
    var tlsFacts: TLSFacts?
    var handshake = Handshake.pending
    /// Exchanges started on this connection, answered or not.
    private(set) var exchanges = 0

    /// A connection numbered now (a CONNECT tunnel, a connection added without a listener).
    init(id: UInt64, isTLS: Bool) {
        self.assignedID = id
        self.nextNumber = nil
        self.isTLS = isTLS
    }

    /// A connection numbered by `nextNumber` when it first needs a number.
    init(isTLS: Bool, nextNumber: @escaping () -> UInt64) {
        self.nextNumber = nextNumber
        self.isTLS = isTLS
    }

    /// Its number in the journal, taken now if it has none yet.
    var id: UInt64 {
        if let assignedID { return assignedID }
        let id = nextNumber?() ?? 0
        assignedID = id
        return id
    }

    /// Changes the TLS facts (set once the connection is known to be TLS).
    func updateTLSFacts(_ change: (inout TLSFacts) -> Void) {
        var facts = tlsFacts ?? TLSFacts()
        change(&facts)
        tlsFacts = facts
    }

    /// The engine's view of the connection at the current exchange.
    var info: ConnectionInfo {
        ConnectionInfo(id: id, exchange: exchanges, remote: remote, tls: isTLS ? (tlsFacts ?? TLSFacts()) : nil)
    }

    /// Counts a new exchange and returns the connection as the engine sees it for that exchange. A `control`
    /// request (to `/_authmock/`, not journaled unless refused) on a connection without a number does not
    /// give it one: the engine sees connection 0.
    func startExchange(control: Bool = false) -> ConnectionInfo {
        exchanges += 1
        guard control, assignedID == nil else { return info }
        onlyControl = true
        return ConnectionInfo(id: 0, exchange: exchanges, remote: remote, tls: isTLS ? (tlsFacts ?? TLSFacts()) : nil)
    }
}
