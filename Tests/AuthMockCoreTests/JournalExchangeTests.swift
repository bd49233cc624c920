import AuthMockTestSupport
import Foundation
import Testing

@testable import AuthMockCore

/// The journal keeps the whole answer: the header fields the engine decided (bounded when a hostile
/// scenario sends megabytes of them), readable again from JSON, and shown on the exchange's HTML.
struct JournalExchangeTests {
    static let scenario = try! ScenarioLoader.load(
        yaml: """
            version: 1
            name: digest
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Digest, algorithm: SHA-256}]
            """,
        file: "digest.yaml", files: .inMemory([:])
    )

    @Test func theAnswersHeaderFieldsAreJournaled() throws {
        var h = Harness(Self.scenario)
        let exchange = h.send()
        let entry = try #require(exchange.entry)
        let fields = try #require(entry.responseHeaders)
        #expect(fields.contains { $0.name == "WWW-Authenticate" && $0.value.hasPrefix("Digest ") })
        #expect(fields == exchange.response.headers)
        let decoded = try JSONDecoder().decode(JournalEntry.self, from: Data(entry.jsonLine().utf8))
        #expect(decoded.responseHeaders == fields)
        #expect(entry.jsonLine().contains("\"response_headers\":[{"))
    }

    @Test func hostileAnswersAreBoundedInTheJournal() {
        let many = (0..<40).map { HeaderField("X-\($0)", String(repeating: "a", count: $0 == 0 ? 5000 : 3)) }
        let kept = Engine.journaled(many) ?? []
        #expect(kept.count == 33)
        #expect(kept[0].value.hasSuffix("… (5000 bytes)"))
        #expect(kept.last == HeaderField("…", "8 more fields"))
        #expect(Engine.journaled([HeaderField]()) == nil)
    }

    @Test func theExchangeHTMLShowsProtocolHeadersAndTheDecodedDigest() throws {
        var h = Harness(Self.scenario)
        h.send()
        let html = JournalHTML.entry(try #require(h.journal.entries.first), expanded: true)
        #expect(html.contains("GET / <span class=\"protocol\">HTTP/1.1</span>"))
        #expect(html.contains("<details class=\"exchange\" open>"))
        #expect(html.contains("<caption>answer: <code>401 Unauthorized</code></caption>"))
        #expect(html.contains("<th scope=\"row\">WWW-Authenticate</th><td><code>Digest "))
    }
}
