import AuthMockTestSupport
import Foundation
import Testing

@testable import AuthMockCore

/// `GET /_authmock/`, the live page of `serve`: the journal newest first, escaped, with the users and their
/// current passwords, and the polling answer that brings newer entries.
struct LivePageTests {
    static let scenario = try! ScenarioLoader.load(
        yaml: """
            version: 1
            name: basic
            description: "Basic for <b>tests</b>"
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            """,
        file: "basic.yaml", files: .inMemory([:])
    )

    func body(_ exchange: Exchange) -> String { String(decoding: exchange.response.body, as: UTF8.self) }

    /// What a client sent shows as text, never as markup: a path and a header carrying `<script>`.
    @Test func everythingFromTheClientIsEscaped() {
        var h = Harness(Self.scenario)
        h.send("GET", "/<script>alert(1)</script>", headers: [HeaderField("Host", "x\"><img src=x onerror=alert(2)>")])
        h.send(authorization: basic("alice", "wonderland"))
        let page = h.send("GET", "/_authmock/")
        let html = body(page)
        #expect(page.response.status == 200)
        #expect(page.response.headers.first { $0.name == "Content-Type" }?.value == "text/html; charset=utf-8")
        #expect(html.contains("/&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("x&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"))
        #expect(html.contains("Basic for &lt;b&gt;tests&lt;/b&gt;"))
        #expect(!html.contains("<script>alert") && !html.contains("<img"))
        // The page's one script, and nothing else, is allowed to run.
        #expect(html.components(separatedBy: "<script>").count == 2)
        let policy = page.response.headers.first { $0.name == "Content-Security-Policy" }?.value ?? ""
        #expect(policy.contains("script-src '\(Engine.pageScriptHash)'"))
        #expect(html.contains("<script>\(Engine.pageScript)</script>"))
    }

    /// A `<` or `"` followed by a combining mark is one Swift `Character` that equals neither; the escape
    /// still catches it, so a client cannot open a tag or leave an attribute with it.
    @Test func markupFollowedByCombiningMarksIsEscaped() {
        let hostile = "<\u{338}img src=x onerror=alert(3)>\"\u{301}'\u{301}&\u{301}"
        let escaped = JournalHTML.escape(hostile)
        #expect(!escaped.unicodeScalars.contains { "<>\"'".unicodeScalars.contains($0) })
        #expect(escaped.hasPrefix("&lt;\u{338}img"))
        #expect(escaped.hasSuffix("&amp;\u{301}"))
    }

    /// A hostile answer says so, with what was sent, and the 65 KB value itself is cut in the page too.
    @Test func hostileAnswersAreMarked() throws {
        var h = Harness(try load("""
            version: 1
            name: hostile
            users: [{name: alice, password: wonderland}]
            challenges: [{raw: ['Basic <', {repeat: ",", times: 2000}, '>']}]
            """))
        h.send()
        let html = body(h.send("GET", "/_authmock/"))
        #expect(html.contains("hostile on purpose: raw challenge, 1 field of 2008 bytes: &quot;Basic &lt;&quot; + &quot;,&quot; ×2000 + &quot;&gt;&quot;"))
        #expect(html.contains("… (2008 bytes)"))
        #expect(!html.contains(String(repeating: ",", count: 300)))
    }

    /// Newest first; the users with their current passwords; a Basic password in the journal is masked.
    @Test func journalNewestFirstWithUsers() throws {
        var h = Harness(Self.scenario)
        h.send()
        h.send(authorization: basic("alice", "wonderland"))
        let html = body(h.send("GET", "/_authmock/"))
        let first = try #require(html.range(of: "id=\"e2\""))
        let second = try #require(html.range(of: "id=\"e1\""))
        #expect(first.lowerBound < second.lowerBound)
        #expect(html.contains("<td><code>alice</code></td><td><code>wonderland</code></td><td>enabled</td>"))
        #expect(html.contains("data-last=\"2\""))
        // The password decoded and masked until revealed.
        #expect(html.contains("<dt>user</dt><dd><code>alice</code></dd><dt>password</dt><dd><details class=\"secret\">"))
        #expect(html.contains("basic.ok"))
        // The control request itself is not journaled.
        #expect(h.journal.entries.count == 2)
    }

    /// Where it listens and the TLS facts of the ready line (CA file, pins), one per line, escaped.
    @Test func readyLineFactsAreShown() {
        var h = Harness(Self.scenario)
        h.engine.setLinks(["url": "https://localhost:8443/", "other_host_url": "https://127.0.0.1:8443/"])
        h.engine.setTLSDescription(Array(#"{"ca_file":"/tmp/ca.pem","pin_sha256":"abc<def>"}"#.utf8))
        let html = body(h.send("GET", "/_authmock/"))
        // Each address says what it is for, with the ready line's key beside it.
        #expect(html.contains("<dt>the scenario <code class=\"key\">url</code></dt><dd><code>https://localhost:8443/</code>"))
        #expect(html.contains("<dt>the same server by another host name (a redirect there leaves the origin)"
            + " <code class=\"key\">other_host_url</code></dt>"))
        #expect(html.contains("<dt>ca_file</dt><dd><code>/tmp/ca.pem</code></dd>"))
        #expect(html.contains("<dt>pin_sha256</dt><dd><code>abc&lt;def&gt;</code></dd>"))
    }

    /// `?since=N` answers only the newer entries, newest first, as list items for the page to prepend.
    @Test func pollingBringsOnlyNewerEntries() {
        var h = Harness(Self.scenario)
        h.send()
        h.send()
        h.send()
        let newer = body(h.send("GET", "/_authmock/?since=1"))
        #expect(newer.hasPrefix("<li class=\"entry challenge\" id=\"e3\""))
        #expect(newer.contains("id=\"e2\"") && !newer.contains("id=\"e1\""))
        #expect(body(h.send("GET", "/_authmock/?since=3")).isEmpty)
        #expect(h.send("POST", "/_authmock/").response.status == 405)
    }
}

/// A TLS connection's facts on the journal pages: one line, every client-chosen value escaped.
struct JournalHTMLTLSTests {
    @Test func aTLSConnectionShowsWhatTheTLSLayerSaw() {
        let facts = TLSFacts(
            version: "TLSv1.2", cipher: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", serverName: "<script>x</script>", alert: "bad_certificate",
            certificateSHA256: "0123456789abcdef0123456789abcdef", pinSHA256: "KEY"
        )
        let entry = JournalEntry(
            seq: 4, time: t0, connection: 2, exchange: 0, remote: "127.0.0.1:5000", method: nil, target: nil, version: nil, headers: [], bodyBytes: 0,
            credentials: nil, verdict: .tlsHandshakeFailed, detail: "the client rejected the certificate", status: 0, challenges: nil, tls: facts, requests: 0
        )
        let html = JournalHTML.entry(entry)
        #expect(html.contains(
            "<div class=\"tls\">TLSv1.2 · <code>TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256</code> · SNI <code>&lt;script&gt;x&lt;/script&gt;</code> · "
                + "shown certificate sha256 <code>0123456789abcdef…</code> · alert <code>bad_certificate</code></div>"
        ), "\(html)")
        #expect(!html.contains("<script>"))
    }
}
