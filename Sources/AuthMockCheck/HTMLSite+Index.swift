import AuthMockCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The index page: the legend, the verdict counts, the matrix with its CSS-only filters, the notes.
extension HTMLSite {
    static func index(
        _ suites: [SuiteReport], notes: [String: String], cells: [String: [ClientProfile.CellNote]] = [:],
        title: String,
        links: [Reports.SiteLink] = []
    ) -> String {
        let (ids, titles) = Reports.caseRows(suites)
        var families: [String] = []
        for id in ids where !families.contains(family(id)) { families.append(family(id)) }
        let present = CaseVerdict.allCases.filter { verdict in suites.contains { $0.count(verdict) > 0 } }

        var body = "<header>\n<h1>\(escape(title))</h1>\n"
        body += runHeader(suites, cases: ids.count, links: links) + "</header>\n"

        body += "<section class=\"legend\">\n<h2>Verdicts</h2>\n<ul>\n"
        for (verdict, meaning) in legend {
            body += "<li>\(badge(verdict)) \(escape(meaning))</li>\n"
        }
        body += "</ul>\n</section>\n"

        body += summary(suites)
        body += matrix(suites, ids: ids, titles: titles, families: families, verdicts: present, cells: cells)
        body += clientNotes(suites, notes: notes, cells: cells)
        return page(title: title, root: "", body: body, script: true)
    }

    /// What run this is: when it started, on which machine, with which authmock, how long each client took,
    /// and the run's other reports.
    static func runHeader(_ suites: [SuiteReport], cases: Int, links: [Reports.SiteLink]) -> String {
        var facts: [(String, String)] = []
        if let started = suites.map(\.started).min() {
            facts.append(("started", "<time datetime=\"\(escape(started))\">\(escape(started))</time>"))
        }
        let hosts = Set(suites.compactMap(\.host)).sorted()
        if !hosts.isEmpty { facts.append(("host", escape(hosts.joined(separator: "; ")))) }
        let versions = Set(suites.map(\.authmock)).filter { !$0.isEmpty }.sorted()
        if !versions.isEmpty { facts.append(("authmock", "<code>\(escape(versions.joined(separator: ", ")))</code>")) }
        facts.append(("reports", "\(suites.count) client(s), \(cases) case(s); each cell opens the exchange behind it"))
        let timed = suites.filter { $0.seconds != nil }
        if !timed.isEmpty {
            let total = timed.compactMap(\.seconds).reduce(0, +)
            let each = timed.map { "\(escape($0.client)) \(TextFormat.fixed($0.seconds!, places: 1)) s" }
            facts.append(
                ("duration", "\(TextFormat.fixed(total, places: 1)) s of client runs (\(each.joined(separator: ", ")))")
            )
        }
        if !links.isEmpty {
            facts.append(
                (
                    "files",
                    links.map { "<a href=\"\(escape($0.href))\">\(escape($0.label))</a>" }
                        .joined(separator: " · ")
                ))
        }
        return "<dl class=\"run\">\n" + facts.map { "<dt>\($0.0)</dt><dd>\($0.1)</dd>\n" }.joined() + "</dl>\n"
    }

    /// Per client: its version and how many cases had each verdict.
    static func summary(_ suites: [SuiteReport]) -> String {
        var html =
            "<section class=\"summary\">\n<h2>Clients</h2>\n"
            + "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"the counts (scrolls sideways)\">\n"
            + "<table class=\"counts\">\n"
            + "<thead><tr><th scope=\"col\">client</th><th scope=\"col\">version</th>"
        for verdict in CaseVerdict.allCases {
            html +=
                "<th scope=\"col\" class=\"\(verdictClass(verdict))\" title=\"\(escape(verdict.rawValue))\">"
                + "\(mark(verdict)) \(escape(verdict.rawValue))</th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for suite in suites {
            html +=
                "<tr><th scope=\"row\"><a href=\"#client-\(component(suite.client))\">"
                + "\(escape(suite.client))</a></th><td>\(escape(suite.version ?? "?"))</td>"
            for verdict in CaseVerdict.allCases {
                let count = suite.count(verdict)
                html +=
                    count == 0
                    ? "<td class=\"zero\">0</td>" : "<td class=\"\(verdictClass(verdict))\">\(count)</td>"
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</div>\n</section>\n"
    }

    /// The matrix, preceded by its filters: radio inputs whose `:checked` state hides rows through the
    /// generated rules of the page's `<style>` (no script).
    static func matrix(
        _ suites: [SuiteReport], ids: [String], titles: [String: String], families: [String], verdicts: [CaseVerdict],
        cells: [String: [ClientProfile.CellNote]] = [:]
    ) -> String {
        var html = "<section class=\"cases\">\n<h2>Matrix</h2>\n"
        html += filters(ids: ids, families: families, verdicts: verdicts)
        html += "<div class=\"scroll\" tabindex=\"0\" role=\"region\" aria-label=\"the matrix (scrolls sideways)\">\n"
        html += "<table class=\"matrix\">\n<thead><tr><th scope=\"col\" class=\"case\">case</th>"
        for suite in suites {
            let version = suite.version.map { " title=\"\(escape($0))\"" } ?? ""
            html +=
                "<th scope=\"col\" class=\"client\"\(version)>"
                + "<a href=\"#client-\(component(suite.client))\">\(escape(suite.client))</a></th>"
        }
        html += "</tr></thead>\n<tbody>\n"
        for id in ids {
            let reports = suites.map { suite in suite.cases.first { $0.id == id } }
            let tokens = Set(reports.compactMap { $0?.verdict.rawValue }).sorted()
            html += "<tr data-family=\"\(component(family(id)))\" data-verdicts=\" \(tokens.joined(separator: " ")) \">"
            html +=
                "<th scope=\"row\" class=\"case\"><code>\(escape(id))</code>"
                + " <span class=\"title\">\(escape(titles[id] ?? ""))</span></th>"
            for (suite, report) in zip(suites, reports) {
                let note = cells[suite.client]?.first { $0.cases.contains(id) }
                html += cell(report, id: id, client: suite.client, note: note)
            }
            html += "</tr>\n"
        }
        return html + "</tbody>\n</table>\n</div>\n</section>\n"
    }

    /// The filters' style, radio inputs and labels: by family of cases and by verdict.
    static func filters(ids: [String], families: [String], verdicts: [CaseVerdict]) -> String {
        let familyIDs = ["all"] + families.map(component)
        let verdictIDs = ["all"] + verdicts.map(\.rawValue)
        var style = "<style>\n"
        for token in familyIDs.dropFirst() {
            style +=
                "#family-\(token):checked ~ .scroll table.matrix tbody tr:not([data-family=\"\(token)\"])"
                + " { display: none; }\n"
        }
        for token in verdictIDs.dropFirst() {
            style +=
                "#verdict-\(token):checked ~ .scroll table.matrix tbody tr:not([data-verdicts~=\"\(token)\"])"
                + " { display: none; }\n"
            style += "#verdict-\(token):checked ~ .scroll table.matrix td.cell:not(.v-\(token)) { opacity: 0.25; }\n"
        }
        let chosen =
            familyIDs.map { "#family-\($0):checked ~ .filters label[for=\"family-\($0)\"]" }
            + verdictIDs.map { "#verdict-\($0):checked ~ .filters label[for=\"verdict-\($0)\"]" }
        style +=
            chosen.joined(separator: ",\n")
            + " { background: var(--chosen); color: var(--chosen-text); border-color: var(--chosen); }\n"
        let focused =
            familyIDs.map { "#family-\($0):focus-visible ~ .filters label[for=\"family-\($0)\"]" }
            + verdictIDs.map { "#verdict-\($0):focus-visible ~ .filters label[for=\"verdict-\($0)\"]" }
        style += focused.joined(separator: ",\n") + " { outline: 2px solid var(--focus); }\n"
        style += "</style>\n"

        var html = style
        for (index, token) in familyIDs.enumerated() {
            html +=
                "<input type=\"radio\" class=\"filter\" name=\"family\" id=\"family-\(token)\""
                + "\(index == 0 ? " checked" : "")>\n"
        }
        for (index, token) in verdictIDs.enumerated() {
            html +=
                "<input type=\"radio\" class=\"filter\" name=\"verdict\" id=\"verdict-\(token)\""
                + "\(index == 0 ? " checked" : "")>\n"
        }
        html += "<div class=\"filters\">\n<p><span class=\"what\">Family</span> <label for=\"family-all\">all</label>"
        for name in families {
            let count = ids.filter { family($0) == name }.count
            html +=
                " <label for=\"family-\(component(name))\">"
                + "\(escape(name)) <span class=\"n\">\(count)</span></label>"
        }
        html += "</p>\n<p><span class=\"what\">Verdict</span> <label for=\"verdict-all\">all</label>"
        for verdict in verdicts {
            html +=
                " <label for=\"verdict-\(verdict.rawValue)\" class=\"\(verdictClass(verdict))\">"
                + "\(mark(verdict)) \(escape(verdict.rawValue))</label>"
        }
        html +=
            "</p>\n<p class=\"hint\">A verdict filter keeps the cases where some client has it and dims the"
            + " other cells.</p>\n</div>\n"
        return html
    }

    /// One cell of the matrix: the client's verdict on the case, a link to its page, and whether the
    /// profile's `cells:` explains it.
    static func cell(_ report: CaseReport?, id: String, client: String, note: ClientProfile.CellNote?) -> String {
        guard let report else { return "<td class=\"cell none\" title=\"\(escape(client)): not run\"></td>" }
        var tip = "\(client) · \(id): \(report.verdict.rawValue)"
        var marker = ""
        var noted = ""
        if let note {
            // The explanation's opening as the tooltip, the whole of it on the cell's page.
            tip +=
                note.holds(for: report)
                ? " — why: " + opening(note.why)
                : " — the profile's cells: entry says \(note.verdict.rawValue): out of date"
            marker =
                "<sup class=\"noted\" aria-hidden=\"true\">\(note.holds(for: report) ? "*" : "!")</sup>"
                + "<span class=\"hidden\"> (explained)</span>"
            noted = note.holds(for: report) ? " noted" : " noted stale"
        }
        return "<td class=\"cell \(verdictClass(report.verdict))\(noted)\">"
            + "<a href=\"\(escape(cellPath(client: client, case: id)))\" title=\"\(escape(tip))\">"
            + "\(mark(report.verdict))<span class=\"hidden\"> \(escape(report.verdict.rawValue))</span>"
            + "\(marker)</a></td>"
    }

    /// Below the matrix, per client: its profile's notes and the cases it did not pass.
    static func clientNotes(
        _ suites: [SuiteReport], notes: [String: String], cells: [String: [ClientProfile.CellNote]] = [:]
    ) -> String {
        var html = "<section class=\"notes\">\n<h2>What each client did where it did not pass</h2>\n"
        for suite in suites {
            html += clientNote(suite, note: notes[suite.client], cells: cells[suite.client])
        }
        return html + "</section>\n"
    }

    /// One client's notes: its profile's `notes:`, each case it did not pass (with the `cells:` entry that
    /// explains it), the ones no entry explains yet, and the skipped ones.
    static func clientNote(_ suite: SuiteReport, note: String?, cells: [ClientProfile.CellNote]?) -> String {
        var html = "<article class=\"client\" id=\"client-\(component(suite.client))\">\n<h3>\(escape(suite.client))"
        if let version = suite.version { html += " <span class=\"version\">\(escape(version))</span>" }
        html += "</h3>\n"
        if let note = note?.trimmingWhitespace(), !note.isEmpty {
            html += "<div class=\"note\">\n" + markdown(note) + "</div>\n"
        }
        let entries = cells ?? []
        let entry = { (id: String) in entries.first { $0.cases.contains(id) } }
        let caseLink = { (id: String) in
            "<a href=\"\(escape(cellPath(client: suite.client, case: id)))\"><code>\(escape(id))</code></a>"
        }
        let notable = suite.cases.filter { ($0.verdict != .pass && $0.verdict != .skip) || entry($0.id) != nil }
        if notable.isEmpty {
            html += "<p>Every case it ran passed.</p>\n"
        } else {
            html += "<ul class=\"notable\">\n"
            for report in notable {
                html +=
                    "<li><a href=\"\(escape(cellPath(client: suite.client, case: report.id)))\">"
                    + "\(badge(report.verdict)) <code>\(escape(report.id))</code></a>"
                let what = report.findings + report.observations
                if !what.isEmpty {
                    // Each finding's sentence without its quotes of the journal: the cell's page has them.
                    html +=
                        "<ul class=\"findings\">" + what.map { "<li>\(linked(sentence($0)))</li>" }.joined() + "</ul>"
                }
                if let note = entry(report.id) { html += explanation(note, report) }
                html += "</li>\n"
            }
            html += "</ul>\n"
        }
        let unexplained = notable.filter { entry($0.id) == nil }
        if cells != nil, !unexplained.isEmpty {
            html +=
                "<p class=\"unexplained\">Not explained yet (no <code>cells:</code> entry in its profile): "
                + unexplained.map { caseLink($0.id) }.joined(separator: ", ") + "</p>\n"
        }
        let skipped = suite.cases.filter { $0.verdict == .skip && entry($0.id) == nil }
        if !skipped.isEmpty {
            html +=
                "<p class=\"skipped\">Skipped (features its profile says it lacks): "
                + skipped.map { caseLink($0.id) }.joined(separator: ", ") + "</p>\n"
        }
        return html + "</article>\n"
    }

    /// A `cells:` entry under the case it explains: why and its links, or that it is out of date.
    private static func explanation(_ note: ClientProfile.CellNote, _ report: CaseReport) -> String {
        guard note.holds(for: report) else {
            return "<div class=\"why stale\">The profile's <code>cells:</code> entry explains"
                + " \(escape(note.verdict.rawValue)): out of date, left out.</div>"
        }
        return "<div class=\"why\"><strong>Why:</strong> " + inline(note.why)
            + (note.links.isEmpty ? "" : " · " + note.links.map(link).joined(separator: " · ")) + "</div>"
    }
}
