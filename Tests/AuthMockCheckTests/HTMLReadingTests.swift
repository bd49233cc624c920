@testable import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// What makes a report readable, in the pure parts: a finding counts every entry it is about (not only
/// the ones its text quotes), notes are Markdown with their references linked, a finding's sentence is
/// told apart from its quotes, and the verdict glyphs need neither an emoji font nor colour.
struct HTMLReadingTests {
    /// Seven requests with refused Basic credentials after one challenge: a loop.
    static func loop() -> [JournalEntry] {
        (1...8).map { seq in
            JournalEntry(
                seq: seq, time: Date(timeIntervalSince1970: 0), connection: 1, exchange: seq, remote: nil, method: "GET",
                target: "/", version: "HTTP/1.1", headers: seq == 1 ? [] : [.init(name: "Authorization", value: "Basic YWxpY2U6eA==", credential: true)],
                bodyBytes: 0, credentials: seq == 1 ? nil : PresentedCredentials(header: "Authorization", scheme: "Basic", user: "alice", password: "x"),
                verdict: seq == 1 ? "no-credentials" : "basic.bad-password", detail: nil, status: 401, challenges: ["Basic realm=\"r\""]
            )
        }
    }

    @Test func aFindingCountsEveryEntryItIsAboutNotOnlyTheOnesItQuotes() throws {
        let item = try HTMLReportTests.hostileCase()
        let judgement = Judge(expectations: item.definition.expectations, authority: "127.0.0.1:8080")
            .judge(Self.loop(), outcome: ClientOutcome(exitStatus: 1))
        #expect(judgement.verdict == .fail)
        let evidence = try #require(judgement.evidence)
        #expect(evidence.count == judgement.findings.count)
        // "stops after two refusals": 7 requests with Basic credentials, the text quotes the first four.
        let index = try #require(judgement.findings.firstIndex { $0.hasPrefix("expected: stops after two refusals") })
        #expect(evidence[index] == Array(2...8))
        #expect(judgement.quoted.count < evidence[index].count)
    }

    @Test func aNoteAddedToAJudgementKeepsTheEvidenceInStep() {
        var judgement = Judgement(verdict: .fail, findings: ["a"], evidence: [[3]])
        judgement.add(finding: "first", first: true)
        judgement.add(finding: "last")
        #expect(judgement.findings == ["first", "a", "last"])
        #expect(judgement.evidence == [[], [3], []])
    }

    @Test func journalEntriesOfACellPageAreWholeAndRetriesNumbered() {
        let html = JournalHTML.entries(Self.loop(), counted: [2: [1], 8: [1, 2]])
        #expect(html.contains("<li class=\"entry challenge\" id=\"e1\""))
        #expect(html.contains("<li class=\"entry rejected counted\" id=\"e2\""))
        #expect(html.contains("credentials refused, retry 7"))
        #expect(html.contains("counted by finding <a href=\"#finding-1\">1</a>, <a href=\"#finding-2\">2</a>"))
        #expect(!html.contains("YWxpY2U6eA==</code></td>"), "a credential shows unmasked")
        #expect(html.contains("<code class=\"raw\">Basic YWxpY2U6eA==</code></details>"), "the reveal holds it")
    }

    @Test func notesAreMarkdownWithTheirReferencesLinked() {
        let html = HTMLSite.markdown("""
            **TLS and pinning.** `--pinnedpubkey` fails closed (RFC 7469 §2.6; CVE-2023-38545,
            [curl#3341](https://github.com/curl/curl/issues/3341), psf/requests#6655).

            - one
              continued
            - two <b>
            """)
        #expect(html.contains("<p><strong>TLS and pinning.</strong> <code>--pinnedpubkey</code> fails closed"))
        #expect(html.contains("<a href=\"https://www.rfc-editor.org/rfc/rfc7469#section-2.6\">RFC 7469 §2.6</a>"))
        #expect(html.contains("<a href=\"https://www.cve.org/CVERecord?id=CVE-2023-38545\">CVE-2023-38545</a>"))
        #expect(html.contains("<a href=\"https://github.com/curl/curl/issues/3341\">curl#3341</a>"))
        #expect(html.contains("<a href=\"https://github.com/psf/requests/issues/6655\">psf/requests#6655</a>"))
        #expect(html.contains("<ul>\n<li>one continued</li>\n<li>two &lt;b&gt;</li>\n</ul>"))
        // A reference inside a word is no reference, and a URL ends before trailing punctuation.
        #expect(!HTMLSite.linked("xRFC 1234").contains("<a"))
        #expect(HTMLSite.linked("see https://example.com/a.") == "see <a href=\"https://example.com/a\">https://example.com/a</a>.")
    }

    @Test func aFindingsSentenceStopsWhereItsQuotesBegin() {
        let finding = "expected: stops — 7 request(s) with Basic credentials, at most 2 expected: #2 GET / [Basic alice] → 401"
        #expect(HTMLSite.sentence(finding) == "expected: stops — 7 request(s) with Basic credentials, at most 2 expected …")
        #expect(HTMLSite.sentence("it exited 1; last in the journal: #15 GET / → 200") == "it exited 1 …")
        #expect(HTMLSite.sentence("the client never reached the server") == "the client never reached the server")
    }

    @Test func theDecisiveFindingIsTheFirstThatCountsEntries() {
        var report = CaseReport(id: "x", title: "x", verdict: .fail, findings: ["the client used Digest in `y`", "expected: …"])
        report.evidence = [[], [4, 5]]
        #expect(HTMLSite.decisive(report) == 1)
        report.evidence = nil
        #expect(HTMLSite.decisive(report) == 0)
    }

    @Test func verdictGlyphsAreTextOneShapeEach() {
        let glyphs = CaseVerdict.allCases.map(HTMLSite.glyph)
        #expect(Set(glyphs).count == CaseVerdict.allCases.count)
        for glyph in glyphs {
            // Nothing an emoji font would draw: no variation selector, nothing from the emoji blocks.
            #expect(glyph.unicodeScalars.allSatisfy { !$0.properties.isEmojiPresentation && $0.value != 0xFE0F }, "\(glyph)")
        }
        #expect(Reports.symbol(.pass).unicodeScalars.contains { $0.properties.isEmojiPresentation }, "the Markdown keeps emoji")
    }
}
