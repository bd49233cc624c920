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
        // Nearly every exchange has no events: its entry alone, without the concatenation and sort (an entry is
        // a large struct, and each of those copied it).
        guard !events.isEmpty else { return entry.map { [$0] } ?? [] }
        return (events + (entry.map { [$0] } ?? [])).sorted { $0.seq < $1.seq }
    }
    /// What the shell must do besides answering.
    public var actions: [ServerAction] = []
}

/// Work the engine asks of the shell, which owns the resources involved.
public enum ServerAction: Sendable, Equatable {
    /// Replace the TLS leaf for new connections, keeping its key or not.
    case rotateCertificate(keepKey: Bool)
}
