import AuthMockCore
import Foundation

/// The conformance report as a static site (`authmock matrix --html`, `authmock check --html`): an index
/// with the matrix of clients × cases, filtered by family and verdict with CSS alone, one page per cell
/// with the case's expectations, the verdict, the client's command and output, and the journal of the run
/// (rendered by ``JournalHTML``, the same view as `serve`'s live page), and one stylesheet. No script, no
/// fetch: the pages read the same from a CI artifact, a file:// URL or a web server.
///
/// Everything that comes from a report is escaped: in the hostile cases paths, headers, findings that quote
/// them and the client's output are the attacker's.
extension Reports {
    /// The site's files by relative path: `index.html`, `style.css` and `cases/<client>/<case>.html`.
    /// - Parameters:
    ///   - suites: one report per client, in column order (shards already merged: ``ReportMerge``).
    ///   - cases: the suite's cases, for the expectations on the cell pages; nil lists none (the pages
    ///     then show what the reports carry: title, reference, verdict, findings).
    ///   - notes: per client, its profile's `notes:` (Markdown, shown as text).
    public static func html(
        _ suites: [SuiteReport], cases: [ConformanceCase]? = nil, notes: [String: String] = [:], title: String = "Conformance matrix"
    ) -> [String: String] {
        let definitions = Dictionary((cases ?? []).map { ($0.id, $0.definition) }, uniquingKeysWith: { first, _ in first })
        var files: [String: String] = ["style.css": HTMLSite.stylesheet]
        files["index.html"] = HTMLSite.index(suites, notes: notes, title: title)
        for suite in suites {
            for report in suite.cases {
                let definition = cases == nil ? nil : definitions[report.id]
                files[HTMLSite.cellPath(client: suite.client, case: report.id)] = HTMLSite.cellPage(
                    report, suite: suite, definition: definition, definitionsGiven: cases != nil, siteTitle: title
                )
            }
        }
        return files
    }
}

/// The pieces of ``Reports/html(_:cases:notes:title:)``.
enum HTMLSite {
    static func escape(_ text: String) -> String { JournalHTML.escape(text) }

    // MARK: - Paths

    /// A path component from a name in a report: letters, digits, `.`, `-` and `_` kept, anything else `_`,
    /// never empty nor starting with a dot (a report cannot name `..` or a hidden file).
    static func component(_ name: String) -> String {
        var result = String(String.UnicodeScalarView(name.unicodeScalars.map { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "._-".unicodeScalars.contains(scalar)) ? scalar : "_"
        }))
        if result.isEmpty || result.hasPrefix(".") { result = "_" + result }
        return result
    }

    /// `cases/<client>/<case>.html`, relative to the site's root.
    static func cellPath(client: String, case id: String) -> String {
        "cases/\(component(client))/\(component(id)).html"
    }

    /// The case's family: its id up to the first dot (`digest` for `digest.stale-nonce`).
    static func family(_ id: String) -> String {
        String(id.prefix { $0 != "." })
    }

    // MARK: - Verdicts

    /// The CSS class of a verdict, for its colour: `v-pass`, `v-non-strict`, …
    static func verdictClass(_ verdict: CaseVerdict) -> String { "v-" + verdict.rawValue }

    static let legend: [(CaseVerdict, String)] = [
        (.pass, "every expectation held"),
        (.nonStrict, "a SHOULD of the RFCs was broken"),
        (.informational, "client policy no RFC settles, reported"),
        (.unimplemented, "the client lacks the feature the case exercises"),
        (.fail, "a MUST broken, a credential leaked, a loop, a request after a failed trust check"),
        (.error, "the runner could not judge; never blamed on the client"),
        (.skip, "the client's profile says it does not offer a feature the case needs"),
    ]

    /// The verdict as a badge: symbol and name, coloured by its class.
    static func badge(_ verdict: CaseVerdict) -> String {
        "<span class=\"badge \(verdictClass(verdict))\">\(Reports.symbol(verdict)) \(escape(verdict.rawValue))</span>"
    }

    // MARK: - Page frame

    static func page(title: String, root: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(escape(title))</title>
        <link rel="stylesheet" href="\(root)style.css">
        </head>
        <body>
        \(body)</body>
        </html>

        """
    }

    // MARK: - Index

    static func index(_ suites: [SuiteReport], notes: [String: String], title: String) -> String {
        var ids: [String] = []
        var titles: [String: String] = [:]
        for suite in suites {
            for report in suite.cases where titles[report.id] == nil {
                ids.append(report.id)
                titles[report.id] = report.title
            }
        }
        var families: [String] = []
        for id in ids where !families.contains(family(id)) { families.append(family(id)) }
        let present = CaseVerdict.allCases.filter { verdict in suites.contains { $0.count(verdict) > 0 } }

        var body = "<header>\n<h1>\(escape(title))</h1>\n"
        let versions = Set(suites.map(\.authmock)).filter { !$0.isEmpty }.sorted()
        body += "<p class=\"generated\">Generated by <code>authmock</code>\(versions.isEmpty ? "" : " " + escape(versions.joined(separator: ", "))) from "
        body += "\(suites.count) client report(s), \(ids.count) case(s). Each cell opens the exchange behind it.</p>\n</header>\n"

        body += "<section class=\"legend\">\n<h2>Verdicts</h2>\n<ul>\n"
        for (verdict, meaning) in legend {
            body += "<li>\(badge(verdict)) \(escape(meaning))</li>\n"
        }
        body += "</ul>\n</section>\n"

        body += summary(suites)
        body += matrix(suites, ids: ids, titles: titles, families: families, verdicts: present)
        body += clientNotes(suites, notes: notes)
        return page(title: title, root: "", body: body)
    }

    /// Per client: its version and how many cases had each verdict.
    static func summary(_ suites: [SuiteReport]) -> String {
        var html = "<section class=\"summary\">\n<h2>Clients</h2>\n<table class=\"counts\">\n<thead><tr><th scope=\"col\">client</th><th scope=\"col\">version</th>"
        for verdict in CaseVerdict.allCases {
            html += "<th scope=\"col\" class=\"\(verdictClass(verdict))\" title=\"\(escape(verdict.rawValue))\">\(Reports.symbol(verdict)) \(escape(verdict.rawValue))</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for suite in suites {
            html += "<tr><th scope=\"row\"><a href=\"#client-\(component(suite.client))\">\(escape(suite.client))</a></th><td>\(escape(suite.version ?? "?"))</td>"
            for verdict in CaseVerdict.allCases {
                let count = suite.count(verdict)
                html += count == 0 ? "<td class=\"zero\">0</td>" : "<td class=\"\(verdictClass(verdict))\">\(count)</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</section>\n"
    }

    /// The matrix, preceded by its filters: radio inputs whose `:checked` state hides rows through the
    /// generated rules of the page's `<style>` (no script).
    static func matrix(_ suites: [SuiteReport], ids: [String], titles: [String: String], families: [String], verdicts: [CaseVerdict]) -> String {
        let familyIDs = ["all"] + families.map(component)
        let verdictIDs = ["all"] + verdicts.map(\.rawValue)
        var style = "<style>\n"
        for token in familyIDs.dropFirst() {
            style += "#family-\(token):checked ~ table.matrix tbody tr:not([data-family=\"\(token)\"]) { display: none; }\n"
        }
        for token in verdictIDs.dropFirst() {
            style += "#verdict-\(token):checked ~ table.matrix tbody tr:not([data-verdicts~=\"\(token)\"]) { display: none; }\n"
            style += "#verdict-\(token):checked ~ table.matrix td.cell:not(.v-\(token)) { opacity: 0.25; }\n"
        }
        let chosen = familyIDs.map { "#family-\($0):checked ~ .filters label[for=\"family-\($0)\"]" }
            + verdictIDs.map { "#verdict-\($0):checked ~ .filters label[for=\"verdict-\($0)\"]" }
        style += chosen.joined(separator: ",\n") + " { background: var(--chosen); color: var(--chosen-text); border-color: var(--chosen); }\n"
        let focused = familyIDs.map { "#family-\($0):focus-visible ~ .filters label[for=\"family-\($0)\"]" }
            + verdictIDs.map { "#verdict-\($0):focus-visible ~ .filters label[for=\"verdict-\($0)\"]" }
        style += focused.joined(separator: ",\n") + " { outline: 2px solid var(--focus); }\n"
        style += "</style>\n"

        var html = "<section class=\"cases\">\n<h2>Matrix</h2>\n" + style
        for (index, token) in familyIDs.enumerated() {
            html += "<input type=\"radio\" class=\"filter\" name=\"family\" id=\"family-\(token)\"\(index == 0 ? " checked" : "")>\n"
        }
        for (index, token) in verdictIDs.enumerated() {
            html += "<input type=\"radio\" class=\"filter\" name=\"verdict\" id=\"verdict-\(token)\"\(index == 0 ? " checked" : "")>\n"
        }
        html += "<div class=\"filters\">\n<p><span class=\"what\">Family</span> <label for=\"family-all\">all</label>"
        for name in families {
            let count = ids.filter { family($0) == name }.count
            html += " <label for=\"family-\(component(name))\">\(escape(name)) <span class=\"n\">\(count)</span></label>"
        }
        html += "</p>\n<p><span class=\"what\">Verdict</span> <label for=\"verdict-all\">all</label>"
        for verdict in verdicts {
            html += " <label for=\"verdict-\(verdict.rawValue)\" class=\"\(verdictClass(verdict))\">\(Reports.symbol(verdict)) \(escape(verdict.rawValue))</label>"
        }
        html += "</p>\n<p class=\"hint\">A verdict filter keeps the cases where some client has it and dims the other cells.</p>\n</div>\n"

        html += "<table class=\"matrix\">\n<thead><tr><th scope=\"col\" class=\"case\">case</th>"
        for suite in suites {
            let version = suite.version.map { " title=\"\(escape($0))\"" } ?? ""
            html += "<th scope=\"col\" class=\"client\"\(version)><a href=\"#client-\(component(suite.client))\">\(escape(suite.client))</a></th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for id in ids {
            let reports = suites.map { suite in suite.cases.first { $0.id == id } }
            let tokens = Set(reports.compactMap { $0?.verdict.rawValue }).sorted()
            html += "<tr data-family=\"\(component(family(id)))\" data-verdicts=\" \(tokens.joined(separator: " ")) \">"
            html += "<th scope=\"row\" class=\"case\"><code>\(escape(id))</code> <span class=\"title\">\(escape(titles[id] ?? ""))</span></th>"
            for (suite, report) in zip(suites, reports) {
                guard let report else {
                    html += "<td class=\"cell none\" title=\"\(escape(suite.client)): not run\"></td>"
                    continue
                }
                let tip = "\(suite.client) · \(id): \(report.verdict.rawValue)"
                html += "<td class=\"cell \(verdictClass(report.verdict))\"><a href=\"\(escape(cellPath(client: suite.client, case: id)))\" title=\"\(escape(tip))\">"
                html += "\(Reports.symbol(report.verdict))<span class=\"hidden\"> \(escape(report.verdict.rawValue))</span></a></td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</section>\n"
    }

    /// Below the matrix, per client: its profile's notes and the cases it did not pass.
    static func clientNotes(_ suites: [SuiteReport], notes: [String: String]) -> String {
        var html = "<section class=\"notes\">\n<h2>What each client did where it did not pass</h2>\n"
        for suite in suites {
            html += "<article class=\"client\" id=\"client-\(component(suite.client))\">\n<h3>\(escape(suite.client))"
            if let version = suite.version { html += " <span class=\"version\">\(escape(version))</span>" }
            html += "</h3>\n"
            if let note = notes[suite.client]?.trimmingCharacters(in: .whitespacesAndNewlines), !note.isEmpty {
                html += "<div class=\"note\">\n" + paragraphs(note) + "</div>\n"
            }
            let notable = suite.cases.filter { $0.verdict != .pass && $0.verdict != .skip }
            if notable.isEmpty {
                html += "<p>Every case it ran passed.</p>\n"
            } else {
                html += "<ul class=\"notable\">\n"
                for report in notable {
                    let what = (report.findings + report.observations).joined(separator: " ")
                    html += "<li><a href=\"\(escape(cellPath(client: suite.client, case: report.id)))\">\(badge(report.verdict)) <code>\(escape(report.id))</code></a> \(escape(what))</li>\n"
                }
                html += "</ul>\n"
            }
            let skipped = suite.cases.filter { $0.verdict == .skip }
            if !skipped.isEmpty {
                let links = skipped.map { "<a href=\"\(escape(cellPath(client: suite.client, case: $0.id)))\"><code>\(escape($0.id))</code></a>" }
                html += "<p class=\"skipped\">Skipped (features its profile says it lacks): " + links.joined(separator: ", ") + "</p>\n"
            }
            html += "</article>\n"
        }
        return html + "</section>\n"
    }

    /// Markdown shown as text: one `<p>` per blank-line-separated paragraph, its line breaks kept by CSS.
    static func paragraphs(_ text: String) -> String {
        var blocks: [[Substring]] = [[]]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !(blocks.last?.isEmpty ?? true) { blocks.append([]) }
            } else {
                blocks[blocks.count - 1].append(line)
            }
        }
        return blocks.filter { !$0.isEmpty }.map { "<p>" + escape($0.joined(separator: "\n")) + "</p>\n" }.joined()
    }

    // MARK: - Cell page

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
        case .success: ("the client succeeds (exit status 0)", "expected the client to succeed")
        case .failure: ("the client reports the failure (non-zero exit status)", "expected the client to report failure")
        case .any: nil
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
                state = report.observations.first { $0.hasPrefix(prefix) }.map { .observed(String($0.dropFirst(prefix.count))) }
                    ?? .notJudged("nothing observed")
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

    static func cellPage(_ report: CaseReport, suite: SuiteReport, definition: CaseDefinition?, definitionsGiven: Bool, siteTitle: String) -> String {
        let root = "../../"
        var body = "<nav><a href=\"\(root)index.html\">← \(escape(siteTitle))</a> · <a href=\"\(root)index.html#client-\(component(suite.client))\">\(escape(suite.client))</a></nav>\n"
        body += "<header>\n<h1><code>\(escape(report.id))</code> — \(escape(report.title))</h1>\n"
        let reference = report.reference ?? definition?.reference
        if let reference { body += "<p class=\"reference\">Reference: \(escape(reference))</p>\n" }
        body += "<p class=\"client\">Client: <strong>\(escape(suite.client))</strong>"
        if let version = suite.version { body += " <span class=\"version\">\(escape(version))</span>" }
        body += "</p>\n<p class=\"verdict-line\">Verdict: \(badge(report.verdict))</p>\n</header>\n"

        body += "<section class=\"expectations\">\n<h2>Expectations</h2>\n"
        if let definition {
            body += expectations(definition, report)
        } else {
            body += definitionsGiven
                ? "<p class=\"muted\">This case is not in the suite the report was rendered with: its expectations are not listed.</p>\n"
                : "<p class=\"muted\">The report was rendered without the suite's case files: the expectations are not listed. The findings below name every broken one.</p>\n"
        }
        body += "</section>\n"

        body += "<section class=\"findings\">\n<h2>Findings</h2>\n"
        if report.findings.isEmpty && report.observations.isEmpty {
            body += "<p class=\"muted\">None: nothing to report.</p>\n"
        } else {
            body += "<ul>\n"
            for finding in report.findings { body += "<li class=\"finding\">\(escape(finding))</li>\n" }
            for observation in report.observations { body += "<li class=\"observation\">\(escape(observation))</li>\n" }
            body += "</ul>\n"
        }
        body += "</section>\n"

        body += run(report)

        body += "<section class=\"exchanges\">\n<h2>Journal</h2>\n"
        if !report.journal.isEmpty {
            var note = "\(report.journal.count) entr\(report.journal.count == 1 ? "y" : "ies") kept in the report"
            note += " (the first \(CheckRunner.journalExcerpt) and every one a finding quotes)"
            if let quoted = report.quoted, !quoted.isEmpty {
                note += "; quoted by the findings: " + quoted.map { "<a href=\"#e\($0)\">#\($0)</a>" }.joined(separator: ", ")
            }
            body += "<p class=\"muted\">\(note).</p>\n"
        }
        if let quoted = report.quoted, !quoted.isEmpty {
            body += "<style>\n" + quoted.map { "#e\($0)" }.joined(separator: ", ") + " { outline: 2px solid var(--quoted); outline-offset: 2px; }\n</style>\n"
        }
        body += report.journal.isEmpty ? "<p class=\"empty\">No request reached the server.</p>\n" : JournalHTML.entries(report.journal)
        body += "</section>\n"
        return page(title: "\(suite.client) · \(report.id) — \(siteTitle)", root: root, body: body)
    }

    static func expectations(_ definition: CaseDefinition, _ report: CaseReport) -> String {
        var html = ""
        if !definition.expectations.implemented.isEmpty {
            let judge = Judge(expectations: definition.expectations, authority: "the case's host")
            let needs = definition.expectations.implemented.map { "a request " + judge.describe($0) }.joined(separator: "; and ")
            html += "<p class=\"gate\">Judged when the client sends \(escape(needs)); a client that never does has not implemented what the case exercises.</p>\n"
        }
        switch report.verdict {
        case .skip: html += "<p class=\"muted\">The case was skipped: the checks were not judged.</p>\n"
        case .error: html += "<p class=\"muted\">The runner could not judge the case: the checks were not judged.</p>\n"
        case .unimplemented: html += "<p class=\"muted\">The client did not implement what the case exercises: only the bounds that hold for any client (loops, leaks) were judged.</p>\n"
        default: break
        }
        let rows = rows(definition, report)
        guard !rows.isEmpty else { return html + "<p class=\"muted\">The case sets no expectation beyond its verdict.</p>\n" }
        html += "<ul class=\"checks\">\n"
        for row in rows {
            let (state, mark, label, detail): (String, String, String, String?) = switch row.state {
            case .held: ("held", "✔", "held", nil)
            case .broken(let what): ("broken", "✘", "broken", what)
            case .notJudged(let why): ("not-judged", "–", "not judged", why)
            case .observed(let what): ("observed", "ℹ", "observed", what)
            }
            html += "<li class=\"check \(state)\"><span class=\"mark\" title=\"\(label)\">\(mark)</span> <span class=\"state\">\(label)</span>"
            html += " <span class=\"that\">\(escape(row.that))</span>"
            if let grade = row.grade { html += " <span class=\"grade\" title=\"the case's verdict when this is broken\">if broken: \(escape(grade))</span>" }
            if let detail { html += "<div class=\"detail\">\(escape(detail))</div>" }
            html += "</li>\n"
        }
        return html + "</ul>\n"
    }

    /// The client's command, how it ended, and the tails of its output.
    static func run(_ report: CaseReport) -> String {
        var html = "<section class=\"run\">\n<h2>The client's run</h2>\n"
        if let command = report.command {
            html += "<h3>Command</h3>\n<pre class=\"command\">\(escape(command.map(shellQuoted).joined(separator: " ")))</pre>\n"
        } else {
            html += "<p class=\"muted\">The client was not run for this case.</p>\n"
        }
        if let outcome = report.outcome {
            let ended = outcome.timedOut
                ? "killed after its timeout"
                : outcome.exitStatus.map { "exited \($0)" } ?? "ended on a signal"
            html += "<p class=\"outcome\">It \(ended) after \(String(format: "%.2f", outcome.seconds)) s.</p>\n"
        }
        for (name, text) in [("stdout", report.stdout), ("stderr", report.stderr)] {
            guard let text else { continue }
            let (shown, dropped) = tail(text)
            html += "<h3>\(name)" + (dropped > 0 ? " <span class=\"muted\">(the last lines; \(dropped) line(s) before them not shown)</span>" : "") + "</h3>\n"
            html += text.isEmpty ? "<p class=\"muted\">(empty)</p>\n" : "<pre class=\"\(name)\">\(escape(shown))</pre>\n"
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
        let plain = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-")
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
                case _ where scalar.value < 0x20 || scalar.value == 0x7F: quoted += String(format: "\\x%02x", scalar.value)
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "'"
        }
        return "'" + argument.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    // MARK: - Style

    static let stylesheet = """
        :root {
          --text: #1d2126; --muted: #5f6b76; --bg: #ffffff; --panel: #f5f7f9; --line: #d9dee3;
          --pass: #1a7f37; --pass-bg: #dcf5e3; --warn: #8a5a00; --warn-bg: #fff1c9; --info: #0b5cad; --info-bg: #dcebfb;
          --off: #5f6b76; --off-bg: #eceff2; --fail: #b42318; --fail-bg: #fde2df; --error: #7a1fa2; --error-bg: #f1dcf8;
          --chosen: #1d2126; --chosen-text: #ffffff; --focus: #0b5cad; --quoted: #b42318;
        }
        @media (prefers-color-scheme: dark) {
          :root {
            --text: #e6e9ec; --muted: #9aa5b1; --bg: #15181b; --panel: #1e2327; --line: #343b42;
            --pass: #6fdc8c; --pass-bg: #16351f; --warn: #f2c94c; --warn-bg: #3a3010; --info: #79b8ff; --info-bg: #132c47;
            --off: #9aa5b1; --off-bg: #262c31; --fail: #ff8a80; --fail-bg: #431a17; --error: #d8a4f0; --error-bg: #35173f;
            --chosen: #e6e9ec; --chosen-text: #15181b; --focus: #79b8ff; --quoted: #ff8a80;
          }
        }
        * { box-sizing: border-box; }
        body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--text); background: var(--bg); margin: 0 auto; padding: 1rem 1.5rem 3rem; max-width: 110rem; }
        a { color: inherit; }
        code, pre, .request { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.9em; }
        pre { background: var(--panel); border: 1px solid var(--line); padding: 0.6rem 0.8rem; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; }
        h1 { font-size: 1.5rem; margin: 0.5rem 0; }
        h2 { font-size: 1.15rem; margin: 1.8rem 0 0.6rem; border-bottom: 1px solid var(--line); padding-bottom: 0.2rem; }
        h3 { font-size: 1rem; margin: 1.2rem 0 0.4rem; }
        nav { font-size: 0.9rem; color: var(--muted); }
        .muted, .generated, .hint, .version, .reference { color: var(--muted); }
        .hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }

        /* Verdicts: one class each, for colour. */
        .v-pass { color: var(--pass); background: var(--pass-bg); }
        .v-non-strict { color: var(--warn); background: var(--warn-bg); }
        .v-informational { color: var(--info); background: var(--info-bg); }
        .v-unimplemented, .v-skip { color: var(--off); background: var(--off-bg); }
        .v-fail { color: var(--fail); background: var(--fail-bg); }
        .v-error { color: var(--error); background: var(--error-bg); }
        .badge { display: inline-block; padding: 0 0.45rem; border-radius: 0.3rem; font-weight: 600; white-space: nowrap; }
        .legend ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.3rem 1.2rem; }

        /* Tables. */
        table { border-collapse: collapse; }
        th, td { border: 1px solid var(--line); padding: 0.2rem 0.45rem; }
        table.counts td { text-align: right; }
        table.counts td.zero { color: var(--muted); background: none; }
        table.counts th[scope=col] { font-weight: 600; font-size: 0.85rem; }
        table.matrix { font-size: 0.9rem; }
        table.matrix thead th { position: sticky; top: 0; background: var(--bg); z-index: 1; }
        table.matrix th.client { writing-mode: vertical-rl; transform: rotate(180deg); text-align: left; vertical-align: bottom; padding: 0.45rem 0.2rem; font-weight: 600; white-space: nowrap; }
        table.matrix th.client a { text-decoration: none; }
        table.matrix th.case { text-align: left; font-weight: normal; min-width: 22rem; }
        table.matrix th.case .title { color: var(--muted); }
        table.matrix td.cell { text-align: center; padding: 0; min-width: 2rem; }
        table.matrix td.cell a { display: block; padding: 0.2rem 0.3rem; text-decoration: none; }
        table.matrix td.cell a:hover, table.matrix td.cell a:focus { outline: 2px solid var(--focus); outline-offset: -2px; }
        table.matrix td.none { background: repeating-linear-gradient(45deg, var(--panel), var(--panel) 4px, var(--bg) 4px, var(--bg) 8px); }

        /* Filters: the radio inputs are hidden; their labels are the buttons. */
        input.filter { position: absolute; opacity: 0; pointer-events: none; }
        .filters p { margin: 0.3rem 0; display: flex; flex-wrap: wrap; gap: 0.3rem; align-items: center; }
        .filters .what { font-weight: 600; min-width: 4.5rem; }
        .filters label { cursor: pointer; border: 1px solid var(--line); border-radius: 1rem; padding: 0.05rem 0.6rem; user-select: none; }
        .filters label .n { color: var(--muted); font-size: 0.8em; }
        .filters .hint { font-size: 0.85rem; display: block; }

        /* Notes per client. */
        .notes article { margin-bottom: 1.5rem; }
        .note p { white-space: pre-line; background: var(--panel); border-left: 3px solid var(--line); padding: 0.4rem 0.7rem; margin: 0.4rem 0; }
        ul.notable { padding-left: 1.2rem; }
        ul.notable li { margin: 0.25rem 0; }
        ul.notable a { text-decoration: none; }

        /* Cell pages. */
        .verdict-line { font-size: 1.1rem; }
        ul.checks { list-style: none; padding: 0; }
        ul.checks li { border: 1px solid var(--line); border-left-width: 4px; padding: 0.35rem 0.6rem; margin: 0.35rem 0; }
        ul.checks li.held { border-left-color: var(--pass); }
        ul.checks li.broken { border-left-color: var(--fail); background: var(--fail-bg); }
        ul.checks li.not-judged { border-left-color: var(--off); color: var(--muted); }
        ul.checks li.observed { border-left-color: var(--info); }
        ul.checks .mark { font-weight: 700; display: inline-block; width: 1.1rem; }
        ul.checks li.held .mark { color: var(--pass); }
        ul.checks li.broken .mark { color: var(--fail); }
        ul.checks .state { font-size: 0.8rem; text-transform: uppercase; letter-spacing: 0.03em; color: var(--muted); }
        ul.checks .grade { font-size: 0.8rem; border: 1px solid var(--line); border-radius: 0.3rem; padding: 0 0.3rem; }
        ul.checks .detail { margin: 0.25rem 0 0 1.1rem; white-space: pre-wrap; word-break: break-word; }
        .findings li { white-space: pre-wrap; word-break: break-word; margin: 0.3rem 0; }
        .findings li.observation { color: var(--info); }

        /* The journal (JournalHTML's markup, shared with `serve`'s live page). */
        ol.journal { list-style: none; padding: 0; }
        li.entry { border: 1px solid var(--line); border-left-width: 4px; padding: 0.4rem 0.7rem; margin: 0.45rem 0; word-break: break-word; }
        li.entry.ok { border-left-color: var(--pass); }
        li.entry.challenge { border-left-color: var(--warn); }
        li.entry.refused { border-left-color: var(--fail); }
        li.entry .line { font-weight: 600; }
        li.entry .seq { color: var(--muted); margin-right: 0.3rem; }
        li.entry .hop { background: var(--info-bg); color: var(--info); border-radius: 0.3rem; padding: 0 0.3rem; font-size: 0.85em; }
        li.entry .where { color: var(--muted); font-weight: normal; font-size: 0.85em; }
        li.entry code.request { background: var(--panel); padding: 0 0.3rem; }
        li.entry .status { font-family: ui-monospace, Menlo, Consolas, monospace; }
        li.entry.ok .status { color: var(--pass); }
        li.entry.challenge .status { color: var(--warn); }
        li.entry.refused .status { color: var(--fail); }
        li.entry .host, li.entry .credentials, li.entry div.challenge { font-size: 0.9em; margin-left: 1.2rem; }
        li.entry .credentials .scheme { font-weight: 600; }
        li.entry div.challenge code { color: var(--warn); }
        li.entry .verdict { margin-left: 1.2rem; }
        li.entry .verdict .name { font-family: ui-monospace, Menlo, Consolas, monospace; font-weight: 600; }
        li.entry .leak { margin-left: 1.2rem; color: var(--fail); background: var(--fail-bg); font-weight: 700; padding: 0 0.3rem; }
        li.entry .fault { margin-left: 1.2rem; color: var(--error); }
        p.empty { color: var(--muted); font-style: italic; }

        """
}
