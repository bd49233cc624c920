import AuthMockCore

/// The words of a judgement: each finding says what was expected and quotes what the client did, a
/// pattern becomes a phrase, and a journal entry a line. It remembers every entry it quoted (``quoted``),
/// which the report keeps beside the journal's excerpt. ``EntryMatcher`` decides what matched; the narrator
/// only tells.
struct Narrator {
    /// `host:port` of the case's URL: a `Host` other than it is shown, and `authority:` patterns name it.
    let authority: String
    /// The timeout the client had, for the explanation of a hang.
    let timeout: Double
    /// What the server's TLS presented, for people; nil on cleartext cases.
    let shown: String?
    /// The seq of every journal entry a finding quoted.
    var quoted: Set<Int> = []
    /// The seq of every entry the finding being worded counts: the ones it quotes and the ones its text
    /// leaves out (the fifth of twelve retries). ``takeCounted()`` hands them over and starts afresh.
    var counted: Set<Int> = []

    /// The entries counted since the last call, in order; the next finding starts with none.
    mutating func takeCounted() -> [Int] {
        defer { counted = [] }
        return counted.sorted()
    }

    // MARK: - How the client ended

    mutating func hung(_ entries: [JournalEntry]) -> String {
        let requests = entries.filter { $0.exchange > 0 }
        let seen = requests.isEmpty
            ? "no request reached the server)"
            : "\(requests.count) request(s) in the journal, the last:" + quote(requests.suffix(2)) + ")"
        return "expected the client to finish; it was still running after \(Self.seconds(timeout)) and was killed"
            + " — a hang or an endless retry (" + seen
    }

    mutating func killed(by signal: Int32, _ entries: [JournalEntry]) -> String {
        "expected the client to end on its own; it was killed by \(ClientOutcome.describe(signal: signal)), a crash"
            + lastAnswer(entries)
    }

    mutating func crashed(_ crash: String, _ entries: [JournalEntry]) -> String {
        "expected the client to refuse or succeed cleanly; it crashed (\(crash))" + lastAnswer(entries)
    }

    mutating func failed(_ outcome: ClientOutcome, _ entries: [JournalEntry]) -> String {
        "expected the client to succeed (exit 0); it exited \(Self.status(outcome))" + lastAnswer(entries)
    }

    mutating func succeeded(_ entries: [JournalEntry]) -> String {
        "expected the client to report failure (non-zero exit); it exited 0" + lastAnswer(entries)
    }

    // MARK: - Broken rules

    /// A check's finding: what it expected, and what broke it.
    func broken(_ check: Check, _ finding: String) -> String {
        "expected: \(check.that) — \(finding)"
    }

    /// No request matched `pattern` (after `lastMatch`, which matched the pattern before it).
    mutating func unmatched(
        _ pattern: EntryPattern, after lastMatch: JournalEntry?, _ entries: [JournalEntry]
    ) -> String {
        let requests = entries.filter { $0.exchange > 0 }
        counted.formUnion(requests.map(\.seq))
        var text = "no request was \(describe(pattern))"
        if let lastMatch {
            text += " after #\(lastMatch.seq)"
            quoted.insert(lastMatch.seq)
        }
        if requests.isEmpty { return text + "; no request reached the server" }
        return text + "; the client sent:" + quote(requests.prefix(6))
            + (requests.count > 6 ? " … (\(requests.count) requests)" : "")
    }

    /// No request matched the pattern a count starts after.
    func nothingToCountAfter(_ after: EntryPattern) -> String {
        "no request was \(describe(after)), after which to count"
    }

    mutating func tooMany(
        _ matched: [JournalEntry], _ pattern: EntryPattern, after: EntryPattern?, max: Int
    ) -> String {
        counted.formUnion(matched.map(\.seq))
        let what = max == 0 ? "none expected" : "at most \(max) expected"
        return "\(matched.count) request(s) \(describe(pattern))\(scope(after)), \(what):"
            + quote(matched.prefix(4)) + (matched.count > 4 ? " …" : "")
    }

    mutating func tooFew(
        _ matched: [JournalEntry], _ pattern: EntryPattern, after: EntryPattern?, min: Int
    ) -> String {
        counted.formUnion(matched.map(\.seq))
        return "\(matched.count) request(s) \(describe(pattern))\(scope(after)), at least \(min) expected"
            + (matched.isEmpty ? "" : ":" + quote(matched.prefix(4)))
    }

    private func scope(_ after: EntryPattern?) -> String {
        after.map { " after the first request \(describe($0))" } ?? ""
    }

    mutating func leaked(_ leaking: [JournalEntry]) -> String {
        counted.formUnion(leaking.map(\.seq))
        return "expected no credential to leave the case's authority; the journal recorded a leak elsewhere:"
            + quote(leaking.prefix(3)) + (leaking.count > 3 ? " … (\(leaking.count) requests)" : "")
    }

    // MARK: - Why the case is unimplemented

    func unreached() -> String {
        "the client never reached the server (no connection, no request), so it showed none of the case's behaviour"
    }

    func unmet(_ finding: String) -> String {
        "the client never met what the case is about — \(finding)"
    }

    mutating func lacking(_ pattern: EntryPattern, _ entries: [JournalEntry]) -> String {
        "the client never sent a request \(describe(pattern)): it lacks the feature, or was not given the inputs"
            + lastAnswer(entries)
    }

    // MARK: - Words

    /// A pattern for people: "with Digest credentials, algorithm SHA-256, answered 200".
    func describe(_ pattern: EntryPattern) -> String {
        let parts = PatternKeys.inSentenceOrder.compactMap { $0.words(for: pattern, authority: authority) }
        return parts.isEmpty ? "any request" : parts.joined(separator: ", ")
    }

    mutating func quote(_ entries: some Sequence<JournalEntry>) -> String {
        var text = ""
        for entry in entries {
            quoted.insert(entry.seq)
            counted.insert(entry.seq)
            text += " " + Self.summary(entry, authority: authority) + ";"
        }
        return String(text.dropLast())
    }

    mutating func lastAnswer(_ entries: [JournalEntry]) -> String {
        guard let last = entries.last(where: { $0.exchange > 0 || $0.requests != nil }) else {
            return "; no request reached the server"
        }
        return "; last in the journal:" + quote([last])
    }

    /// One journal entry in a line: `#3 GET / [Digest alice, SHA-256] → 401 digest.stale-nonce`.
    /// The `Host` is shown when it is not `authority` (the case's own).
    static func summary(_ entry: JournalEntry, authority: String? = nil) -> String {
        if entry.requests != nil {
            return "#\(entry.seq) " + (entry.hop == .proxy ? "proxy " : "")
                + "TLS connection \(entry.connection): \(entry.verdict)"
                + (entry.detail.map { " (\($0))" } ?? "")
        }
        var text = "#\(entry.seq) " + (entry.hop.map { $0 == .origin ? "" : "\($0.rawValue) " } ?? "")
        if entry.hop == .socks5, entry.method == nil {
            text += "handshake"
        } else {
            text += "\(entry.method ?? "?") \(entry.target ?? "?")"
        }
        if let scheme = entry.presentedScheme {
            var words = [scheme]
            if let user = entry.credentials?.user, !user.isEmpty { words.append(user) }
            if let algorithm = entry.credentials?.params?["algorithm"] { words.append(algorithm) }
            if let nc = entry.credentials?.params?["nc"] { words.append("nc=\(nc)") }
            text += " [\(words.joined(separator: " "))]"
        }
        if let host = entry.headers.first(where: { $0.name.lowercased() == "host" })?.value,
            host.lowercased() != authority
        {
            text += " Host: \(host)"
        }
        if let cookies = entry.cookies, !cookies.isEmpty { text += " Cookie: " + cookies.joined(separator: ", ") }
        if let stream = entry.stream { text += " (h2 stream \(stream))" }
        if let socks = entry.socks5 {
            text += " → " + (socks.reply.map { "REP \($0) " } ?? "") + "\(entry.verdict)"
        } else {
            text += entry.reset.map { " → RST_STREAM \($0) \(entry.verdict)" } ?? " → \(entry.status) \(entry.verdict)"
        }
        // Served without credentials on a connection NTLM authenticated: as whom.
        if let user = entry.connectionUser { text += " as \(user)" }
        if let leaks = entry.leaks, !leaks.isEmpty { text += " LEAK: " + leaks.joined(separator: ", ") }
        if let hostile = entry.hostile {
            text += " (hostile: \(hostile.prefix(120))\(hostile.count > 120 ? "…" : ""))"
        }
        return text
    }

    static func status(_ outcome: ClientOutcome) -> String {
        outcome.exitStatus.map(String.init) ?? "without a status"
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
