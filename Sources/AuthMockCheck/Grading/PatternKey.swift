import AuthMockCore

/// One key of a request pattern (`implemented:`, `met:`, a check's `of:`, `never:`, `after:`, a `sequence:`
/// item), declared once: its name in a case file, how it reads its node, which journal entries it matches,
/// and its words in a finding. ``PatternKeys/all`` is the table of them; the loader's key list and reader,
/// the matcher and the narrator's sentence for a pattern are all made from it.
struct PatternKey: Sendable {
    /// Where a key's words stand in the sentence that says a pattern: first the request ("to the proxy,
    /// with Digest credentials"), then how the engine judged it, then what it answered.
    enum Clause: Int, Comparable {
        case request
        case judgement
        case answer

        static func < (lhs: Clause, rhs: Clause) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// The key in a case file: `credentials`, `nonce-reused`.
    let name: String
    let clause: Clause
    /// Whether TLS connection records (`kind: tls`) have what the key reads; the loader refuses every other
    /// key beside `kind: tls`, where it could match nothing.
    let onTLSRecords: Bool
    private let readValue: @Sendable (ScenarioReader, YAMLNode, String) -> PatternValue?
    private let matchesValue: @Sendable (PatternValue, JournalEntry, EntryMatcher) -> Bool
    private let wordsOfValue: @Sendable (PatternValue, _ authority: String) -> String?

    /// - Parameters:
    ///   - read: the key's value from its node, reporting any problem through the reader (the string names
    ///     the field in diagnostics: `check.of.credentials`); nil after a problem.
    ///   - matches: whether an entry matches the value; the matcher knows the case's authority and body.
    ///   - words: the value for people ("with Digest credentials"), given the case's authority; nil when
    ///     it goes without saying.
    init<Value: Sendable & Equatable>(
        _ name: String, clause: Clause = .request, onTLSRecords: Bool = false,
        read: @escaping @Sendable (ScenarioReader, YAMLNode, String) -> Value?,
        matches: @escaping @Sendable (Value, JournalEntry, EntryMatcher) -> Bool,
        words: @escaping @Sendable (Value, _ authority: String) -> String?
    ) {
        self.name = name
        self.clause = clause
        self.onTLSRecords = onTLSRecords
        readValue = { reader, node, field in read(reader, node, field).map(PatternValue.init) }
        matchesValue = { value, entry, matcher in matches(value.value as! Value, entry, matcher) }
        wordsOfValue = { value, authority in words(value.value as! Value, authority) }
    }

    /// A key that is true or false of an entry (`leak`, `tls`): it matches the entries of which it is what
    /// the pattern says, and `yes` or `no` says it.
    static func flag(
        _ name: String, onTLSRecords: Bool = false, yes: String, no: String,
        of fact: @escaping @Sendable (JournalEntry, EntryMatcher) -> Bool
    ) -> PatternKey {
        PatternKey(
            name, onTLSRecords: onTLSRecords, read: { reader, node, field in reader.bool(node, field) },
            matches: { wanted, entry, matcher in fact(entry, matcher) == wanted },
            words: { wanted, _ in wanted ? yes : no }
        )
    }

    /// Reads the key's node (`field` names it in diagnostics) into `pattern`; a node with a problem is
    /// reported and leaves the pattern as it was.
    func read(_ node: YAMLNode, _ field: String, by reader: ScenarioReader, into pattern: inout EntryPattern) {
        if let value = readValue(reader, node, field) { pattern.set(name, value) }
    }

    /// Whether the entry matches `value`, what a pattern gives this key.
    func matches(_ value: PatternValue, _ entry: JournalEntry, _ matcher: EntryMatcher) -> Bool {
        matchesValue(value, entry, matcher)
    }

    /// What the pattern gives this key, in words; nil when it gives nothing or nothing worth saying.
    func words(for pattern: EntryPattern, authority: String) -> String? {
        pattern.value(of: name).flatMap { wordsOfValue($0, authority) }
    }
}
