import AuthMockCore

/// The matching half of the judge: which journal entries a pattern matches, and how far a journal meets a
/// case's rules. It says what matched and what did not; ``Narrator`` puts that into words.
struct EntryMatcher: Sendable {
    /// `host:port` of the URL the client was given, lower-cased; requests elsewhere have `authority: other`.
    var authority: String
    /// Lower-case hex SHA-256 of the body the client was asked to send.
    var bodySHA256: String?
    /// Header names the client's profile declares as credentials, besides those the journal marks;
    /// lower-cased.
    var credentialHeaders: Set<String>

    /// Whether the entry matches every key the pattern sets, each as ``PatternKeys/all`` declares it.
    func matches(_ pattern: EntryPattern, _ entry: JournalEntry) -> Bool {
        pattern.values.allSatisfy { name, value in PatternKeys.named[name]!.matches(value, entry, self) }
    }

    /// Whether some entry matches the pattern.
    func any(_ entries: [JournalEntry], matches pattern: EntryPattern) -> Bool {
        entries.contains { matches(pattern, $0) }
    }

    // MARK: - Rules over a journal

    /// Where a journal stops following patterns that must match in this order (other entries may come
    /// between): the first pattern no later entry matches, and the entry that matched the one before it.
    /// nil when every pattern is matched.
    func unmatched(
        _ patterns: [EntryPattern], in entries: [JournalEntry]
    ) -> (pattern: EntryPattern, after: JournalEntry?)? {
        var next = 0
        var lastMatch: JournalEntry?
        for entry in entries where next < patterns.count {
            if matches(patterns[next], entry) {
                next += 1
                lastMatch = entry
            }
        }
        return next < patterns.count ? (patterns[next], lastMatch) : nil
    }

    /// The entries that match `pattern`, after the first entry that matches `after` when given; nil when no
    /// entry matches `after`, so that there is nothing to count.
    func counted(_ pattern: EntryPattern, after: EntryPattern?, in entries: [JournalEntry]) -> [JournalEntry]? {
        var candidates = entries[...]
        if let after {
            guard let start = entries.firstIndex(where: { matches(after, $0) }) else { return nil }
            candidates = entries[(start + 1)...]
        }
        return candidates.filter { matches(pattern, $0) }
    }

    /// The entries that recorded a leak where the case's URL does not point (a credential that followed a
    /// redirect elsewhere).
    func leaksElsewhere(_ entries: [JournalEntry]) -> [JournalEntry] {
        entries.filter { $0.leaks?.isEmpty == false && $0.destination?.lowercased() != authority }
    }

    /// Every scheme the journal shows credentials of, per hop: the evidence a ``SchemeGate`` is settled on.
    static func schemesUsed(_ journal: [JournalEntry]) -> Set<SchemeUse> {
        Set(journal.filter { $0.exchange > 0 }.compactMap { entry in
            entry.presentedScheme.flatMap { $0 == "(empty)" ? nil : SchemeUse(hop: entry.hop ?? .origin, scheme: $0) }
        })
    }

    // MARK: - Facts the keys compare

    /// Whether a request carried a credential in any header (or in the header `name`): one the journal
    /// marks, or one the profile declares.
    func carriesCredentialHeader(_ entry: JournalEntry, named name: String? = nil) -> Bool {
        entry.headers.contains { header in
            (name.map { header.name.equalsIgnoringASCIICase($0) } ?? true)
                && (header.credential == true || credentialHeaders.contains(header.name.lowercased()))
        }
    }

    /// Whether a verdict's name is the one a pattern names, or starts with its prefix (`digest.*`).
    static func verdict(_ name: String, matches pattern: String) -> Bool {
        pattern.hasSuffix("*") ? name.hasPrefix(pattern.dropLast()) : name == pattern
    }
}

/// What the grading reads of a journal entry besides its fields.
extension JournalEntry {
    /// The auth-scheme of the credentials the request carried for its hop: as the engine read them, or
    /// from the header itself where the engine did not read it (a public resource, a 404); `(empty)` for a
    /// header with no scheme.
    var presentedScheme: String? {
        if let scheme = credentials?.scheme, !scheme.isEmpty { return scheme }
        guard let value = header((hop ?? .origin).credentialsHeader) else { return nil }
        let scheme = Engine.leadingToken(value)
        return scheme.isEmpty ? "(empty)" : scheme
    }

    /// The parameters of the credentials as the engine read them (`algorithm`, `qop`, `nc`…).
    var credentialParameters: [String: String] { credentials?.params ?? [:] }

    /// The Digest nonce count (`nc`), when the credentials carry one.
    var nonceCount: UInt32? {
        credentials?.params?["nc"].flatMap { UInt32($0, radix: 16) }
    }

    /// Where the request was going: its `Host`, or for the proxy the target's host and port.
    var destination: String? {
        if hop == .proxy, let target {
            if method == "CONNECT" { return target }
            if let schemeEnd = target.firstRange(of: "://") {
                return String(target[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" })
            }
        }
        return headers.first { $0.name.lowercased() == "host" }?.value
    }
}
