import Testing
import Foundation
@testable import AuthMockCore

/// Basic (RFC 7617), scheme selection, resources, behaviour switches, the journal and control endpoints.
struct EngineTests {
    func basicHarness() throws -> Harness { Harness(try loadShipped("basic.yaml")) }

    /// Without credentials the Basic scenario answers 401 with one challenge (its realm, charset=UTF-8); alice's
    /// password then gets 200, her greeting, and her credentials in the journal.
    @Test func basicChallengeThenCredentials() throws {
        var h = try basicHarness()
        let challenge = h.send()
        #expect(challenge.status == 401)
        #expect(challenge.response.headers.values("WWW-Authenticate") == [#"Basic realm="authmock basic", charset="UTF-8""#])
        let ok = h.send(authorization: basic("alice", "wonderland"))
        #expect(ok.status == 200)
        #expect(ok.verdict == .basicOK)
        #expect(ok.response.bodyText == "Hello, alice!\n")
        #expect(ok.entry?.credentials == PresentedCredentials(header: "Authorization", scheme: "Basic", user: "alice", password: "wonderland"))
    }

    /// Wrong Basic credentials are refused with a verdict that says what is wrong: the password of a known
    /// user (with 401), or a user the scenario does not have.
    @Test(arguments: [
        ("alice", "nope", Verdict.basicBadPassword, 401 as Int?),
        ("mallory", "wonderland", .basicUnknownUser, nil),  // nil: the status is not checked
    ])
    func basicRefusals(user: String, password: String, verdict: Verdict, status: Int?) throws {
        var h = try basicHarness()
        let answer = h.send(authorization: basic(user, password))
        #expect(answer.verdict == verdict)
        if let status { #expect(answer.status == status) }
    }

    /// Broken base64, a missing colon, or parameters instead of a token: 400 with the reason.
    @Test(arguments: [
        ("Basic not*base64", "not valid base64"),
        ("Basic YWxpY2U=", "no ':'"),
        ("Basic YWxpY2U6d29uZGVybGFuZA", "not valid base64"),
        ("Basic realm=\"x\"", "one base64 token"),
    ])
    func basicMalformed(header: String, detail: String) throws {
        var h = try basicHarness()
        let answer = h.send(authorization: header)
        #expect(answer.status == 400)
        #expect(answer.verdict == .basicMalformed)
        #expect(answer.entry?.detail?.contains(detail) == true)
    }

    /// With charset="UTF-8", a UTF-8 password passes and the ISO-8859-1 one is named as such.
    @Test func basicCharset() throws {
        var h = try basicHarness()
        #expect(h.send(authorization: basic("zo\u{EB}", "p\u{E4}ssw\u{F6}rd")).verdict == .basicOK)
        let latin1 = "Basic " + Data([0x7A, 0x6F, 0xEB, 0x3A, 0x70, 0xE4, 0x73, 0x73, 0x77, 0xF6, 0x72, 0x64]).base64EncodedString()
        let answer = h.send(authorization: latin1)
        #expect(answer.verdict == .basicWrongCharset)
        #expect(answer.status == 401)
    }

    /// With charset="UTF-8", an ISO-8859-1 user-id is refused even when the password is ASCII.
    @Test func basicCharsetCoversTheUserID() throws {
        var scenario = try loadShipped("basic.yaml")
        scenario.users.append(User(name: "ren\u{E9}", password: "ascii"))
        var h = Harness(scenario)
        let latin1 = "Basic " + Data([0x72, 0x65, 0x6E, 0xE9, 0x3A] + Array("ascii".utf8)).base64EncodedString()
        #expect(h.send(authorization: latin1).verdict == .basicWrongCharset)
        #expect(h.send(authorization: basic("ren\u{E9}", "ascii")).verdict == .basicOK)
    }

    /// Without charset, ISO-8859-1 (what clients sent before RFC 7617) is accepted too.
    @Test func basicLatin1WithoutCharset() throws {
        var scenario = try loadShipped("basic.yaml")
        scenario.challenges = [.basic(BasicChallenge(charsetUTF8: false))]
        var h = Harness(scenario)
        let latin1 = "Basic " + Data([0x7A, 0x6F, 0xEB, 0x3A, 0x70, 0xE4, 0x73, 0x73, 0x77, 0xF6, 0x72, 0x64]).base64EncodedString()
        #expect(h.send(authorization: latin1).verdict == .basicOK)
    }

    /// A request for one of basic.yaml's other paths, and its answer.
    struct PathCase: Sendable, CustomTestStringConvertible {
        var path: String
        var asAlice = false
        var status: Int
        var verdict: Verdict
        /// Text the body must contain, where the test checks the body.
        var bodyMentions: String? = nil
        var testDescription: String { "GET \(path)\(asAlice ? " as alice" : "") → \(status)" }
    }

    /// A public path answers 200 without credentials; a forbidden one answers alice's valid credentials with
    /// 403 (and a body naming her), journaled as a Basic success; an unknown path answers 404.
    @Test(arguments: [
        PathCase(path: "/public", status: 200, verdict: .publicResource),
        PathCase(path: "/admin", asAlice: true, status: 403, verdict: .basicOK, bodyMentions: "alice"),
        PathCase(path: "/nowhere", status: 404, verdict: .notFound),
    ])
    func publicForbiddenAndMissingPaths(_ c: PathCase) throws {
        var h = try basicHarness()
        let answer = c.asAlice ? h.send(authorization: basic("alice", "wonderland"), "GET", c.path) : h.send("GET", c.path)
        #expect(answer.status == c.status)
        #expect(answer.verdict == c.verdict)
        if let text = c.bodyMentions { #expect(answer.response.bodyText.contains(text)) }
    }

    /// `{user}` is replaced wherever it stands; other braces are left alone.
    @Test(arguments: [
        ("Hello, {user}!", "alice", "Hello, alice!"), ("{user}{user}", "bo", "bobo"), ("{us{user}}", "x", "{usx}"),
        ("no placeholder {", "x", "no placeholder {"), ("{user", "x", "{user"), ("ünï {user} ✓", "zoë", "ünï zoë ✓"),
    ])
    func bodyTemplate(template: String, user: String, expected: String) {
        #expect(Engine.render(template, user: user) == Array(expected.utf8))
    }

    /// The scheme named in a field value is its first token, after leading whitespace; a value that does not
    /// start with a token (or is empty) names none.
    @Test(arguments: [("  Basic abc", "Basic"), ("Digest", "Digest"), (" =x", ""), ("", "")])
    func leadingToken(value: String, token: String) {
        #expect(Engine.leadingToken(value) == token)
    }

    /// A credentials field splits after its scheme, which is cut to 64 bytes; the rest, whatever it holds
    /// (a non-ASCII byte right after the scheme too), is the token, untouched.
    @Test(arguments: [
        ("Basic YWxpY2U6d29uZGVybGFuZA==", "Basic", " YWxpY2U6d29uZGVybGFuZA=="), ("\tNTLM TlRM", "NTLM", " TlRM"),
        ("Basicé x", "Basic", "é x"), (String(repeating: "a", count: 70) + " x", String(repeating: "a", count: 64), "aaaaaa x"),
        ("  ", "", ""), ("=x", "", "=x"),
    ])
    func schemeAndToken(field: String, scheme: String, token: String) {
        let split = Engine.schemeAndToken(field)
        #expect(split.scheme == scheme)
        #expect(split.token == token)
    }

    /// Two Authorization fields (whatever the case of their names) are refused with 400 and `auth.duplicate-header`.
    @Test func duplicateAuthorizationIs400() throws {
        var h = try basicHarness()
        let answer = h.send(headers: [HeaderField("Authorization", basic("alice", "wonderland")), HeaderField("authorization", basic("alice", "x"))])
        #expect(answer.status == 400)
        #expect(answer.verdict == .duplicateAuthorization)
    }

    /// Credentials in a scheme the scenario does not offer (Bearer) get 401 and `auth.scheme-not-offered`, and the
    /// journal records the scheme that was sent.
    @Test func schemeNotOffered() throws {
        var h = try basicHarness()
        let answer = h.send(authorization: "Bearer abc.def")
        #expect(answer.status == 401)
        #expect(answer.verdict == .schemeNotOffered)
        #expect(answer.entry?.credentials?.scheme == "Bearer")
    }

    /// All challenges in one field, unknown scheme first; clients parse it back into three.
    @Test func combinedChallengeField() throws {
        var h = Harness(try loadShipped("scheme-choice.yaml"))
        let answer = h.send()
        let fields = answer.response.headers.values("WWW-Authenticate")
        #expect(fields.count == 1)
        #expect(answer.challenges.map(\.scheme) == ["Newauth", "Basic", "Digest"])
        #expect(answer.challenges[0][parameter: "title"] == #"Login to "apps""#)
        #expect(h.send(authorization: "Newauth token").verdict == .schemeNotOffered)
        #expect(h.send(authorization: basic("alice", "wonderland")).verdict == .basicOK)
    }

    /// A 401 without WWW-Authenticate, with the scenario's body; preemptive Basic still works.
    @Test func brokenServerSwitches() throws {
        var h = Harness(try loadShipped("broken-401.yaml"))
        let answer = h.send()
        #expect(answer.status == 401)
        #expect(answer.response.headers.values("WWW-Authenticate").isEmpty)
        #expect(answer.response.bodyText == "Sign in first (this server forgot to say how).\n")
        #expect(h.send(authorization: basic("alice", "wonderland")).status == 200)
    }

    /// Every exchange is journaled in order with connection and exchange indexes; credentials are marked.
    @Test func journalRecordsEveryExchange() throws {
        var h = try basicHarness()
        h.send()
        h.connection = 2
        h.exchange = 0
        h.send(authorization: basic("alice", "wonderland"), "GET", "/?x=1")
        let entries = h.journal.entries
        #expect(entries.map(\.seq) == [1, 2])
        #expect(entries.map(\.connection) == [1, 2])
        #expect(entries.map(\.exchange) == [1, 1])
        #expect(entries[1].target == "/?x=1")
        #expect(entries[1].time == t0)
        #expect(entries[1].headers == [JournalEntry.RecordedHeader(name: "Authorization", value: basic("alice", "wonderland"), credential: true)])
        #expect(entries.map(\.status) == [401, 200])
    }

    /// An entry keeps its request's fields as they came and marks them when read; read back from its JSON
    /// (where the marks are written out) it is the same entry, and one header changed makes it another.
    @Test func journaledHeadersReadTheSameFromJSON() throws {
        var h = try basicHarness()
        h.send(headers: [HeaderField("Host", "x"), HeaderField("cookie", "a=1"), HeaderField("Proxy-Authorization", "p")])
        let entry = try #require(h.journal.entries.first)
        #expect(entry.headers.map(\.credential) == [nil, true, true])
        let decoded = try JSONDecoder().decode(JournalEntry.self, from: Data(entry.jsonLine().utf8))
        #expect(decoded == entry)
        #expect(entry == decoded)
        var changed = decoded
        changed.headers[0].value = "y"
        #expect(changed != entry)
    }

    /// The in-memory journal is a ring: bounded, oldest evicted, eviction counted.
    @Test func journalIsBounded() throws {
        var h = Harness(try loadShipped("basic.yaml"), journalCapacity: 3)
        for _ in 0..<5 { h.send() }
        #expect(h.journal.entries.map(\.seq) == [3, 4, 5])
        #expect(h.journal.evicted == 2)
    }

    /// A journal entry is written as one JSON line (with its verdict and `body_bytes`) that decodes to the same entry.
    @Test func journalEntryRoundTripsThroughJSON() throws {
        var h = try basicHarness()
        let entry = try #require(h.send(authorization: basic("alice", "nope")).entry)
        let line = entry.jsonLine()
        #expect(!line.contains("\n"))
        #expect(line.contains(#""verdict":"basic.bad-password""#))
        #expect(line.contains(#""body_bytes":0"#))
        let decoded = try JSONDecoder().decode(JournalEntry.self, from: Data(line.utf8))
        #expect(decoded == entry)
    }

    /// Control endpoints: journal (with `since`), reset, method checks; none of them is journaled.
    @Test func controlEndpoints() throws {
        var h = try basicHarness()
        h.send()
        h.send(authorization: basic("alice", "wonderland"))
        let page = h.send("GET", "/_authmock/journal")
        #expect(page.status == 200)
        #expect(page.entry == nil)
        let decoded = try JSONDecoder().decode(Engine.JournalPage.self, from: Data(page.response.body))
        #expect(decoded.entries.map(\.verdict) == [.noCredentials, .basicOK])
        let since = try JSONDecoder().decode(Engine.JournalPage.self, from: Data(h.send("GET", "/_authmock/journal?since=1").response.body))
        #expect(since.entries.map(\.seq) == [2])
        #expect(h.send("POST", "/_authmock/journal").status == 405)
        #expect(h.send("GET", "/_authmock/reset").status == 405)
        #expect(h.send("POST", "/_authmock/reset").status == 200)
        #expect(h.journal.count == 0)
        #expect(h.send("GET", "/_authmock/nothing").status == 404)
        // Sequence numbers keep counting after a reset so a journal file never repeats one.
        #expect(h.send().entry?.seq == 3)
    }

    /// The shell's refusals (unparseable request, oversized headers) are journaled too.
    @Test func rejectedRequestsAreJournaled() throws {
        var h = try basicHarness()
        let exchange = h.pair.reject(
            nil, connection: ConnectionInfo(id: 9, exchange: 1), hop: .origin, status: 431, verdict: .headersTooLarge,
            detail: "a header field exceeds 8192 bytes", close: true, now: t0
        )
        #expect(exchange.response.status == 431)
        #expect(exchange.response.closeConnection)
        #expect(h.journal.entries.last?.verdict == .headersTooLarge)
        #expect(h.journal.entries.last?.connection == 9)
    }
}
