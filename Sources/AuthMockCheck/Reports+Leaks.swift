/// The matrix's "credential leaks" summary: per kind of credential (a row) and client (a column), the routes
/// on which the client let the credential through, from the cases that name their place with `case.leak:`.
extension Reports {
    /// The summary as Markdown, or nothing when no case of the reports has a `leak:`.
    public static func leakSummary(_ suites: [SuiteReport]) -> [String] {
        let kinds = LeakRow.Credential.allCases.filter { kind in
            suites.contains { $0.cases.contains { $0.leak?.credential == kind } }
        }
        guard !kinds.isEmpty else { return [] }
        var lines = [
            "## Credential leaks",
            "",
            "Each row is a kind of credential, each column a client: ❌ lists the routes on which the client"
                + " sent the credential where it must not go (a `fail` verdict of the case behind it), ⚠️ those"
                + " where it broke a SHOULD, ✅ says it kept the credential on every route it was judged on"
                + " (how many in brackets), ℹ️ lists routes where no RFC settles it (the notes say what it"
                + " did), ➖ that it never met the situation (no such credential, or never followed the"
                + " redirect), ⏭ that it lacks the feature. The cases behind each row carry `leak:` in"
                + " `scenarios/conformance/`; the client's notes below the matrix say what it did.",
            "",
            "| credential | " + suites.map(\.client).joined(separator: " | ") + " |",
            "|---|" + suites.map { _ in "---|" }.joined(),
        ]
        for kind in kinds {
            let cells = suites.map { leakCell($0.cases.filter { $0.leak?.credential == kind }) }
            lines.append("| \(kind.title) | " + cells.joined(separator: " | ") + " |")
        }
        lines.append("")
        let routes = LeakRow.Route.allCases.filter { route in
            suites.contains { $0.cases.contains { $0.leak?.route == route } }
        }
        lines.append("Routes: " + routes.map { "**\($0.label)** (`\($0.rawValue)`)" }.joined(separator: ", ") + ".")
        lines.append("")
        return lines
    }

    /// One client's cell for one kind: the worst finding first, with the routes it concerns.
    static func leakCell(_ cases: [CaseReport]) -> String {
        guard !cases.isEmpty else { return " " }
        func routes(_ verdict: CaseVerdict) -> [String] {
            var seen: [String] = []
            for report in cases where report.verdict == verdict {
                let label = report.leak?.route.label ?? report.id
                if !seen.contains(label) { seen.append(label) }
            }
            return seen
        }
        let failed = routes(.fail)
        let broken = routes(.nonStrict)
        let errors = routes(.error)
        var parts: [String] = []
        if !failed.isEmpty { parts.append("❌ " + failed.joined(separator: ", ")) }
        if !broken.isEmpty { parts.append("⚠️ " + broken.joined(separator: ", ")) }
        if !errors.isEmpty { parts.append("💥 " + errors.joined(separator: ", ")) }
        if !parts.isEmpty { return parts.joined(separator: "; ") }
        let passed = cases.filter { $0.verdict == .pass }.count
        if passed > 0 { parts.append("✅ (\(passed))") }
        let reported = routes(.informational)
        if !reported.isEmpty { parts.append("ℹ️ " + reported.joined(separator: ", ")) }
        if !parts.isEmpty { return parts.joined(separator: "; ") }
        return cases.allSatisfy { $0.verdict == .skip } ? "⏭" : "➖"
    }
}
