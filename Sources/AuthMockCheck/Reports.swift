import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The report formats: a console table for people, JUnit XML and JSON for CI, Markdown for the matrix.
public enum Reports {
    // MARK: Console

    /// One progress line: `[ 3/48] digest.stale-nonce  pass  0.12 s`.
    public static func progressLine(index: Int, total: Int, report: CaseReport, colour: Bool) -> String {
        let width = String(total).count
        let number = String(repeating: " ", count: max(0, width - String(index).count)) + String(index)
        let seconds = report.outcome.map { TextFormat.fixed($0.seconds, places: 2) + " s" } ?? ""
        // A gated verdict is settled once every case has ran; the closing table has the final one.
        let pending = report.gate.map {
            "  (settled at the end: did it send \($0.needs.map(\.spoken).joined(separator: " and ")) elsewhere?)"
        } ?? ""
        let verdict = paint(pad(report.verdict.rawValue, 14), report.verdict, colour)
        return "[\(number)/\(total)] \(pad(report.id, 40)) \(verdict) \(seconds)\(pending)"
    }

    /// The closing table: every case with its verdict, and under each non-pass what happened.
    public static func table(_ suite: SuiteReport, colour: Bool) -> String {
        var lines: [String] = []
        let client = suite.version.map { "\(suite.client) (\($0))" } ?? suite.client
        lines.append("")
        lines.append("authmock check — \(client)")
        lines.append("")
        let width = max(4, suite.cases.map(\.id.count).max() ?? 4)
        lines.append("\(pad("case", width))  verdict")
        lines.append(String(repeating: "─", count: width + 16))
        for report in suite.cases {
            lines.append("\(pad(report.id, width))  \(paint(report.verdict.rawValue, report.verdict, colour))")
            for finding in report.findings { lines.append("    · " + finding) }
            for observation in report.observations { lines.append("    · " + observation) }
        }
        lines.append("")
        let counts = CaseVerdict.allCases.compactMap { verdict -> String? in
            let count = suite.count(verdict)
            return count == 0 ? nil : "\(count) \(verdict.rawValue)"
        }
        lines.append("\(suite.cases.count) case(s): " + counts.joined(separator: ", "))
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    static func paint(_ text: String, _ verdict: CaseVerdict, _ colour: Bool) -> String {
        guard colour else { return text }
        let code: String
        switch verdict {
        case .pass: code = "32"
        case .nonStrict, .informational: code = "33"
        case .unimplemented, .skip: code = "36"
        case .fail, .error: code = "31;1"
        }
        return "\u{1B}[\(code)m\(text)\u{1B}[0m"
    }

    // MARK: JSON

    public static func json(_ suite: SuiteReport) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(suite)
    }

    public static func decode(_ data: Data) throws -> SuiteReport {
        try JSONDecoder().decode(SuiteReport.self, from: data)
    }

    // MARK: JUnit

    /// One `<testcase>` per case. `fail` is a `<failure>`, `error` an `<error>`, `skip` and
    /// `unimplemented` are `<skipped>`; `non-strict` and `informational` pass with their findings in
    /// `<system-out>`, so that CI shows them without going red.
    public static func junit(_ suite: SuiteReport) -> String {
        let failures = suite.count(.fail)
        let errors = suite.count(.error)
        let skipped = suite.count(.skip) + suite.count(.unimplemented)
        let time = suite.cases.compactMap(\.outcome?.seconds).reduce(0, +)
        let name = "authmock check: " + suite.client
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        let counts = #"tests="\#(suite.cases.count)" failures="\#(failures)" errors="\#(errors)" skipped="\#(skipped)""#
            + #" time="\#(TextFormat.fixed(time, places: 3))""#
        xml += #"<testsuites name="\#(escape(name))" \#(counts)>"# + "\n"
        xml += #"  <testsuite name="\#(escape(name))" \#(counts) timestamp="\#(escape(suite.started))">"# + "\n"
        for report in suite.cases {
            let seconds = TextFormat.fixed(report.outcome?.seconds ?? 0, places: 3)
            xml += #"    <testcase classname="authmock.\#(escape(suite.client))""#
                + #" name="\#(escape(report.id + " — " + report.title))" time="\#(seconds)">"# + "\n"
            let message = report.findings.first ?? report.verdict.rawValue
            let details = (report.findings + report.observations).joined(separator: "\n")
            switch report.verdict {
            case .fail:
                xml += #"      <failure type="fail" message="\#(escape(message))">"#
                    + #"\#(escape(details + outputs(report)))</failure>"# + "\n"
            case .error:
                xml += #"      <error type="error" message="\#(escape(message))">\#(escape(details))</error>"# + "\n"
            case .skip, .unimplemented:
                xml += #"      <skipped message="\#(escape(report.verdict.rawValue + ": " + message))"/>"# + "\n"
            case .pass, .nonStrict, .informational:
                if !details.isEmpty {
                    xml += "      <system-out>\(escape(report.verdict.rawValue + ": " + details))</system-out>\n"
                }
            }
            xml += "    </testcase>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    static func outputs(_ report: CaseReport) -> String {
        var text = ""
        if let command = report.command { text += "\n\ncommand: " + command.joined(separator: " ") }
        if let stderr = report.stderr, !stderr.isEmpty { text += "\nstderr: " + stderr }
        return text
    }

    /// XML 1.0 text: the five entities escaped and control characters (other than tab and newline) dropped.
    static func escape(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t", "\n": result.unicodeScalars.append(scalar)
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF: continue
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    // MARK: Markdown

    /// One client's results as a Markdown table: case, verdict, and what happened for non-passes.
    public static func markdown(_ suite: SuiteReport) -> String {
        var lines = [
            "### \(suite.client)" + (suite.version.map { " — \($0)" } ?? ""), "",
            "| case | verdict | what the client did |", "|---|---|---|",
        ]
        for report in suite.cases {
            let what = (report.findings + report.observations).joined(separator: "<br>")
            lines.append("| `\(report.id)` | \(symbol(report.verdict)) | \(cell(what)) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The matrix's rows: every case of the reports, in the order they first appear, with its title.
    static func caseRows(_ suites: [SuiteReport]) -> (ids: [String], titles: [String: String]) {
        var ids: [String] = []
        var titles: [String: String] = [:]
        for suite in suites {
            for report in suite.cases where titles[report.id] == nil {
                ids.append(report.id)
                titles[report.id] = report.title
            }
        }
        return (ids, titles)
    }

    /// The matrix of clients × cases from several suite reports, with a legend and notes per client.
    /// - Parameter guide: Markdown put at the top, before the tables (the reading guide, written by hand).
    /// - Parameter cells: per client, its profile's `cells:` entries: a cell an entry explains links to the
    ///   explanation under the table. A client that has an entry (even an empty list) has a profile, and its
    ///   non-pass cells without an entry are listed as unexplained.
    public static func matrix(
        _ suites: [SuiteReport], notes: [String: String] = [:], cells: [String: [ClientProfile.CellNote]] = [:],
        guide: String? = nil, title: String = "Conformance matrix"
    ) -> String {
        let (ids, titles) = caseRows(suites)
        var lines = ["# \(title)", ""]
        lines.append("Generated by `ci/conformance` with `authmock check`; do not edit by hand.")
        lines.append("")
        if let guide = guide?.trimmingWhitespace(), !guide.isEmpty {
            lines.append(guide)
            lines.append("")
        }
        lines += leakSummary(suites)
        lines.append(
            "Verdicts: ✅ pass · ⚠️ non-strict (a SHOULD broken) · ℹ️ informational (client policy)"
                + " · ➖ unimplemented · ❌ fail · 💥 error (runner)"
                + " · ⏭ skip (feature not offered by the client)."
        )
        lines.append("")
        let columns: [CaseVerdict] = [.pass, .nonStrict, .informational, .unimplemented, .fail, .error, .skip]
        lines.append("| client | version | " + columns.map(\.rawValue).joined(separator: " | ") + " |")
        lines.append("|---|---|" + columns.map { _ in "---|" }.joined())
        for suite in suites {
            let counts = columns.map { String(suite.count($0)) }
            lines.append(
                "| \(suite.client) | \(cell(suite.version ?? "?")) | " + counts.joined(separator: " | ") + " |"
            )
        }
        lines.append("")
        lines.append("| case | " + suites.map(\.client).joined(separator: " | ") + " |")
        lines.append("|---|" + suites.map { _ in "---|" }.joined())
        for id in ids {
            let cells = suites.map { suite -> String in
                guard let report = suite.cases.first(where: { $0.id == id }) else { return " " }
                let explained = cells[suite.client]?.contains { $0.cases.contains(id) } ?? false
                guard explained else { return symbol(report.verdict) }
                return "[\(symbol(report.verdict))](#\(noteAnchor(client: suite.client, case: id)))"
            }
            lines.append("| `\(id)` \(cell(titles[id] ?? "")) | " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        lines.append("## What each client did where it did not pass")
        for suite in suites {
            lines += clientNotes(suite, note: notes[suite.client], cells: cells[suite.client])
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One client's section under the matrix: its profile's notes, each case it did not pass (with the
    /// `cells:` entry that explains it), the skipped ones and the ones no entry explains yet.
    static func clientNotes(_ suite: SuiteReport, note: String?, cells: [ClientProfile.CellNote]?) -> [String] {
        var lines = ["", "### \(suite.client)"]
        if let note, !note.isEmpty {
            lines.append("")
            lines.append(note.trimmingWhitespace())
        }
        let entries = cells ?? []
        let entry = { (id: String) in entries.first { $0.cases.contains(id) } }
        let notable = suite.cases.filter { ($0.verdict != .pass && $0.verdict != .skip) || entry($0.id) != nil }
        lines.append("")
        if notable.isEmpty {
            lines.append("Every case it ran passed.")
            return lines
        }
        for report in notable {
            let what = (report.findings + report.observations).joined(separator: " ")
                .replacing("\n", with: " ")
            guard let note = entry(report.id) else {
                lines.append("- `\(report.id)` \(symbol(report.verdict)) \(report.verdict.rawValue): \(what)")
                continue
            }
            let anchor = "<a id=\"\(noteAnchor(client: suite.client, case: report.id))\"></a>"
            lines.append(
                "- \(anchor)`\(report.id)` \(symbol(report.verdict)) \(report.verdict.rawValue)"
                    + (what.isEmpty ? "" : ": \(what)")
            )
            lines.append("")
            lines.append(contentsOf: explanation(note, report).map {
                $0.trimmingBlanks().isEmpty ? "" : "  " + $0
            })
        }
        let skipped = suite.cases.filter { $0.verdict == .skip && entry($0.id) == nil }.map(\.id)
        if !skipped.isEmpty {
            lines.append(
                "- skipped (features its profile says it lacks): " + skipped.map { "`\($0)`" }.joined(separator: ", ")
            )
        }
        let unexplained = notable.filter { entry($0.id) == nil }.map(\.id)
        if cells != nil, !unexplained.isEmpty {
            lines.append(
                "- not explained yet (no `cells:` entry in its profile): "
                    + unexplained.map { "`\($0)`" }.joined(separator: ", ")
            )
        }
        return lines
    }

    /// The anchor of a cell's explanation under the matrix, which the cell links to:
    /// `note-curl--digest.md5`.
    static func noteAnchor(client: String, case id: String) -> String {
        "note-\(HTMLSite.component(client))--\(HTMLSite.component(id))"
    }

    /// A `cells:` entry under its case: why (Markdown, as written) and the links, or, when the run gave the
    /// cell another verdict, that the entry is out of date instead of an explanation that no longer holds.
    static func explanation(_ note: ClientProfile.CellNote, _ report: CaseReport) -> [String] {
        guard note.holds(for: report) else {
            return [
                "⚠️ The profile's `cells:` entry explains \(note.verdict.rawValue),"
                    + " but the run says \(report.verdict.rawValue): "
                    + "its explanation is left out until it is updated (`authmock matrix` reports it and fails)."
            ]
        }
        var lines = note.why.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines[0] = "**Why:** " + lines[0]
        if !note.links.isEmpty {
            lines.append("")
            lines.append("Links: " + note.links.map { "<\($0)>" }.joined(separator: " · "))
        }
        return lines
    }

    static func symbol(_ verdict: CaseVerdict) -> String {
        switch verdict {
        case .pass: "✅"
        case .nonStrict: "⚠️"
        case .informational: "ℹ️"
        case .unimplemented: "➖"
        case .fail: "❌"
        case .error: "💥"
        case .skip: "⏭"
        }
    }

    static func cell(_ text: String) -> String {
        text.replacing("|", with: "\\|").replacing("\n", with: " ")
    }
}
