import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The HTML report (`authmock matrix --html`): every page escapes what the reports carry, the index links
/// each cell to its page, a cell page says which expectations held, and shards render as one column.
struct HTMLReportTests {
    static let caseYAML = """
        version: 1
        name: basic.hostile
        users: [{name: alice, password: wonderland}]
        challenges: [{scheme: Basic}]
        case:
          title: gives up when the server rejects its password
          reference: RFC 9110 §11.6.1
          features: [basic]
          give: {password: wrong}
        expect:
          outcome: failure
          implemented: {credentials: Basic}
          checks:
            - that: stops after two refusals
              at-most: 2
              of: {credentials: Basic}
            - that: never sends more than five requests
              at-most: 5
              of: {}
        """

    static let script = "<script>alert(1)</script>"
    static let image = "<img src=x onerror=alert(2)>"

    static func hostileCase() throws -> ConformanceCase {
        let file = try load(caseYAML)
        return ConformanceCase(scenario: file.scenario, definition: try #require(file.conformance), file: "basic.hostile.yaml")
    }

    /// Three requests with Basic credentials, the first to a path and with a Host that are a script.
    static func journal() -> [JournalEntry] {
        (1...3).map { seq in
            JournalEntry(
                seq: seq, time: Date(timeIntervalSince1970: 0), connection: 1, exchange: seq, remote: "127.0.0.1:5000", method: "GET",
                target: seq == 1 ? "/" + script : "/", version: "HTTP/1.1",
                headers: [.init(name: "Host", value: seq == 1 ? script : "127.0.0.1:8080"), .init(name: "Authorization", value: "Basic YWxpY2U6eA==", credential: true)],
                bodyBytes: 0, credentials: PresentedCredentials(header: "Authorization", scheme: "Basic", user: "alice", password: "x"),
                verdict: "basic.bad-password", detail: "wrong password for 'alice' at " + script, status: 401, challenges: [#"Basic realm="\#(script)""#]
            )
        }
    }

    /// The case judged on that journal, as the runner reports it, with hostile output and one more finding.
    static func hostileReport() throws -> CaseReport {
        let item = try hostileCase()
        let journal = journal()
        let judgement = Judge(expectations: item.definition.expectations, authority: "127.0.0.1:8080").judge(journal, outcome: ClientOutcome(exitStatus: 1))
        return CaseReport(
            id: item.id, title: item.definition.title, reference: item.definition.reference, verdict: judgement.verdict,
            findings: judgement.findings + ["the client printed " + image], observations: judgement.observations,
            outcome: ClientOutcome(exitStatus: 1, seconds: 0.2), command: ["client", "--header", script, "-w", "%{http_code}\n"], stdout: "401 " + image + "\n",
            stderr: script, journal: journal, quoted: judgement.quoted
        )
    }

    static func site() throws -> [String: String] {
        let suite = SuiteReport(client: "evil", version: script, authmock: "test", started: "", cases: [try hostileReport()])
        return Reports.html([suite], cases: [try hostileCase()], notes: ["evil": "It does *this*.\n\n" + script + " " + image])
    }

    /// The `href`s of `html` that are not fragments, in order.
    static func links(_ html: Substring) -> [String] {
        html.components(separatedBy: "href=\"").dropFirst().map { String($0.prefix { $0 != "\"" }) }.filter { !$0.hasPrefix("#") }
    }

    /// `href` read from the page at `page`, as a path from the site's root (without its fragment).
    static func resolve(_ href: String, from page: String) -> String {
        var parts = page.split(separator: "/").dropLast().map(String.init)
        for part in href.prefix(while: { $0 != "#" }).split(separator: "/") {
            if part == ".." { parts = parts.dropLast() } else if part != "." { parts.append(String(part)) }
        }
        return parts.joined(separator: "/")
    }

    /// The matrix table of the index.
    static func matrix(_ index: String) throws -> Substring {
        let start = try #require(index.range(of: "<table class=\"matrix\">"))
        let end = try #require(index.range(of: "</table>", range: start.upperBound..<index.endIndex))
        return index[start.lowerBound..<end.upperBound]
    }

    /// The `<li>` of a cell page's expectation list whose text is `that`.
    static func check(_ page: String, _ that: String) throws -> Substring {
        let text = try #require(page.range(of: ">\(that)<"))
        let start = try #require(page.range(of: "<li class=\"check", options: .backwards, range: page.startIndex..<text.lowerBound))
        return page[start.lowerBound..<text.lowerBound]
    }

    /// Scripts and images from a path, a header, a finding, the client's output and the notes are text on
    /// every page: none reaches a page as markup, and the cell page shows them escaped.
    @Test func everythingFromReportsIsEscaped() throws {
        let files = try Self.site()
        for (path, text) in files {
            // The one script element is the site's own `site.js` (the filters in the URL), on the index.
            let own = text.replacing("<script src=\"site.js\" defer></script>", with: "")
            #expect(!own.lowercased().contains("<script"), "\(path) has a script element")
            #expect(!text.lowercased().contains("<img"), "\(path) has an image element")
        }
        let page = try #require(files["cases/evil/basic.hostile.html"])
        let script = "&lt;script&gt;alert(1)&lt;/script&gt;"
        #expect(page.contains("<code class=\"request\">GET /" + script + " <span class=\"protocol\">"), "the path")
        #expect(page.contains("<th scope=\"row\">Host</th><td><code>" + script + "</code>"), "the header")
        #expect(page.contains("the client printed &lt;img src=x onerror=alert(2)&gt;"), "the finding")
        #expect(page.contains("401 &lt;img src=x onerror=alert(2)&gt;"), "stdout")
        #expect(page.contains("<pre class=\"stderr\">" + script + "</pre>"), "stderr")
        #expect(page.contains("<pre class=\"command\">client --header &#39;\(script)&#39; -w $&#39;%{http_code}\\n&#39;</pre>"), "the command, quoted for a shell")
        let index = try #require(files["index.html"])
        #expect(index.contains(script + " &lt;img src=x onerror=alert(2)&gt;"), "the notes")
    }

    /// A client's name cannot place a page outside the site: it becomes a plain path component.
    @Test func namesFromReportsStayInsideTheSite() throws {
        let report = CaseReport(id: "../../etc/passwd", title: "t", verdict: .pass)
        let files = Reports.html([SuiteReport(client: "../..", authmock: "", started: "", cases: [report])])
        let pages = files.keys.filter { $0.hasPrefix("cases/") }
        #expect(pages.count == 1)
        for path in files.keys {
            #expect(!path.split(separator: "/").contains { $0.hasPrefix(".") }, "\(path) climbs or hides")
        }
    }

    /// The index's matrix has one link per cell, each to a page of the site, and every relative link of
    /// every page (stylesheet, back to the index, cell pages from the notes) reaches a file of the site.
    @Test func everyCellLinksToItsPage() throws {
        let reports = ["basic.one", "basic.two", "digest.three"].map { CaseReport(id: $0, title: "case " + $0, verdict: .pass) }
        var failing = reports
        failing[2].verdict = .fail
        failing[2].findings = ["expected: something — it did not"]
        let suites = [
            SuiteReport(client: "curl", authmock: "", started: "", cases: reports),
            SuiteReport(client: "wget", authmock: "", started: "", cases: failing),
            SuiteReport(client: "partial", authmock: "", started: "", cases: [reports[0]]),
        ]
        let files = Reports.html(suites, notes: ["wget": "A note."])
        let index = try #require(files["index.html"])
        let links = Self.links(try Self.matrix(index))
        #expect(links.count == 3 + 3 + 1)
        #expect(Set(links).count == links.count)
        #expect(Set(links) == Set(files.keys.filter { $0.hasPrefix("cases/") }))
        #expect(links.contains("cases/wget/digest.three.html"))
        for (path, text) in files where path.hasSuffix(".html") {
            for href in Self.links(text[...]) {
                #expect(files[Self.resolve(href, from: path)] != nil, "\(path) links to \(href), which is not in the site")
            }
        }
        #expect(index.contains("<td class=\"cell v-fail\">"), "a cell's verdict is its class")
        #expect(index.contains("data-family=\"digest\""), "rows carry their family for the filter")
    }

    /// The filters are radio inputs and generated CSS rules: no script, one input per family and verdict.
    @Test func filtersNeedNoScript() throws {
        let index = try #require(try Self.site()["index.html"])
        #expect(index.contains("<input type=\"radio\" class=\"filter\" name=\"family\" id=\"family-basic\">"))
        #expect(index.contains("<input type=\"radio\" class=\"filter\" name=\"verdict\" id=\"verdict-fail\">"))
        #expect(index.contains(
            "#family-basic:checked ~ .scroll table.matrix tbody tr:not([data-family=\"basic\"]) { display: none; }"
        ))
        // A script only keeps the choice in the URL: the one script element is the site's file, loaded deferred.
        #expect(index.components(separatedBy: "<script").count == 2)
        #expect(index.contains("<script src=\"site.js\" defer></script>"))
    }

    /// A check the finding names is broken, with what the client did; the others held; the outcome held.
    @Test func brokenAndHeldChecksAreMarked() throws {
        let page = try #require(try Self.site()["cases/evil/basic.hostile.html"])
        let broken = try Self.check(page, "stops after two refusals")
        #expect(broken.hasPrefix("<li class=\"check broken\">"))
        #expect(page.contains("3 request(s) with Basic credentials, at most 2 expected"))
        #expect(try Self.check(page, "never sends more than five requests").hasPrefix("<li class=\"check held\">"))
        #expect(try Self.check(page, "the client reports the failure (non-zero exit status)").hasPrefix("<li class=\"check held\">"))
        #expect(page.contains("<span class=\"badge v-fail\"><span class=\"glyph\" aria-hidden=\"true\">✗</span> fail</span>"))
        #expect(page.contains("Reference: <a href=\"https://www.rfc-editor.org/rfc/rfc9110#section-11.6.1\">RFC 9110 §11.6.1</a>"))
        #expect(page.contains("<ol class=\"journal\">"), "the journal is JournalHTML's")
    }

    /// A skipped case's page says its checks were not judged, and without the suite no check is listed.
    @Test func skippedAndUndefinedCasesJudgeNoCheck() throws {
        let item = try Self.hostileCase()
        let skipped = CaseReport(id: item.id, title: item.definition.title, verdict: .skip, findings: ["the client does not support basic"])
        let suite = SuiteReport(client: "c", authmock: "", started: "", cases: [skipped])
        let page = try #require(Reports.html([suite], cases: [item])["cases/c/basic.hostile.html"])
        #expect(try Self.check(page, "stops after two refusals").hasPrefix("<li class=\"check not-judged\">"))
        #expect(!page.contains("check held") && !page.contains("check broken"))
        #expect(page.contains("No request reached the server."))
        let bare = try #require(Reports.html([suite])["cases/c/basic.hostile.html"])
        #expect(!bare.contains("<li class=\"check"))
        #expect(bare.contains("the expectations are not listed"))
    }

    /// The shards of one client's run, merged as `authmock matrix` merges them, are one column with every case.
    @Test func mergedShardsRenderOneColumn() throws {
        let first = SuiteReport(client: "curl", authmock: "", started: "a", shard: "1/2", cases: [CaseReport(id: "basic.a", title: "a", verdict: .pass)])
        let second = SuiteReport(client: "curl", authmock: "", started: "b", shard: "2/2", cases: [CaseReport(id: "basic.b", title: "b", verdict: .fail)])
        let files = Reports.html(try ReportMerge.merge([first, second]))
        let matrix = try Self.matrix(try #require(files["index.html"]))
        #expect(matrix.components(separatedBy: "<th scope=\"col\" class=\"client\"").count - 1 == 1)
        #expect(Self.links(matrix) == ["cases/curl/basic.a.html", "cases/curl/basic.b.html"])
        #expect(files["cases/curl/basic.a.html"] != nil && files["cases/curl/basic.b.html"] != nil)
    }
}
