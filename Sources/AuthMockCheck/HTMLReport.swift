import AuthMockCore
#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The conformance report as a static site (`authmock matrix --html`, `authmock check --html`): an index
/// with the matrix of clients × cases, filtered by family and verdict with CSS alone, one page per cell
/// with the case's expectations, the verdict, the client's command and output, and the journal of the run
/// (rendered by ``JournalHTML``, the same view as `serve`'s live page), and one stylesheet. No script, no
/// fetch: the pages read the same from a CI artifact, a file:// URL or a web server.
///
/// Everything that comes from a report is escaped: in the hostile cases paths, headers, findings that quote
/// them and the client's output are the attacker's.
extension Reports {
    /// A file the run wrote beside the site (its JSON, its JUnit XML), linked from the index's header.
    public struct SiteLink: Sendable, Equatable {
        public var label: String
        /// Relative to the site's folder (or absolute).
        public var href: String

        public init(label: String, href: String) {
            self.label = label
            self.href = href
        }
    }

    /// The site's files by relative path: `index.html`, `style.css`, `site.js` and
    /// `cases/<client>/<case>.html`.
    /// - Parameters:
    ///   - suites: one report per client, in column order (shards already merged: ``ReportMerge``).
    ///   - cases: the suite's cases, for the expectations on the cell pages; nil lists none (the pages
    ///     then show what the reports carry: title, reference, verdict, findings).
    ///   - notes: per client, its profile's `notes:` (Markdown).
    ///   - cells: per client, its profile's `cells:` entries: each shown on its cell's page (why, links) and
    ///     marked on the index's cell.
    ///   - links: the run's other reports, linked from the index's header.
    public static func html(
        _ suites: [SuiteReport], cases: [ConformanceCase]? = nil, notes: [String: String] = [:],
        cells: [String: [ClientProfile.CellNote]] = [:], title: String = "Conformance matrix",
        links: [SiteLink] = []
    ) -> [String: String] {
        let definitions = Dictionary(
            (cases ?? []).map { ($0.id, $0.definition) }, uniquingKeysWith: { first, _ in first }
        )
        var files: [String: String] = ["style.css": HTMLStyle.stylesheet, "site.js": HTMLSite.script]
        files["index.html"] = HTMLSite.index(suites, notes: notes, cells: cells, title: title, links: links)
        let (ids, _) = Reports.caseRows(suites)
        // Each client's verdict by case, once: a page links the same case's other clients.
        let verdicts = suites.map { suite in
            Dictionary(suite.cases.map { ($0.id, $0.verdict) }, uniquingKeysWith: { first, _ in first })
        }
        for (column, suite) in suites.enumerated() {
            let own = ids.filter { verdicts[column][$0] != nil }
            for report in suite.cases {
                let definition = cases == nil ? nil : definitions[report.id]
                let note = cells[suite.client]?.first { $0.cases.contains(report.id) }
                let place = own.firstIndex(of: report.id)
                let context = HTMLSite.CellContext(
                    suite: suite, siteTitle: title,
                    previous: place.flatMap { $0 > own.startIndex ? own[$0 - 1] : nil },
                    next: place.flatMap { $0 + 1 < own.endIndex ? own[$0 + 1] : nil },
                    others: zip(suites, verdicts).compactMap { other, verdicts in
                        guard other.client != suite.client, let verdict = verdicts[report.id] else { return nil }
                        return (other.client, verdict)
                    }
                )
                files[HTMLSite.cellPath(client: suite.client, case: report.id)] = HTMLSite.cellPage(
                    report, context: context, definition: definition, definitionsGiven: cases != nil, note: note
                )
            }
        }
        return files
    }
}

/// The pieces of ``Reports/html(_:cases:notes:cells:title:)``.
enum HTMLSite {
    static func escape(_ text: String) -> String { JournalHTML.escape(text) }

    // MARK: - Paths

    /// A path component from a name in a report: letters, digits, `.`, `-` and `_` kept, anything else `_`,
    /// never empty nor starting with a dot (a report cannot name `..` or a hidden file).
    static func component(_ name: String) -> String {
        var result = String(
            String.UnicodeScalarView(
                name.unicodeScalars.map { scalar in
                    scalar.isASCII && (PercentEncoding.isAlphanumeric(scalar) || "._-".unicodeScalars.contains(scalar))
                        ? scalar : "_"
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

    /// The verdict's mark in the HTML: a plain glyph every text font has (no emoji font needed), one shape
    /// per verdict, so that the matrix reads without colour too.
    static func glyph(_ verdict: CaseVerdict) -> String {
        switch verdict {
        case .pass: "✓"
        case .nonStrict: "!"
        case .informational: "i"
        case .unimplemented: "∅"
        case .fail: "✗"
        case .error: "?"
        case .skip: "–"
        }
    }

    /// The glyph in its span (hidden from screen readers, which read the verdict's name beside it).
    static func mark(_ verdict: CaseVerdict) -> String {
        "<span class=\"glyph\" aria-hidden=\"true\">\(glyph(verdict))</span>"
    }

    /// The verdict as a badge: glyph and name, coloured by its class.
    static func badge(_ verdict: CaseVerdict) -> String {
        "<span class=\"badge \(verdictClass(verdict))\">\(mark(verdict)) \(escape(verdict.rawValue))</span>"
    }

    // MARK: - Page frame

    static func page(title: String, root: String, body: String, script: Bool = false) -> String {
        let scriptElement = script ? "\n<script src=\"\(root)site.js\" defer></script>" : ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="generator" content="authmock">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title))</title>
            <link rel="stylesheet" href="\(root)style.css">\(scriptElement)
            </head>
            <body>
            \(body)</body>
            </html>

            """
    }
}
