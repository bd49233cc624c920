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

    let id: UInt64
    let isTLS: Bool
    var remote: String?
    var tlsFacts: TLSFacts?
    var handshake = Handshake.pending
    /// Exchanges started on this connection, answered or not.
    private(set) var exchanges = 0

    init(id: UInt64, isTLS: Bool) {
        self.id = id
        self.isTLS = isTLS
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

    /// Counts a new exchange and returns the connection as the engine sees it for that exchange.
    func startExchange() -> ConnectionInfo {
        exchanges += 1
        return info
    }
}
