/// The in-memory journal: a ring of the most recent entries.
///
/// Memory stays bounded however long the server runs; the `--journal` file keeps everything. `evicted`
/// counts entries that fell out of the ring, so a reader knows when it missed some.
public struct Journal: Sendable, Equatable {
    public private(set) var capacity: Int
    private var storage: [JournalEntry] = []
    private var head = 0
    public private(set) var evicted = 0

    public init(capacity: Int = 10_000) {
        precondition(capacity > 0, "journal capacity must be positive")
        self.capacity = capacity
        storage.reserveCapacity(min(capacity, 1024))
    }

    public mutating func append(_ entry: consuming JournalEntry) {
        if storage.count < capacity {
            storage.append(entry)
        } else {
            storage[head] = entry
            head = (head + 1) % capacity
            evicted += 1
        }
    }

    /// The retained entries, oldest first.
    public var entries: [JournalEntry] {
        Array(storage[head...] + storage[..<head])
    }

    public var count: Int { storage.count }

    public mutating func removeAll() {
        storage.removeAll(keepingCapacity: true)
        head = 0
        evicted = 0
    }
}

/// The journal as an engine writes it: the ring of entries, and the number the next entry gets.
///
/// ``append(_:)`` is the one place where an entry's `seq` is set. An ``EnginePair`` owns one and hands it
/// to whichever engine decides, so both hops are numbered in one sequence, in the order the decisions
/// were made; an engine driven alone (tests, fuzzing) is handed one by its caller.
public struct JournalLog: Sendable, Equatable {
    public private(set) var journal: Journal
    /// From 1; keeps counting across resets, so that a journal file never repeats a number.
    public private(set) var nextSeq = 1

    public init(capacity: Int = 10_000) {
        journal = Journal(capacity: capacity)
    }

    /// Numbers the entry and keeps it; returns it as kept.
    public mutating func append(_ entry: consuming JournalEntry) -> JournalEntry {
        // Consumed, not borrowed: numbering an entry the caller still held would copy its box.
        entry.seq = nextSeq
        nextSeq += 1
        journal.append(copy entry)  // one retain: the ring and the caller share the box
        return entry
    }

    /// Empties the journal; the sequence goes on.
    public mutating func removeAll() {
        journal.removeAll()
    }
}
