public import AuthMockCore
internal import Foundation

/// Judges a client from the journal of its run and its exit status. Pure: the same journal always gives
/// the same judgement.
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
        expectations: Expectations, authority: String, bodySHA256: String? = nil, timeout: Double = 10, shown: String? = nil,
        credentialHeaders: [String] = []
    ) {
        self.expectations = expectations
        self.authority = authority.lowercased()
        self.bodySHA256 = bodySHA256
        self.timeout = timeout
        self.shown = shown
        self.credentialHeaders = Set(credentialHeaders.map { $0.lowercased() })
    }

    /// - Parameter implementedAnyway: judge as if the `implemented:` gate were met — the judgement for a
    ///   client known from the rest of its run to have the schemes this journal lacks (see ``SchemeGate``).
    public func judge(_ journal: [JournalEntry], outcome: ClientOutcome, implementedAnyway: Bool = false) -> Judgement {
        let entries = journal.sorted { $0.seq < $1.seq }
        var failures: [(Grade, String)] = []
        var quoted: Set<Int> = []
        var observations: [String] = []

        let missing = implementedAnyway ? nil : expectations.implemented.first { pattern in !entries.contains { matches(pattern, $0) } }
        // What no knowledge of the rest of the run can make up for: the client reached the server, and met
        // the situation the case is about.
        let unmet = situationUnmet(entries, &quoted)
        let implemented = missing == nil && unmet == nil

        if outcome.timedOut {
            let requests = entries.filter { $0.exchange > 0 }
            failures.append((
                .fail,
                "expected the client to finish; it was still running after \(Self.seconds(timeout)) and was killed — a hang or an endless retry ("
                    + (requests.isEmpty ? "no request reached the server)" : "\(requests.count) request(s) in the journal, the last:" + quote(requests.suffix(2), into: &quoted) + ")")
            ))
        } else if let signal = outcome.signal {
            // A crash is wrong whatever the case asked: no expectation makes it right.
            failures.append((.fail, "expected the client to end on its own; it was killed by \(ClientOutcome.describe(signal: signal)), a crash" + lastAnswer(entries, &quoted)))
        } else if let crash = outcome.crash {
            // An uncaught exception is no refusal, whatever the exit status looks like.
            failures.append((.fail, "expected the client to refuse or succeed cleanly; it crashed (\(crash))" + lastAnswer(entries, &quoted)))
        } else if implemented {
            let ok = outcome.exitStatus == 0
            switch expectations.outcome {
            case .success where !ok:
                failures.append((.fail, "expected the client to succeed (exit 0); it exited \(Self.status(outcome))" + lastAnswer(entries, &quoted)))
            case .failure where ok:
                failures.append((.fail, "expected the client to report failure (non-zero exit); it exited 0" + lastAnswer(entries, &quoted)))
            default:
                break
            }
        }

        for check in expectations.checks {
            switch check.rule {
            case .observe(let observation):
                observations.append("\(check.that): \(observe(observation, entries))")
            case .sequence(let patterns):
                // Without the feature there is nothing to sequence; the verdict says unimplemented.
                guard implemented else { continue }
                if let finding = sequenceFinding(patterns, entries, &quoted) {
                    failures.append((check.grade, "expected: \(check.that) — \(finding)"))
                }
            case .count(let pattern, let min, let max, let after):
                // Without the feature only upper bounds (loops, leaks) still mean something.
                if !implemented, max == nil { continue }
                if let finding = countFinding(pattern, min: implemented ? min : nil, max: max, after: after, entries, &quoted) {
                    failures.append((check.grade, "expected: \(check.that) — \(finding)"))
                }
            }
        }

        // A leak the journal recorded where the case's URL does not point (a credential that followed a
        // redirect elsewhere) fails every case, like a crash: no expectation makes it right. A case with its
        // own leak check words the finding itself; at the case's own authority a header the application set
        // (Proxy-Authorization without a proxy) is the application's choice, judged by the cases about it.
        let leaking = entries.filter { $0.leaks?.isEmpty == false && Self.authority(of: $0)?.lowercased() != authority }
        let checksLeaks = expectations.checks.contains { check in
            if case .count(let pattern, _, _, _) = check.rule { pattern.leak == true } else { false }
        }
        if !leaking.isEmpty, !checksLeaks {
            failures.append((
                .fail, "expected no credential to leave the case's authority; the journal recorded a leak elsewhere:" + quote(leaking.prefix(3), into: &quoted)
                    + (leaking.count > 3 ? " … (\(leaking.count) requests)" : "")
            ))
        }

        let verdict = self.verdict(worst: failures.map(\.0).max(), implemented: implemented)
        var findings = failures.sorted { $0.0 > $1.0 }.map(\.1)
        // Where TLS is part of the story, say what the client was shown and what it did with it.
        let observesTLS = expectations.checks.contains { $0.rule == .observe(.tlsConnections) }
        if verdict != .pass, !observesTLS, let story = tlsStory(entries, &quoted) { findings.append(story) }
        if verdict == .unimplemented, let unmet {
            findings.insert(unmet, at: 0)
        } else if verdict == .unimplemented, let pattern = missing {
            findings.insert("the client never sent a request \(describe(pattern)): it lacks the feature, or was not given the inputs" + lastAnswer(entries, &quoted), at: 0)
        }
        return Judgement(verdict: verdict, findings: findings, observations: observations, quoted: quoted.sorted())
    }

    /// Why the client cannot have shown the case's behaviour, whatever it did elsewhere: it never reached the
    /// server, or never met what `met:` names. nil when it did both.
    private func situationUnmet(_ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String? {
        guard entries.contains(where: { $0.exchange > 0 || $0.requests != nil }) else {
            return "the client never reached the server (no connection, no request), so it showed none of the case's behaviour"
        }
        guard !expectations.met.isEmpty, let finding = sequenceFinding(expectations.met, entries, &quoted) else { return nil }
        return "the client never met what the case is about — \(finding)"
    }

    /// The schemes this case's `implemented:` gate names that its own journal does not show: empty when the
    /// journal shows them all. A client that has them (from the rest of its run) but did not use them here
    /// failed at the scheme, before any later part of the gate (a redirect to follow) could be reached.
    public func openSchemes(_ journal: [JournalEntry]) -> [SchemeUse] {
        expectations.implemented.filter { pattern in !journal.contains { matches(pattern, $0) } }.compactMap(\.schemeUse)
    }

    /// Every scheme the journal shows credentials of, per hop: the evidence a ``SchemeGate`` is settled on.
    public static func schemesUsed(_ journal: [JournalEntry]) -> Set<SchemeUse> {
        Set(journal.filter { $0.exchange > 0 }.compactMap { entry in
            presentedScheme(entry).flatMap { $0 == "(empty)" ? nil : SchemeUse(hop: entry.hop ?? .origin, scheme: $0) }
        })
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
            let judges = expectations.outcome != .any || expectations.checks.contains { if case .observe = $0.rule { false } else { true } }
            return judges ? .pass : .informational
        }
    }

    // MARK: - Rules

    func sequenceFinding(_ patterns: [EntryPattern], _ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String? {
        var next = 0
        var lastMatch: JournalEntry?
        for entry in entries where next < patterns.count {
            if matches(patterns[next], entry) {
                next += 1
                lastMatch = entry
            }
        }
        guard next < patterns.count else { return nil }
        let requests = entries.filter { $0.exchange > 0 }
        var text = "no request was \(describe(patterns[next]))"
        if let lastMatch {
            text += " after #\(lastMatch.seq)"
            quoted.insert(lastMatch.seq)
        }
        if requests.isEmpty { return text + "; no request reached the server" }
        return text + "; the client sent:" + quote(requests.prefix(6), into: &quoted)
            + (requests.count > 6 ? " … (\(requests.count) requests)" : "")
    }

    private func countFinding(
        _ pattern: EntryPattern, min: Int?, max: Int?, after: EntryPattern?, _ entries: [JournalEntry], _ quoted: inout Set<Int>
    ) -> String? {
        var candidates = entries[...]
        if let after {
            guard let start = entries.firstIndex(where: { matches(after, $0) }) else {
                return min.map { _ in "no request was \(describe(after)), after which to count" }
            }
            candidates = entries[(start + 1)...]
        }
        let matched = candidates.filter { matches(pattern, $0) }
        let scope = after.map { " after the first request \(describe($0))" } ?? ""
        if let max, matched.count > max {
            let what = max == 0 ? "none expected" : "at most \(max) expected"
            return "\(matched.count) request(s) \(describe(pattern))\(scope), \(what):"
                + quote(matched.prefix(4), into: &quoted) + (matched.count > 4 ? " …" : "")
        }
        if let min, matched.count < min {
            return "\(matched.count) request(s) \(describe(pattern))\(scope), at least \(min) expected"
                + (matched.isEmpty ? "" : ":" + quote(matched.prefix(4), into: &quoted))
        }
        return nil
    }

    func lastAnswer(_ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String {
        guard let last = entries.last(where: { $0.exchange > 0 || $0.requests != nil }) else { return "; no request reached the server" }
        return "; last in the journal:" + quote([last], into: &quoted)
    }
}
