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

        let outcome: (that: String, prefix: String)? = switch expectations.outcome {
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
                state = report.observations.first { $0.hasPrefix(prefix) }
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

    static func cellPage(
        _ report: CaseReport, suite: SuiteReport, definition: CaseDefinition?, definitionsGiven: Bool,
        note: ClientProfile.CellNote? = nil, siteTitle: String
    ) -> String {
        let root = "../../"
        var body = "<nav><a href=\"\(root)index.html\">← \(escape(siteTitle))</a> · "
            + "<a href=\"\(root)index.html#client-\(component(suite.client))\">\(escape(suite.client))</a></nav>\n"
        body += "<header>\n<h1><code>\(escape(report.id))</code> — \(escape(report.title))</h1>\n"
        let reference = report.reference ?? definition?.reference
        if let reference { body += "<p class=\"reference\">Reference: \(escape(reference))</p>\n" }
        body += "<p class=\"client\">Client: <strong>\(escape(suite.client))</strong>"
        if let version = suite.version { body += " <span class=\"version\">\(escape(version))</span>" }
        body += "</p>\n<p class=\"verdict-line\">Verdict: \(badge(report.verdict))</p>\n</header>\n"
        if let note { body += why(note, report) }

        body += "<section class=\"expectations\">\n<h2>Expectations</h2>\n"
        if let definition {
            body += expectations(definition, report)
        } else {
            body += definitionsGiven
                ? "<p class=\"muted\">This case is not in the suite the report was rendered with: "
                    + "its expectations are not listed.</p>\n"
                : "<p class=\"muted\">The report was rendered without the suite's case files: "
                    + "the expectations are not listed. The findings below name every broken one.</p>\n"
        }
        body += "</section>\n"

        body += "<section class=\"findings\">\n<h2>Findings</h2>\n"
        if report.findings.isEmpty && report.observations.isEmpty {
            body += "<p class=\"muted\">None: nothing to report.</p>\n"
        } else {
            body += "<ul>\n"
            for finding in report.findings { body += "<li class=\"finding\">\(escape(finding))</li>\n" }
            for observation in report.observations {
                body += "<li class=\"observation\">\(escape(observation))</li>\n"
            }
            body += "</ul>\n"
        }
        body += "</section>\n"

        body += run(report)
        body += journal(report)
        return page(title: "\(suite.client) · \(report.id) — \(siteTitle)", root: root, body: body)
    }

    /// The journal's excerpt, the entries the findings quote outlined.
    static func journal(_ report: CaseReport) -> String {
        var html = "<section class=\"exchanges\">\n<h2>Journal</h2>\n"
        if !report.journal.isEmpty {
            var note = "\(report.journal.count) entr\(report.journal.count == 1 ? "y" : "ies") kept in the report"
            note += " (the first \(CheckRunner.journalExcerpt) and every one a finding quotes)"
            if let quoted = report.quoted, !quoted.isEmpty {
                note += "; quoted by the findings: "
                    + quoted.map { "<a href=\"#e\($0)\">#\($0)</a>" }.joined(separator: ", ")
            }
            html += "<p class=\"muted\">\(note).</p>\n"
        }
        if let quoted = report.quoted, !quoted.isEmpty {
            html += "<style>\n" + quoted.map { "#e\($0)" }.joined(separator: ", ")
                + " { outline: 2px solid var(--quoted); outline-offset: 2px; }\n</style>\n"
        }
        html += report.journal.isEmpty
            ? "<p class=\"empty\">No request reached the server.</p>\n" : JournalHTML.entries(report.journal)
        return html + "</section>\n"
    }

    /// The profile's `cells:` entry for the cell: why (inline Markdown: code and links) and its links; or,
    /// when the run gave the cell another verdict, that the entry is out of date (its why is not shown).
    static func why(_ note: ClientProfile.CellNote, _ report: CaseReport) -> String {
        var html = "<section class=\"why\">\n<h2>Why</h2>\n"
        guard note.holds(for: report) else {
            html += "<p class=\"stale\">The profile's <code>cells:</code> entry explains \(badge(note.verdict)),"
                + " but the run says \(badge(report.verdict)): "
            html += "its explanation is left out until it is updated"
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
            html += "<p class=\"gate\">Judged when the client sends \(escape(needs));"
                + " a client that never does has not implemented what the case exercises.</p>\n"
        }
        switch report.verdict {
        case .skip: html += "<p class=\"muted\">The case was skipped: the checks were not judged.</p>\n"
        case .error: html += "<p class=\"muted\">The runner could not judge the case: the checks were not judged.</p>\n"
        case .unimplemented:
            html += "<p class=\"muted\">The client did not implement what the case exercises:"
                + " only the bounds that hold for any client (loops, leaks) were judged.</p>\n"
        default: break
        }
        let rows = rows(definition, report)
        guard !rows.isEmpty else {
            return html + "<p class=\"muted\">The case sets no expectation beyond its verdict.</p>\n"
        }
        html += "<ul class=\"checks\">\n"
        for row in rows {
            let (state, mark, label, detail): (String, String, String, String?) = switch row.state {
            case .held: ("held", "✔", "held", nil)
            case .broken(let what): ("broken", "✘", "broken", what)
            case .notJudged(let why): ("not-judged", "–", "not judged", why)
            case .observed(let what): ("observed", "ℹ", "observed", what)
            }
            html += "<li class=\"check \(state)\"><span class=\"mark\" title=\"\(label)\">\(mark)</span>"
                + " <span class=\"state\">\(label)</span>"
            html += " <span class=\"that\">\(escape(row.that))</span>"
            if let grade = row.grade {
                html += " <span class=\"grade\" title=\"the case's verdict when this is broken\">"
                    + "if broken: \(escape(grade))</span>"
            }
            if let detail { html += "<div class=\"detail\">\(escape(detail))</div>" }
            html += "</li>\n"
        }
        return html + "</ul>\n"
    }

    /// The client's command, how it ended, and the tails of its output.
    static func run(_ report: CaseReport) -> String {
        var html = "<section class=\"run\">\n<h2>The client's run</h2>\n"
        if let command = report.command {
            let line = command.map(shellQuoted).joined(separator: " ")
            html += "<h3>Command</h3>\n<pre class=\"command\">\(escape(line))</pre>\n"
        } else {
            html += "<p class=\"muted\">The client was not run for this case.</p>\n"
        }
        if let outcome = report.outcome {
            let ended = outcome.timedOut
                ? "killed after its timeout"
                : outcome.exitStatus.map { "exited \($0)" } ?? "ended on a signal"
            html += "<p class=\"outcome\">It \(ended) after \(TextFormat.fixed(outcome.seconds, places: 2)) s.</p>\n"
        }
        for (name, text) in [("stdout", report.stdout), ("stderr", report.stderr)] {
            guard let text else { continue }
            let (shown, dropped) = tail(text)
            let cut = " <span class=\"muted\">(the last lines; \(dropped) line(s) before them not shown)</span>"
            html += "<h3>\(name)" + (dropped > 0 ? cut : "") + "</h3>\n"
            html += text.isEmpty
                ? "<p class=\"muted\">(empty)</p>\n" : "<pre class=\"\(name)\">\(escape(shown))</pre>\n"
        }
        return html + "</section>\n"
    }

    static let tailLines = 80
    static let tailCharacters = 12_000

    /// The end of a client's output: its last ``tailLines`` lines, at most ``tailCharacters`` characters,
    /// and how many lines were left out.
    static func tail(_ text: String) -> (String, Int) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var kept = lines.suffix(tailLines).joined(separator: "\n")
        var dropped = max(0, lines.count - tailLines)
        if kept.count > tailCharacters {
            kept = String(kept.suffix(tailCharacters))
            dropped = lines.count - kept.split(separator: "\n", omittingEmptySubsequences: false).count
        }
        return (kept, dropped)
    }

    /// An argument as a shell would need it, so that the command can be pasted.
    static func shellQuoted(_ argument: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-".unicodeScalars)
        if !argument.isEmpty, argument.unicodeScalars.allSatisfy(plain.contains) { return argument }
        // Control characters (a `-w '%{http_code}\n'`) as bash's $'…', so the command stays on one line.
        if argument.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            var quoted = "$'"
            for scalar in argument.unicodeScalars {
                switch scalar {
                case "\n": quoted += "\\n"
                case "\t": quoted += "\\t"
                case "\r": quoted += "\\r"
                case "'": quoted += "\\'"
                case "\\": quoted += "\\\\"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    quoted += "\\x" + TextFormat.hex(scalar.value, width: 2)
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "'"
        }
        return "'" + argument.replacing("'", with: "'\\''") + "'"
    }
}
