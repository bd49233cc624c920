import AuthMockTestSupport
import Foundation
import Testing

@testable import AuthMockCore

/// The live page's cursor (`?after=N`), its caps, the try commands of an empty journal and its stylesheet.
struct LivePageCursorTests {
    func body(_ exchange: Exchange) -> String { String(decoding: exchange.response.body, as: UTF8.self) }

    /// `?after=N` answers the entries after N, newest first; `?since=N` is the same cursor.
    @Test func afterIsTheCursorAndSinceItsAlias() {
        var h = Harness(LivePageTests.scenario)
        for _ in 0..<4 { h.send() }
        let after = body(h.send("GET", "/_authmock/?after=2"))
        #expect(after.hasPrefix("<li class=\"entry challenge\" id=\"e4\""))
        #expect(after.contains("id=\"e3\"") && !after.contains("id=\"e2\""))
        #expect(body(h.send("GET", "/_authmock/?since=2")) == after)
        #expect(body(h.send("GET", "/_authmock/?after=4")).isEmpty)
    }

    /// The first page renders the newest 200 entries and says where the older ones are; one `?after=`
    /// answer carries at most the newest 500, as many as the script keeps in the list.
    @Test func thePageAndThePollAreCapped() {
        var h = Harness(LivePageTests.scenario)
        for _ in 0..<600 { h.send() }
        let html = body(h.send("GET", "/_authmock/"))
        #expect(html.components(separatedBy: "<li class=\"entry").count - 1 == Engine.pageEntries)
        #expect(html.contains("id=\"e600\"") && html.contains("id=\"e401\"") && !html.contains("id=\"e400\""))
        #expect(html.contains("The newest 200 entries; 400 older ones are in"))
        #expect(html.contains("<a href=\"journal\"><code>/_authmock/journal</code></a>"))
        #expect(html.contains("data-cap=\"500\""))
        let all = body(h.send("GET", "/_authmock/?after=0"))
        #expect(all.components(separatedBy: "<li class=\"entry").count - 1 == Engine.pageListCap)
        #expect(all.hasPrefix("<li class=\"entry challenge\" id=\"e600\"") && !all.contains("id=\"e100\""))
    }

    /// An empty journal shows the banner's try command for where the shell bound the scenario, escaped;
    /// once there is an entry it does not.
    @Test func anEmptyJournalShowsTheTryCommands() {
        var h = Harness(LivePageTests.scenario)
        h.engine.setLinks(["url": "http://127.0.0.1:8080/"])
        var html = body(h.send("GET", "/_authmock/"))
        #expect(html.contains("<div id=\"empty\" class=\"empty-state\"><p>No exchange yet."))
        #expect(html.contains("<pre class=\"try\"><code>curl --basic -u alice:wonderland http://127.0.0.1:8080/</code></pre>"))
        h.engine.setTryWhere(TryCommands.Where(url: "https://localhost:8443/", caFile: "/tmp/it's/ca.pem"))
        html = body(h.send("GET", "/_authmock/"))
        #expect(html.contains("curl --cacert &#39;/tmp/it&#39;\\&#39;&#39;s/ca.pem&#39; --basic -u alice:wonderland https://localhost:8443/"))
        h.send()
        #expect(!body(h.send("GET", "/_authmock/")).contains("id=\"empty\""))
    }

    /// The try commands are the banner's: a token command with an `oauth:` section, then the curl.
    @Test func tryCommandsForABearerScenario() throws {
        let scenario = try load("""
            version: 1
            name: bearer
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Bearer}]
            oauth: {clients: [{id: app, secret: s3cret}], grants: [client_credentials]}
            """)
        let commands = TryCommands(scenario: scenario, where: TryCommands.Where(url: "http://127.0.0.1:1/"))
        #expect(commands.all == [
            "curl -u app:s3cret -d grant_type=client_credentials http://127.0.0.1:1/oauth/token",
            "curl -H 'Authorization: Bearer ACCESS_TOKEN' http://127.0.0.1:1/",
        ])
    }

    /// The page takes the report's stylesheet (dark mode included) from `style.css`, plus its own rules, and
    /// carries no inline style: the policy allows styles from the server only.
    @Test func theStylesheetIsTheReportsAndServedApart() {
        var h = Harness(LivePageTests.scenario)
        let style = h.send("GET", "/_authmock/style.css")
        #expect(style.response.status == 200)
        #expect(style.response.headers.first { $0.name == "Content-Type" }?.value == "text/css; charset=utf-8")
        #expect(body(style) == HTMLStyle.stylesheet + HTMLStyle.live)
        #expect(body(style).contains("@media (prefers-color-scheme: dark)"))
        #expect(h.send("POST", "/_authmock/style.css").response.status == 405)
        let page = h.send("GET", "/_authmock/")
        let html = body(page)
        #expect(html.contains("<link rel=\"stylesheet\" href=\"style.css\">"))
        #expect(!html.contains("<style") && !html.contains(" style=\""))
        let policy = page.response.headers.first { $0.name == "Content-Security-Policy" }?.value ?? ""
        #expect(policy.contains("style-src 'self';") && !policy.contains("unsafe-inline"))
        #expect(html.contains("<p id=\"status\" role=\"status\">") && !html.contains("Refreshed every second"))
        #expect(html.contains("<label for=\"filter\">Filter</label>"))
        #expect(html.contains("<button type=\"button\" id=\"pause\" aria-pressed=\"false\">Pause</button>"))
    }
}
