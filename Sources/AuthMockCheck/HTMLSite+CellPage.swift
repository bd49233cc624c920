import AuthMockCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A cell's page: the case, its expectations and how each fared, the client's run, the journal.
extension HTMLSite {
    /// Where an expectation stands after the run.
    enum State: Equatable {
        case held
        /// What the client did instead (the finding after its `expected: … —`).
        case broken(String)
        /// Why it was not judged.
        case notJudged(String)
        /// What an informational check saw.
        case observed(String)
    }

    struct Row: Equatable {
        var that: String
        var grade: String?
        var state: State
    }

    /// The case's expectations, each with how it fared: a check is broken when a finding begins with
    /// `expected: <that> —` (the judge's own wording).
    static func rows(_ definition: CaseDefinition, _ report: CaseReport) -> [Row] {
        let expectations = definition.expectations
        let timedOut = report.outcome?.timedOut ?? false
        func notJudgedReason() -> String? {
            switch report.verdict {
            case .skip: "the case was skipped"
            case .error: "the runner could not judge the case"
            default: nil
            }
        }
        let lacking = report.verdict == .unimplemented ? "the client never sent what the case exercises" : nil
        var rows: [Row] = []

        let outcome: (that: String, prefix: String)? =
            switch expectations.outcome {
            case .success:
                ("the client succeeds (exit status 0)", "expected the client to succeed")
            case .failure:
                ("the client reports the failure (non-zero exit status)", "expected the client to report failure")
            case .any:
                nil
            }
        if let outcome {
            let state: State
            if let reason = notJudgedReason() ?? lacking {
                state = .notJudged(reason)
            } else if timedOut {
                state = .notJudged("the client did not finish: it was killed after its timeout")
            } else if let finding = report.findings.first(where: { $0.hasPrefix(outcome.prefix) }) {
                state = .broken(finding)
            } else {
                state = .held
            }
            rows.append(Row(that: outcome.that, grade: Grade.fail.rawValue, state: state))
        }

        for check in expectations.checks {
            let state: State
            if let reason = notJudgedReason() {
                state = .notJudged(reason)
            } else if case .observe = check.rule {
                let prefix = check.that + ": "
                state =
                    report.observations.first { $0.hasPrefix(prefix) }
                    .map { .observed(String($0.dropFirst(prefix.count))) } ?? .notJudged("nothing observed")
            } else {
                let prefix = "expected: \(check.that) — "
                if let finding = report.findings.first(where: { $0.hasPrefix(prefix) }) {
                    state = .broken(String(finding.dropFirst(prefix.count)))
                } else if let lacking, !judgedWithoutFeature(check.rule) {
                    state = .notJudged(lacking)
                } else {
                    state = .held
                }
            }
            let grade: String? = if case .observe = check.rule { nil } else { check.grade.rawValue }
            rows.append(Row(that: check.that, grade: grade, state: state))
        }
        return rows
    }

    /// The checks the judge applies even to a client without the feature: upper bounds (loops, leaks).
    static func judgedWithoutFeature(_ rule: Check.Rule) -> Bool {
        if case .count(_, _, let max, _) = rule { return max != nil }
        return false
    }

    /// Where a cell page sits: its client's run, its neighbours in that run, the same case elsewhere.
    struct CellContext {
        var suite: SuiteReport
        var siteTitle: String
        var previous: String?
        var next: String?
        /// The other clients' verdicts on the same case, in column order.
        var others: [(client: String, verdict: CaseVerdict)] = []
    }

    static func cellPage(
        _ report: CaseReport, context: CellContext, definition: CaseDefinition?, definitionsGiven: Bool,
        note: ClientProfile.CellNote? = nil
    ) -> String {
        let root = "../../"
        let suite = context.suite
        var body = navigation(report, context)
        body += "<header>\n<h1><code>\(escape(report.id))</code> — \(escape(report.title))</h1>\n"
        let reference = report.reference ?? definition?.reference
        if let reference { body += "<p class=\"reference\">Reference: \(linked(reference))</p>\n" }
        body += "<p class=\"client\">Client: <strong>\(escape(suite.client))</strong>"
        if let version = suite.version { body += " <span class=\"version\">\(escape(version))</span>" }
        body += "</p>\n<div class=\"verdict-line\">\(badge(report.verdict))"
        if let decisive = decisive(report) {
            body +=
                " <p class=\"decisive\">\(linked(sentence(report.findings[decisive])))"
                + " <a href=\"#finding-\(decisive + 1)\" class=\"muted\">(finding \(decisive + 1))</a></p>"
        }
        body += "</div>\n</header>\n"
        body += findings(report)
        if let note { body += why(note, report) }

        body += "<section class=\"expectations\">\n<h2>Expectations</h2>\n"
        if let definition {
            body += expectations(definition, report)
        } else {
            body +=
                definitionsGiven
                ? "<p class=\"muted\">This case is not in the suite the report was rendered with: "
                    + "its expectations are not listed.</p>\n"
                : "<p class=\"muted\">The report was rendered without the suite's case files: "
                    + "the expectations are not listed. The findings above name every broken one.</p>\n"
        }
        body += "</section>\n"
        body += reproduce(report, suite: suite)
        body += run(report)
        body += journal(report)
        return page(title: "\(suite.client) · \(report.id) — \(context.siteTitle)", root: root, body: body)
    }

    /// Back to the index, to the client's previous and next case, and to the same case's other clients.
    static func navigation(_ report: CaseReport, _ context: CellContext) -> String {
        let root = "../../"
        let client = context.suite.client
        var html =
            "<nav aria-label=\"report\"><a href=\"\(root)index.html\">← \(escape(context.siteTitle))</a> · "
            + "<a href=\"\(root)index.html#client-\(component(client))\">\(escape(client))</a>"
        if let previous = context.previous {
            html +=
                " · <a rel=\"prev\" href=\"\(escape(component(previous))).html\">← previous: "
                + "<code>\(escape(previous))</code></a>"
        }
        if let next = context.next {
            html +=
                " · <a rel=\"next\" href=\"\(escape(component(next))).html\">next: <code>\(escape(next))</code> →</a>"
        }
        html += "</nav>\n"
        if !context.others.isEmpty {
            html += "<nav class=\"others\" aria-label=\"the same case, other clients\">Same case, other clients: "
            html += context.others.map { other in
                "<a href=\"../\(escape(component(other.client)))/\(escape(component(report.id))).html\""
                    + " class=\"\(verdictClass(other.verdict))\">\(mark(other.verdict)) \(escape(other.client))"
                    + "<span class=\"hidden\"> (\(escape(other.verdict.rawValue)))</span></a>"
            }.joined(separator: " ")
            html += "</nav>\n"
        }
        return html
    }

    /// The finding that decided the verdict: the first that counts journal entries (notes such as "the client
    /// used Digest in another case" count none), else the first.
    static func decisive(_ report: CaseReport) -> Int? {
        guard !report.findings.isEmpty else { return nil }
        let evidence = report.evidence ?? []
        return report.findings.indices.first { $0 < evidence.count && !evidence[$0].isEmpty } ?? 0
    }

    /// A finding's sentence without the journal lines it quotes (`…, at most 2 expected: #2 GET / …`): up to
    /// the first quote, with `…` when something was cut.
    static func sentence(_ finding: String) -> String {
        guard let quote = finding.firstMatch(of: References.quote) else {
            return finding
        }
        return String(finding[..<quote.range.lowerBound]) + " …"
    }

    /// The findings, numbered, one per line, each with the entries it counts; then the observations.
    static func findings(_ report: CaseReport) -> String {
        var html = "<section class=\"findings\">\n<h2>Findings</h2>\n"
        if report.findings.isEmpty && report.observations.isEmpty {
            return html + "<p class=\"muted\">None: nothing to report.</p>\n</section>\n"
        }
        let shown = Set(report.journal.map(\.seq))
        if !report.findings.isEmpty {
            html += "<ol class=\"findings\">\n"
            for (index, finding) in report.findings.enumerated() {
                html += "<li class=\"finding\" id=\"finding-\(index + 1)\">\(findingText(finding, shown: shown))"
                let counted = (report.evidence ?? []).indices.contains(index) ? report.evidence![index] : []
                if !counted.isEmpty {
                    html +=
                        "<div class=\"counts\">counts \(counted.count) entr\(counted.count == 1 ? "y" : "ies"): "
                        + counted.map { shown.contains($0) ? "<a href=\"#e\($0)\">#\($0)</a>" : "#\($0)" }
                        .joined(separator: ", ") + "</div>"
                }
                html += "</li>\n"
            }
            html += "</ol>\n"
        }
        if !report.observations.isEmpty {
            html +=
                "<ul class=\"observations\">\n"
                + report.observations.map { "<li class=\"observation\">\(linked($0))</li>\n" }.joined() + "</ul>\n"
        }
        return html + "</section>\n"
    }

    /// A finding as HTML: `expected: THAT — WHAT` with the expectation set apart, references linked, and
    /// each `#N` the journal excerpt holds linked to its entry.
    /// - Parameter shown: the seq of the entries the page holds.
    static func findingText(_ finding: String, shown: Set<Int>) -> String {
        func entries(_ text: String) -> String {
            var html = ""
            var rest = Substring(text)
            while let match = rest.firstMatch(of: References.seq) {
                html += linked(String(rest[..<match.range.lowerBound])) + escape(String(match.1))
                let seq = Int(match.2) ?? -1
                html += shown.contains(seq) ? "<a href=\"#e\(seq)\">#\(seq)</a>" : "#\(match.2)"
                rest = rest[match.range.upperBound...]
            }
            return html + linked(String(rest))
        }
        if finding.hasPrefix("expected: "), let dash = finding.firstRange(of: " — ") {
            let that = finding[finding.index(finding.startIndex, offsetBy: 10)..<dash.lowerBound]
            return "<span class=\"expected\">expected: \(escape(String(that)))</span> — "
                + entries(String(finding[dash.upperBound...]))
        }
        return entries(finding)
    }

    /// The journal's excerpt, every entry whole; the ones the findings count marked with their findings.
    static func journal(_ report: CaseReport) -> String {
        var html = "<section class=\"exchanges\">\n<h2>Journal</h2>\n"
        var counted: [Int: [Int]] = [:]
        for (index, seqs) in (report.evidence ?? []).enumerated() {
            for seq in seqs { counted[seq, default: []].append(index + 1) }
        }
        if !report.journal.isEmpty {
            var note = "\(report.journal.count) entr\(report.journal.count == 1 ? "y" : "ies") kept in the report"
            note += " (the first \(CheckRunner.journalExcerpt) and every one a finding counts)"
            if !counted.isEmpty {
                note += "; outlined: the \(counted.count) the findings count"
            }
            html += "<p class=\"muted\">\(note). Credentials are masked: <em>reveal</em> shows them.</p>\n"
        }
        html +=
            report.journal.isEmpty
            ? "<p class=\"empty\">No request reached the server.</p>\n"
            : JournalHTML.entries(report.journal, counted: counted)
        return html + "</section>\n"
    }

    /// The profile's `cells:` entry for the cell: why (inline Markdown: code and links) and its links; or,
    /// when the run gave the cell another verdict, that the entry is out of date (its why is not shown).
    static func why(_ note: ClientProfile.CellNote, _ report: CaseReport) -> String {
        var html = "<section class=\"why\">\n<h2>Why</h2>\n"
        guard note.holds(for: report) else {
            html +=
                "<p class=\"stale\">The profile's <code>cells:</code> entry explains \(badge(note.verdict)),"
                + " but the run says \(badge(report.verdict)): "
            html +=
                "its explanation is left out until it is updated"
                + " (<code>authmock matrix</code> reports it and fails).</p>\n"
            return html + "</section>\n"
        }
        html += "<div class=\"note\">\n" + markdown(note.why) + "</div>\n"
        if !note.links.isEmpty {
            html += "<ul class=\"links\">\n" + note.links.map { "<li>\(link($0))</li>\n" }.joined() + "</ul>\n"
        }
        return html + "</section>\n"
    }

    static func expectations(_ definition: CaseDefinition, _ report: CaseReport) -> String {
        var html = ""
        if !definition.expectations.implemented.isEmpty {
            let judge = Judge(expectations: definition.expectations, authority: "the case's host")
            let needs = definition.expectations.implemented.map { "a request " + judge.describe($0) }
                .joined(separator: "; and ")
            html +=
                "<p class=\"gate\">Judged when the client sends \(escape(needs));"
                + " a client that never does has not implemented what the case exercises.</p>\n"
        }
        switch report.verdict {
        case .skip: html += "<p class=\"muted\">The case was skipped: the checks were not judged.</p>\n"
        case .error: html += "<p class=\"muted\">The runner could not judge the case: the checks were not judged.</p>\n"
        case .unimplemented:
            html +=
                "<p class=\"muted\">The client did not implement what the case exercises:"
                + " only the bounds that hold for any client (loops, leaks) were judged.</p>\n"
        default: break
        }
        let rows = rows(definition, report)
        guard !rows.isEmpty else {
            return html + "<p class=\"muted\">The case sets no expectation beyond its verdict.</p>\n"
        }
        html += "<ul class=\"checks\">\n"
        for row in rows {
            let (state, mark, label, detail): (String, String, String, String?) =
                switch row.state {
                case .held: ("held", "✓", "held", nil)
                case .broken(let what): ("broken", "✘", "broken", what)
                case .notJudged(let why): ("not-judged", "–", "not judged", why)
                case .observed(let what): ("observed", "i", "observed", what)
                }
            html +=
                "<li class=\"check \(state)\"><span class=\"mark\" title=\"\(label)\">\(mark)</span>"
                + " <span class=\"state\">\(label)</span>"
            html += " <span class=\"that\">\(escape(row.that))</span>"
            if let grade = row.grade {
                html +=
                    " <span class=\"grade\" title=\"the case's verdict when this is broken\">"
                    + "if broken: \(escape(grade))</span>"
            }
            if case .broken = row.state, let index = report.findings.firstIndex(where: { $0.hasSuffix(detail ?? "") }) {
                html += " <a class=\"detail\" href=\"#finding-\(index + 1)\">finding \(index + 1)</a>"
            } else if let detail {
                html += "<div class=\"detail\">\(escape(detail))</div>"
            }
            html += "</li>\n"
        }
        return html + "</ul>\n"
    }
}
