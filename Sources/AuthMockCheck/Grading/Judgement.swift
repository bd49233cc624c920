/// A case's grade, from best to worst as Autobahn|Testsuite orders them, plus the runner's own.
public enum CaseVerdict: String, Sendable, Equatable, Codable, CaseIterable {
    case pass
    /// A SHOULD broken.
    case nonStrict = "non-strict"
    /// What the client chose where no RFC decides.
    case informational
    /// The client lacks the feature the case exercises.
    case unimplemented
    /// A MUST broken, a credential leaked, a loop, a request after a failed trust or pin check.
    case fail
    /// The runner or the scenario broke; never blamed on the client.
    case error
    /// The client said it lacks a feature the case needs (`--skip-feature`, its profile).
    case skip
}

/// What the judge concluded about one case.
public struct Judgement: Sendable, Equatable, Codable {
    public var verdict: CaseVerdict
    /// For each broken expectation: what was expected, what the client did, quoting the journal.
    public var findings: [String]
    /// What informational checks saw.
    public var observations: [String]
    /// The journal entries the findings quote, by seq.
    public var quoted: [Int]
    /// Per finding, in the same order, the seq of every entry it counts: the ones its text quotes and the
    /// ones it leaves out. nil when there is no finding.
    public var evidence: [[Int]]?

    public init(
        verdict: CaseVerdict, findings: [String] = [], observations: [String] = [], quoted: [Int] = [],
        evidence: [[Int]]? = nil
    ) {
        self.verdict = verdict
        self.findings = findings
        self.observations = observations
        self.quoted = quoted
        self.evidence = evidence
    }

    /// Adds a finding that counts no entry of its own (a note on the judgement), first or last, keeping
    /// ``evidence`` in step with ``findings``.
    public mutating func add(finding: String, first: Bool = false) {
        var counts = evidence ?? Array(repeating: [], count: findings.count)
        findings.insert(finding, at: first ? 0 : findings.count)
        counts.insert([], at: first ? 0 : counts.count)
        evidence = counts
    }
}
