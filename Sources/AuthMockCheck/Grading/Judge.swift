public import AuthMockCore

/// Judges a client from the journal of its run and its exit status. Pure: the same journal always gives
/// the same judgement. The judge weighs; ``EntryMatcher`` says which requests match the case's patterns and
/// rules, and ``Narrator`` says in words what was expected and what the client did.
public struct Judge: Sendable {
    public var expectations: Expectations
    /// `host:port` of the URL the client was given; requests elsewhere have `authority: other`.
    public var authority: String
    /// Lower-case hex SHA-256 of the body the client was asked to send.
    public var bodySHA256: String?
    /// The timeout the client had, for the explanation of a hang.
    public var timeout: Double
    /// What the server's TLS presented, for people ("a certificate that expired yesterday"); nil on
    /// cleartext cases.
    public var shown: String?
    /// Header names the client's profile declares as credentials (`credential-headers:`), besides those the
    /// journal marks; lower-cased.
    public var credentialHeaders: Set<String>

    public init(
        expectations: Expectations, authority: String, bodySHA256: String? = nil, timeout: Double = 10,
        shown: String? = nil, credentialHeaders: [String] = []
    ) {
        self.expectations = expectations
        self.authority = authority.lowercased()
        self.bodySHA256 = bodySHA256
        self.timeout = timeout
        self.shown = shown
        self.credentialHeaders = Set(credentialHeaders.map { $0.lowercased() })
    }

    var matcher: EntryMatcher {
        EntryMatcher(authority: authority, bodySHA256: bodySHA256, credentialHeaders: credentialHeaders)
    }

    var narrator: Narrator { Narrator(authority: authority, timeout: timeout, shown: shown) }

    /// - Parameter implementedAnyway: judge as if the `implemented:` gate were met — the judgement for a
    ///   client known from the rest of its run to have the schemes this journal lacks (see ``SchemeGate``).
    public func judge(_ journal: [JournalEntry], outcome: ClientOutcome, implementedAnyway: Bool = false) -> Judgement {
        let entries = journal.sorted { $0.seq < $1.seq }
        let matcher = self.matcher
        var narrator = self.narrator
        let missing = implementedAnyway
            ? nil : expectations.implemented.first { !matcher.any(entries, matches: $0) }
        // What no knowledge of the rest of the run can make up for: the client reached the server, and met
        // the situation the case is about.
        narrator.counted = []
        let unmet = situationUnmet(entries, &narrator).map { ($0, narrator.takeCounted()) }
        let implemented = missing == nil && unmet == nil

        var failures: [(Grade, String, [Int])] = []
        narrator.counted = []
        if let failure = outcomeFailure(outcome, entries, implemented: implemented, &narrator) {
            failures.append((failure.0, failure.1, narrator.takeCounted()))
        }
        var observations: [String] = []
        failures += checkFailures(entries, implemented: implemented, &narrator, observations: &observations)
        narrator.counted = []
        if let leak = leakFailure(entries, &narrator) { failures.append((.fail, leak, narrator.takeCounted())) }

        let verdict = self.verdict(worst: failures.map(\.0).max(), implemented: implemented)
        var found = failures.sorted { $0.0 > $1.0 }.map { ($0.1, $0.2) }
        // Where TLS is part of the story, say what the client was shown and what it did with it.
        let observesTLS = expectations.checks.contains { $0.rule == .observe(.tlsConnections) }
        narrator.counted = []
        if verdict != .pass, !observesTLS, let story = narrator.tlsStory(entries) {
            found.append((story, narrator.takeCounted()))
        }
        if verdict == .unimplemented, let unmet {
            found.insert(unmet, at: 0)
        } else if verdict == .unimplemented, let pattern = missing {
            narrator.counted = []
            found.insert((narrator.lacking(pattern, entries), narrator.takeCounted()), at: 0)
        }
        return Judgement(
            verdict: verdict, findings: found.map(\.0), observations: observations,
            quoted: narrator.quoted.sorted(), evidence: found.isEmpty ? nil : found.map(\.1)
        )
    }

    /// Why the client cannot have shown the case's behaviour, whatever it did elsewhere: it never reached the
    /// server, or never met what `met:` names. nil when it did both.
    private func situationUnmet(_ entries: [JournalEntry], _ narrator: inout Narrator) -> String? {
        guard entries.contains(where: { $0.exchange > 0 || $0.requests != nil }) else { return narrator.unreached() }
        guard !expectations.met.isEmpty, let unmatched = matcher.unmatched(expectations.met, in: entries) else {
            return nil
        }
        let finding = narrator.unmatched(unmatched.pattern, after: unmatched.after, entries)
        return narrator.unmet(finding)
    }

    /// What is wrong with how the client ended: a hang or a crash whatever the case asked, or an exit status
    /// other than the case's `outcome:` (only when the client has what the case exercises), weighed by its
    /// `outcome-grade:`.
    private func outcomeFailure(
        _ outcome: ClientOutcome, _ entries: [JournalEntry], implemented: Bool, _ narrator: inout Narrator
    ) -> (Grade, String)? {
        if outcome.timedOut { return (.fail, narrator.hung(entries)) }
        // A crash is wrong whatever the case asked: no expectation makes it right.
        if let signal = outcome.signal { return (.fail, narrator.killed(by: signal, entries)) }
        // An uncaught exception is no refusal, whatever the exit status looks like.
        if let crash = outcome.crash { return (.fail, narrator.crashed(crash, entries)) }
        guard implemented else { return nil }
        let ok = outcome.exitStatus == 0
        switch expectations.outcome {
        case .success where !ok: return (expectations.outcomeGrade, narrator.failed(outcome, entries))
        case .failure where ok: return (expectations.outcomeGrade, narrator.succeeded(entries))
        default: return nil
        }
    }

    /// The checks' broken expectations, each with its grade; what the observe checks saw goes to
    /// `observations`.
    private func checkFailures(
        _ entries: [JournalEntry], implemented: Bool, _ narrator: inout Narrator, observations: inout [String]
    ) -> [(Grade, String, [Int])] {
        var failures: [(Grade, String, [Int])] = []
        for check in expectations.checks {
            narrator.counted = []
            switch check.rule {
            case .observe(let observation):
                observations.append("\(check.that): \(narrator.observe(observation, entries))")
            case .sequence(let patterns):
                // Without the feature there is nothing to sequence; the verdict says unimplemented.
                guard implemented, let unmatched = matcher.unmatched(patterns, in: entries) else { continue }
                let finding = narrator.unmatched(unmatched.pattern, after: unmatched.after, entries)
                failures.append((check.grade, narrator.broken(check, finding), narrator.takeCounted()))
            case .count(let pattern, let min, let max, let after):
                // Without the feature only upper bounds (loops, leaks) still mean something.
                if !implemented, max == nil { continue }
                let min = implemented ? min : nil
                if let finding = countFinding(pattern, min: min, max: max, after: after, entries, &narrator) {
                    failures.append((check.grade, narrator.broken(check, finding), narrator.takeCounted()))
                }
            }
        }
        return failures
    }

    private func countFinding(
        _ pattern: EntryPattern, min: Int?, max: Int?, after: EntryPattern?, _ entries: [JournalEntry],
        _ narrator: inout Narrator
    ) -> String? {
        guard let matched = matcher.counted(pattern, after: after, in: entries) else {
            guard min != nil, let after else { return nil }
            return narrator.nothingToCountAfter(after)
        }
        if let max, matched.count > max { return narrator.tooMany(matched, pattern, after: after, max: max) }
        if let min, matched.count < min { return narrator.tooFew(matched, pattern, after: after, min: min) }
        return nil
    }

    /// A leak the journal recorded where the case's URL does not point (a credential that followed a
    /// redirect elsewhere) fails every case, like a crash: no expectation makes it right. A case with its
    /// own leak check words the finding itself; at the case's own authority a header the application set
    /// (Proxy-Authorization without a proxy) is the application's choice, judged by the cases about it.
    private func leakFailure(_ entries: [JournalEntry], _ narrator: inout Narrator) -> String? {
        let leaking = matcher.leaksElsewhere(entries)
        let checksLeaks = expectations.checks.contains { check in
            if case .count(let pattern, _, _, _) = check.rule { pattern.leak == true } else { false }
        }
        return leaking.isEmpty || checksLeaks ? nil : narrator.leaked(leaking)
    }

    /// The worst broken expectation decides; without the feature, only a broken `fail` outranks
    /// `unimplemented`.
    private func verdict(worst: Grade?, implemented: Bool) -> CaseVerdict {
        switch worst {
        case .fail?: return .fail
        case _ where !implemented: return .unimplemented
        case .nonStrict?: return .nonStrict
        case .informational?: return .informational
        case nil:
            // A case that only observes is informational; elsewhere observations annotate a pass.
            let judges = expectations.outcome != .any
                || expectations.checks.contains { if case .observe = $0.rule { false } else { true } }
            return judges ? .pass : .informational
        }
    }

    // MARK: - For the runner and the reports

    /// The schemes this case's `implemented:` gate names that its own journal does not show: empty when the
    /// journal shows them all. A client that has them (from the rest of its run) but did not use them here
    /// failed at the scheme, before any later part of the gate (a redirect to follow) could be reached.
    public func openSchemes(_ journal: [JournalEntry]) -> [SchemeUse] {
        let matcher = self.matcher
        return expectations.implemented.filter { !matcher.any(journal, matches: $0) }.compactMap(\.schemeUse)
    }

    /// Every scheme the journal shows credentials of, per hop: the evidence a ``SchemeGate`` is settled on.
    public static func schemesUsed(_ journal: [JournalEntry]) -> Set<SchemeUse> {
        EntryMatcher.schemesUsed(journal)
    }

    public func matches(_ pattern: EntryPattern, _ entry: JournalEntry) -> Bool {
        matcher.matches(pattern, entry)
    }

    /// A pattern for people: "with Digest credentials, algorithm SHA-256, answered 200".
    public func describe(_ pattern: EntryPattern) -> String {
        narrator.describe(pattern)
    }

    /// Each TLS connection in a sentence (see ``Narrator/tlsStory(_:)``); the entries it names are added to
    /// `quoted`.
    public func tlsStory(_ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String? {
        var narrator = self.narrator
        narrator.quoted = quoted
        defer { quoted = narrator.quoted }
        return narrator.tlsStory(entries)
    }

    /// One journal entry in a line: `#3 GET / [Digest alice, SHA-256] → 401 digest.stale-nonce`.
    /// The `Host` is shown when it is not `authority` (the case's own).
    public static func summary(_ entry: JournalEntry, authority: String? = nil) -> String {
        Narrator.summary(entry, authority: authority)
    }
}
