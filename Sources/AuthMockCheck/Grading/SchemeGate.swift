import AuthMockCore

/// A scheme a client sends credentials of, to one hop: `Digest` to the origin, `proxy Basic`.
public struct SchemeUse: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var hop: Hop
    /// The scheme as the RFCs spell it (`Basic`, `Digest`, `NTLM`, `Negotiate`); others as the client sent them.
    public var scheme: String

    public init(hop: Hop, scheme: String) {
        self.hop = hop
        self.scheme = Self.known.first { scheme.equalsIgnoringASCIICase($0) } ?? scheme
    }

    /// The schemes spelled as the RFCs do: authmock's own, and Bearer, which clients send unasked.
    static let known = AuthScheme.allCases.map(\.token) + ["Bearer"]
    /// What `credentials: any` needs: some scheme, whichever, to that hop.
    public static let anyScheme = "*"

    /// Whether credentials of `used` show this use: the same hop and scheme, or any scheme for `*`.
    public func isShown(by used: SchemeUse) -> Bool {
        used.hop == hop && (scheme == Self.anyScheme || used.scheme == scheme)
    }

    /// For sentences: `Digest credentials`, `proxy Basic credentials`, `credentials of any scheme`.
    public var spoken: String {
        guard scheme == Self.anyScheme else { return description + " credentials" }
        return hop == .proxy ? "proxy credentials of any scheme" : "credentials of any scheme"
    }

    /// `Digest`, `proxy Basic`: how reports name it, and how it is stored.
    public var description: String { hop == .proxy ? "proxy \(scheme)" : scheme }

    public init?(_ description: String) {
        let words = description.split(separator: " ")
        switch words.count {
        case 1: self.init(hop: .origin, scheme: String(words[0]))
        case 2 where Hop(rawValue: String(words[0])) == .proxy: self.init(hop: .proxy, scheme: String(words[1]))
        default: return nil
        }
    }

    public static func < (a: SchemeUse, b: SchemeUse) -> Bool { a.description < b.description }
}

/// In reports as its description (`"Digest"`, `"proxy Basic"`), so the JSON reads as the findings do.
extension SchemeUse: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let use = SchemeUse(text) else {
            let context = DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "not a scheme use: '\(text)'"
            )
            throw DecodingError.dataCorrupted(context)
        }
        self = use
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The suite's one rule for `unimplemented`: a case gated on a scheme (its `implemented:` names
/// `credentials: Digest`, or `hop: proxy` with `credentials: Basic`) is `unimplemented` only for a
/// client that sent that scheme to that hop in no case of its run. A client that used the scheme
/// elsewhere has it, so not using it here is judged like any other broken expectation.
///
/// A case's own journal cannot tell, so a case that did not meet its gate keeps both judgements and the
/// suite settles them once every case has run — also across shards merged into one column.
public struct SchemeGate: Sendable, Equatable, Codable {
    /// The schemes the gate names that the case's journal does not show.
    public var needs: [SchemeUse]
    /// The judgement when the client never uses them: normally `unimplemented`.
    public var lacking: Judgement
    /// The judgement when it uses them elsewhere in the run.
    public var having: Judgement

    public init(needs: [SchemeUse], lacking: Judgement, having: Judgement) {
        self.needs = needs.sorted()
        self.lacking = lacking
        self.having = having
    }
}

extension SuiteReport {
    /// Gives every gated case the judgement the whole run's evidence calls for. Idempotent: it starts
    /// from the gates each time, so shards can be merged and settled again.
    public mutating func settleSchemeGates() {
        // Every scheme the run shows, with the first case (in suite order) that shows it.
        var shown: [(use: SchemeUse, id: String)] = []
        for report in cases {
            for use in report.schemesUsed ?? [] where !shown.contains(where: { $0.use == use }) {
                shown.append((use, report.id))
            }
        }
        for index in cases.indices {
            guard let gate = cases[index].gate else { continue }
            let evidence = gate.needs.map { need in shown.first { need.isShown(by: $0.use) } }
            var judgement: Judgement
            if evidence.allSatisfy({ $0 != nil }) {
                judgement = gate.having
                if judgement.verdict != .pass {
                    let cited = evidence.compactMap { $0 }.map { "\($0.use) in `\($0.id)`" }.joined(separator: " and ")
                    let finding = "the client used \(cited) in this run, so it has the scheme and this case is judged"
                    judgement.add(finding: finding, first: true)
                }
            } else {
                judgement = gate.lacking
                if judgement.verdict == .unimplemented {
                    let unused = zip(gate.needs, evidence).filter { $0.1 == nil }.map { $0.0.spoken }
                        .joined(separator: " or ")
                    judgement.add(finding: "no case of this run saw \(unused) from it")
                }
            }
            cases[index].verdict = judgement.verdict
            cases[index].findings = judgement.findings
            cases[index].observations = judgement.observations
            cases[index].quoted = judgement.quoted.isEmpty ? nil : judgement.quoted
            cases[index].evidence = judgement.evidence
        }
    }
}
