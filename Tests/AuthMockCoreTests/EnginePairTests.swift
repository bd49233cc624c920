import Testing
import Foundation
@testable import AuthMockCore

/// The origin and proxy engines as one value: one journal, one sequence, one reject that knows its hop.
struct EnginePairTests {
    static let proxyTarget = "http://127.0.0.1:1/"

    func pair(_ name: String = "proxy-and-origin.yaml", capacity: Int = 10_000) throws -> EnginePair {
        EnginePair(scenario: try loadShipped(name), journalCapacity: capacity, random: .seeded(42), startedAt: t0)
    }

    static func request(_ method: String, _ target: String, _ headers: [HeaderField] = [], connection: UInt64 = 1, exchange: Int = 1) -> Request {
        Request(method: method, target: target, headers: headers, connection: ConnectionInfo(id: connection, exchange: exchange, remote: "127.0.0.1:40000"))
    }

    /// Drives both hops and every kind of entry; returns what each call said it produced, in call order.
    static func driveBothHops(_ pair: inout EnginePair) -> [JournalEntry] {
        var produced: [JournalEntry] = []
        produced += pair.handleProxy(request("GET", proxyTarget), now: t0).journalEntries
        produced += pair.handle(request("GET", "/"), now: t0).journalEntries
        produced += pair.handleProxy(request("CONNECT", "127.0.0.1:1", [HeaderField("Proxy-Authorization", basic("carrier", "nope"))]), now: t0).journalEntries
        produced += pair.reject(nil, connection: ConnectionInfo(id: 3, exchange: 1), hop: .proxy, status: 408, verdict: .headerTimeout, detail: "slow", close: true, now: t0).journalEntries
        produced += pair.reject(nil, connection: ConnectionInfo(id: 4, exchange: 1), hop: .origin, status: 431, verdict: .headersTooLarge, detail: "big", close: true, now: t0).journalEntries
        produced += pair.handle(request("POST", "/_authmock/proxy/users/carrier", [HeaderField("Content-Type", "application/json")]).withBody(#"{"enabled": false}"#), now: t0).journalEntries
        produced += pair.changeUser("alice", .lock, reason: "the host", now: t0).map { [$0] } ?? []
        produced.append(pair.recordTLSConnection(ConnectionInfo(id: 5, exchange: 0), failure: "alert", requests: 0, now: t0))
        produced.append(pair.recordRefusedConnection(ConnectionInfo(id: 6, exchange: 0), limit: 2, now: t0))
        produced += pair.handleProxy(request("GET", proxyTarget), now: t0).journalEntries
        return produced
    }

    /// Both hops driven through every kind of entry: the entries are numbered 1, 2, 3… without a gap, the shared
    /// journal holds exactly what the calls returned, and the proxy's engine keeps no journal of its own.
    @Test func proxyAndOriginEntriesShareOneSequenceWithoutGaps() throws {
        var pair = try pair()
        let produced = Self.driveBothHops(&pair)
        #expect(produced.map(\.seq) == Array(1...produced.count))
        #expect(pair.journal.entries == produced, "the journal holds exactly what the calls returned, in that order")
        #expect(pair.nextSeq == produced.count + 1)
    }

    /// Every entry of the proxy's engine says `hop: proxy` (its rejects and user changes too); the origin's none.
    @Test func proxyEntriesAndOnlyThoseCarryTheProxyHop() throws {
        var pair = try pair()
        let entries = Self.driveBothHops(&pair)
        let proxyHop = entries.filter { $0.hop == .proxy }
        #expect(proxyHop.map(\.verdict) == [.noCredentials, .schemeNotOffered, .headerTimeout, .userLocked, .noCredentials])
        #expect(entries.filter { $0.hop == nil }.map(\.verdict) == [.noCredentials, .headersTooLarge, .userLocked, .tlsHandshakeFailed, .connectionLimit])
        #expect(entries.allSatisfy { $0.hop == nil || $0.hop == .proxy })
    }

    /// A reject answers with the status and verdict asked for, and closes only when asked, for either hop.
    @Test(arguments: [
        (Hop.origin, 408, Verdict.headerTimeout, true), (.origin, 413, .bodyTooLarge, false),
        (.proxy, 400, .proxyBadTarget, false), (.proxy, 431, .headersTooLarge, true),
    ])
    func rejectAnswersAsAsked(hop: Hop, status: Int, verdict: Verdict, close: Bool) throws {
        var pair = try pair()
        let partial = Self.request("GET", "/relative", connection: 7, exchange: 2)
        let exchange = pair.reject(partial, connection: partial.connection, hop: hop, status: status, verdict: verdict, detail: "why", close: close, now: t0)
        #expect(exchange.response.status == status)
        #expect(exchange.response.closeConnection == close)
        #expect(exchange.response.bodyText == "\(status) \(Engine.reason(status)): why\n")
        let entry = try #require(exchange.entry)
        #expect(entry.verdict == verdict)
        #expect(entry.status == status)
        #expect(entry.hop == (hop == .proxy ? Hop.proxy : nil))
        #expect(entry.target == "/relative")
        #expect(entry.connection == 7)
        #expect(pair.journal.entries == [entry])
    }

    /// With nothing read (a header timeout), both roles journal the refusal alike: no method, target or
    /// version, the connection at the exchange refused; only the proxy's entry says `hop: proxy`.
    @Test func rejectWithoutARequestIsJournaledAlikeByBothRoles() throws {
        var pair = try pair()
        let connection = ConnectionInfo(id: 9, exchange: 2, remote: "127.0.0.1:1")
        let origin = try #require(pair.reject(nil, connection: connection, hop: .origin, status: 408, verdict: .headerTimeout, detail: "slow", close: true, now: t0).entry)
        let proxy = try #require(pair.reject(nil, connection: connection, hop: .proxy, status: 408, verdict: .headerTimeout, detail: "slow", close: true, now: t0).entry)
        for entry in [origin, proxy] {
            #expect(entry.method == nil && entry.target == nil && entry.version == nil)
            #expect(entry.connection == 9 && entry.exchange == 2)
        }
        #expect(origin.hop == nil && proxy.hop == .proxy)
    }

    /// A reset (by the host, or `POST /_authmock/reset` at the origin) clears the journal and both engines'
    /// nonces and connections; `seq` keeps counting.
    @Test(arguments: [false, true])
    func resetClearsBothEngines(byControlRequest: Bool) throws {
        var pair = try pair()
        #expect(pair.handleProxy(Self.request("GET", Self.proxyTarget), now: t0).response.status == 407)
        #expect(pair.handle(Self.request("GET", "/"), now: t0).response.status == 401)
        let negotiate = "NTLM " + Data(NTLMClient(user: "carrier", password: "pigeon", domain: "EXAMPLE").negotiate()).base64EncodedString()
        #expect(pair.handleProxy(Self.request("GET", Self.proxyTarget, [HeaderField("Proxy-Authorization", negotiate)], connection: 2), now: t0).response.status == 407)
        #expect(pair.rememberedNonces == 2)
        #expect(pair.ntlmConnections == 1)
        if byControlRequest {
            #expect(pair.handle(Self.request("POST", "/_authmock/reset"), now: t0).response.status == 200)
        } else {
            pair.reset(at: t0)
        }
        #expect(pair.journal.count == 0)
        #expect(pair.rememberedNonces == 0)
        #expect(pair.ntlmConnections == 0)
        #expect(pair.handleProxy(Self.request("GET", Self.proxyTarget), now: t0).entry?.seq == 4)
    }

    /// A closed connection leaves no NTLM state in either engine.
    @Test func connectionClosedReachesBothEngines() throws {
        var pair = try pair("proxy-and-origin.yaml")
        let negotiate = "NTLM " + Data(NTLMClient(user: "carrier", password: "pigeon", domain: "EXAMPLE").negotiate()).base64EncodedString()
        _ = pair.handleProxy(Self.request("GET", Self.proxyTarget, [HeaderField("Proxy-Authorization", negotiate)], connection: 2), now: t0)
        #expect(pair.ntlmConnections == 1)
        pair.connectionClosed(2)
        #expect(pair.ntlmConnections == 0)
    }

    /// Without a `proxy:` section, the proxy's calls answer 404 and journal nothing.
    @Test func withoutAProxyProxyCallsAre404() throws {
        var pair = try pair("basic.yaml")
        #expect(pair.proxy == nil)
        #expect(pair.handleProxy(Self.request("GET", Self.proxyTarget), now: t0).response.status == 404)
        #expect(pair.handle(Self.request("GET", "/_authmock/proxy/users"), now: t0).response.status == 404)
        let rejected = pair.reject(nil, connection: ConnectionInfo(id: 1, exchange: 1), hop: .proxy, status: 400, verdict: .malformedRequest, detail: "x", close: true, now: t0)
        #expect(rejected.response.status == 404)
        #expect(pair.journal.count == 0)
        #expect(pair.handle(Self.request("GET", "/"), now: t0).entry?.seq == 1)
    }

    /// The journal page at the origin's control endpoint shows both hops.
    @Test func journalPageShowsBothHops() throws {
        var pair = try pair()
        _ = Self.driveBothHops(&pair)
        #expect(pair.journalPage(since: 7).entries.map(\.seq) == [8, 9, 10])
        #expect(pair.journalPage(since: 0).entries.filter { $0.hop == .proxy }.count == 5)
        let served = pair.handle(Self.request("GET", "/_authmock/journal?since=7"), now: t0)
        let page = try JSONDecoder().decode(Engine.JournalPage.self, from: Data(served.response.body))
        #expect(page == pair.journalPage(since: 7))
    }
}

extension Request {
    func withBody(_ text: String) -> Request {
        var request = self
        request.body = Array(text.utf8)
        return request
    }
}

/// The shell asks once: a request with an unchecked crypt(3) pair is planned as slow work first, and is
/// then answered from the check's result; a request with nothing slow is answered in the same call.
struct EnginePlanTests {
    @Test func slowWorkIsPlannedOnceThenAnswered() throws {
        let scenario = try ScenarioLoader.load(
            yaml: UserFileTests.scenario("{htpasswd: users.htpasswd}"), file: "conf/s.yaml", files: UserFileTests.files
        )
        var pair = EnginePair(scenario: scenario, journalCapacity: 100, random: .seeded(1), startedAt: t0)
        let request = EnginePairTests.request("GET", "/", [HeaderField("Authorization", basic("bc", "pw2"))])
        guard case .verifyFirst(let check) = pair.plan(request, hop: .origin, now: t0) else {
            Issue.record("an unchecked bcrypt pair must be planned as slow work")
            return
        }
        #expect(pair.nextSeq == 1, "planning slow work decides and journals nothing")
        check.run()
        #expect(pair.answer(request, hop: .origin, now: t0).verdict == .basicOK)
        guard case .answer(let again) = pair.plan(request, hop: .origin, now: t0) else {
            Issue.record("a checked pair is answered at once")
            return
        }
        #expect(again.verdict == .basicOK && again.entry?.seq == 2)
        guard case .answer(let challenged) = pair.plan(EnginePairTests.request("GET", "/"), hop: .origin, now: t0) else {
            Issue.record("no credentials, nothing slow")
            return
        }
        #expect(challenged.status == 401)
    }
}

extension EnginePairTests {

    /// An origin must accept a request target in absolute form (RFC 9112 §3.2.2): PHP's streams send one
    /// inside a proxy's tunnel after a redirect. The resource is the target's path, and the query goes.
    @Test func theOriginAcceptsAbsoluteFormTargets() throws {
        for (target, path) in [
            ("/", "/"), ("/a?b=c", "/a"), ("http://127.0.0.1:8080/secure?x", "/secure"), ("HTTPS://localhost:1", "/"),
            ("https://alice:pw@h:1/x", "/x"), ("httpx://h/x", "httpx://h/x"), ("/a?b?c", "/a"), ("/é?x", "/é"),
            ("*", "*"), ("", ""),
        ] {
            #expect(Self.request("GET", target).resourcePath == path, "\(target)")
        }
        var origin = try pair("basic.yaml")
        let alice = [HeaderField("Authorization", basic("alice", "wonderland"))]
        let absolute = origin.handle(Self.request("GET", "https://localhost:8443/", alice), now: t0)
        #expect(absolute.response.status == 200)
        #expect(absolute.journalEntries.first?.verdict == .basicOK)
        let missing = origin.handle(Self.request("GET", "https://localhost:8443/nowhere", alice), now: t0)
        #expect(missing.response.status == 404)
    }
}
