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

    public init(verdict: CaseVerdict, findings: [String] = [], observations: [String] = [], quoted: [Int] = []) {
        self.verdict = verdict
        self.findings = findings
        self.observations = observations
        self.quoted = quoted
    }
}
