import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

struct JudgeTests {
    func basicHarness() throws -> Harness { Harness(try loadShipped("basic.yaml")) }

    func judge(_ yaml: String, _ journal: [JournalEntry], exit: Int32? = 0, timedOut: Bool = false, body: [UInt8]? = nil) throws -> Judgement {
        let definition = try #require(try load(yaml).conformance)
        let judge = Judge(expectations: definition.expectations, authority: "127.0.0.1:8080", bodySHA256: body.map(Judge.sha256Hex), timeout: 2)
        return judge.judge(journal, outcome: ClientOutcome(exitStatus: exit, timedOut: timedOut))
    }

    static let badPassword = """
        version: 1
        name: basic.bad
        users: [{name: alice, password: wonderland}]
        challenges: [{scheme: Basic}]
        case: {title: gives up}
        expect:
          outcome: failure
          implemented: {credentials: Basic}
          checks:
            - that: stops after a refusal
              at-most: 2
              of: {credentials: Basic}
        """

    /// A client that gives up after one refused retry passes.
    @Test func givingUpPasses() throws {
        var harness = try basicHarness()
        harness.send()
        harness.send(authorization: basic("alice", "nope"))
        let judgement = try judge(Self.badPassword, harness.journal.entries, exit: 22)
        #expect(judgement == Judgement(verdict: .pass))
    }

    /// A client that keeps re-sending the refused password fails, and the finding quotes the journal.
    @Test func loopingFailsWithQuotes() throws {
        var harness = try basicHarness()
        for _ in 0..<4 { harness.send(authorization: basic("alice", "nope")) }
        let judgement = try judge(Self.badPassword, harness.journal.entries, exit: 22)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings == [
            "expected: stops after a refusal — 4 request(s) with Basic credentials, at most 2 expected: #1 GET / [Basic alice] → 401 basic.bad-password;"
                + " #2 GET / [Basic alice] → 401 basic.bad-password; #3 GET / [Basic alice] → 401 basic.bad-password; #4 GET / [Basic alice] → 401 basic.bad-password"
        ])
        #expect(judgement.quoted == [1, 2, 3, 4])
    }

    /// Claiming success after a refusal is a fail of the outcome.
    @Test func wrongOutcomeFails() throws {
        var harness = try basicHarness()
        harness.send(authorization: basic("alice", "nope"))
        let judgement = try judge(Self.badPassword, harness.journal.entries, exit: 0)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings.first?.hasPrefix("expected the client to report failure (non-zero exit); it exited 0; last in the journal: #1 GET /") == true)
    }

    /// A client that never sends the scheme is unimplemented — unless it also broke a bound.
    @Test func unimplementedUnlessABoundBreaks() throws {
        var harness = try basicHarness()
        harness.send()
        let quiet = try judge(Self.badPassword, harness.journal.entries, exit: 1)
        #expect(quiet.verdict == .unimplemented)
        #expect(quiet.findings.first?.hasPrefix("the client never sent a request with Basic credentials") == true)

        let leaky = Self.badPassword + "\n    - that: no leak\n      never: {leak: true}\n"
        var leaking = try basicHarness()
        leaking.send("GET", "/", headers: [HeaderField("Proxy-Authorization", basic("p", "q"))])
        let judgement = try judge(leaky, leaking.journal.entries, exit: 1)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings.contains { $0.contains("LEAK: Proxy-Authorization reached the origin") })
    }

    /// A hang is a fail that says the client was killed.
    @Test func timeoutFails() throws {
        let judgement = try judge(Self.badPassword, [], exit: nil, timedOut: true)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings.first?.hasPrefix("expected the client to finish; it was still running after 2 s and was killed") == true)
    }

    /// A client that dies of a signal fails whatever the case expected, and the finding names the signal;
    /// the same journal with a clean non-zero exit passes.
    @Test func deathBySignalFails() throws {
        var harness = try basicHarness()
        harness.send()
        harness.send(authorization: basic("alice", "nope"))
        let journal = harness.journal.entries
        let definition = try #require(try load(Self.badPassword).conformance)
        let judge = Judge(expectations: definition.expectations, authority: "127.0.0.1:8080", timeout: 2)
        let crashed = judge.judge(journal, outcome: ClientOutcome(exitStatus: nil, signal: SIGSEGV))
        #expect(crashed.verdict == .fail)
        #expect(crashed.findings.first?.hasPrefix("expected the client to end on its own; it was killed by signal 11 (SIGSEGV), a crash; last in the journal: #2 GET / [Basic alice] → 401") == true)
        #expect(judge.judge(journal, outcome: ClientOutcome(exitStatus: 1)).verdict == .pass)
    }

    /// `hostile: true` matches the exchanges whose answer was hostile; with `after:` it finds credentials
    /// sent after a corrupted NTLM CHALLENGE.
    @Test func credentialsAfterAHostileAnswer() throws {
        let yaml = """
            version: 1
            name: hostile.ntlm
            users: [{name: alice, password: wonderland, domain: EXAMPLE}]
            challenges: [{scheme: NTLM, corrupt: target-info-past-end}]
            case: {title: t}
            expect:
              outcome: any
              checks:
                - that: sends no credentials built from the corrupt CHALLENGE
                  never: {credentials: any}
                  after: {hostile: true}
            """
        let scenario = try load(yaml).scenario
        var harness = Harness(scenario)
        let negotiate = Array("NTLMSSP".utf8) + [0, 1, 0, 0, 0, 0x01, 0x02, 0, 0] + [UInt8](repeating: 0, count: 16)
        harness.send(authorization: "NTLM " + Data(negotiate).base64EncodedString())
        #expect(try judge(yaml, harness.journal.entries, exit: 1).verdict == .pass)
        harness.send(authorization: "NTLM " + Data(Array("NTLMSSP".utf8) + [0, 3, 0, 0, 0] + [UInt8](repeating: 0, count: 60)).base64EncodedString())
        let judgement = try judge(yaml, harness.journal.entries, exit: 1)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings.first?.hasPrefix("expected: sends no credentials built from the corrupt CHALLENGE — 1 request(s) with credentials after the first request answered with a hostile challenge, none expected: #2 GET / [NTLM] → 401 ntlm.anonymous") == true, "\(judgement.findings)")
        #expect(judgement.findings.first?.contains("(hostile: NTLM CHALLENGE target-info-past-end") == false)
    }

    static let ordered = """
        version: 1
        name: order
        users: [{name: alice, password: wonderland}]
        challenges: [{scheme: Basic}]
        case: {title: t}
        expect:
          outcome: success
          checks:
            - that: challenge first, then credentials
              grade: non-strict
              sequence:
                - {credentials: none, status: 401}
                - {credentials: Basic, status: 200}
            - that: the schemes
              observe: schemes
        """

    /// Sequences match in order with gaps; a broken SHOULD is non-strict; observations annotate a pass.
    @Test func sequencesGradesAndObservations() throws {
        var harness = try basicHarness()
        harness.send()
        harness.send("GET", "/nothing-here")
        harness.send(authorization: basic("alice", "wonderland"))
        let good = try judge(Self.ordered, harness.journal.entries)
        #expect(good == Judgement(verdict: .pass, observations: ["the schemes: Basic"]))

        var preemptive = try basicHarness()
        preemptive.send(authorization: basic("alice", "wonderland"))
        let judgement = try judge(Self.ordered, preemptive.journal.entries)
        #expect(judgement.verdict == .nonStrict)
        #expect(judgement.findings.first?.hasPrefix("expected: challenge first, then credentials — no request was without credentials, answered 401; the client sent: #1 GET / [Basic alice] → 200 basic.ok") == true)

        let observeOnly = Self.ordered.replacingOccurrences(of: "outcome: success", with: "outcome: any")
            .replacingOccurrences(of: "    - that: challenge first, then credentials\n      grade: non-strict\n      sequence:\n        - {credentials: none, status: 401}\n        - {credentials: Basic, status: 200}\n", with: "")
        #expect(try judge(observeOnly, preemptive.journal.entries).verdict == .informational)
    }

    /// `after:` counts only what follows the first match; authority, TLS and body patterns read the entry.
    @Test func patternsOverRedirectsAndBodies() throws {
        var harness = try basicHarness()
        harness.send(authorization: basic("alice", "wonderland"))
        harness.send("GET", "/", headers: [HeaderField("Host", "localhost:8080"), HeaderField("Authorization", basic("alice", "wonderland"))])
        harness.send("POST", "/", headers: [HeaderField("Host", "127.0.0.1:8080"), HeaderField("Authorization", basic("alice", "wonderland"))], body: Array("abc".utf8))
        let entries = harness.journal.entries
        let definition = Judge(expectations: Expectations(), authority: "127.0.0.1:8080", bodySHA256: Judge.sha256Hex(Array("abc".utf8)))
        #expect(definition.matches(EntryPattern(credentials: .any, authority: .other), entries[1]))
        #expect(!definition.matches(EntryPattern(authority: .other), entries[2]))
        #expect(definition.matches(EntryPattern(tls: false, body: .intact), entries[2]))
        #expect(!definition.matches(EntryPattern(body: .intact), entries[0]))
        #expect(definition.matches(EntryPattern(body: EntryPattern.Body.none), entries[0]))
        #expect(!definition.matches(EntryPattern(kind: .tls), entries[0]))

        let yaml = """
            version: 1
            name: r
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            case: {title: t}
            expect:
              checks:
                - that: no credentials elsewhere after the POST
                  never: {authority: other}
                  after: {method: POST}
            """
        #expect(try judge(yaml, entries).verdict == .pass)
        #expect(try judge(yaml.replacingOccurrences(of: "method: POST", with: "method: GET"), entries).verdict == .fail)
    }
}

/// The judge's account of a TLS case: what the client was shown and what it did on each connection.
struct JudgeTLSStoryTests {
    static let rotation = """
        version: 1
        name: tls.rotation
        users: [{name: alice, password: wonderland}]
        resources: [{path: /, protected: false}]
        tls: {rotate: {after-requests: 1, keep-key: true}}
        case: {title: pins}
        expect:
          outcome: failure
          checks:
            - that: sends one request
              at-most: 1
              of: {}
        """

    /// A TLS connection record as the shell journals it.
    static func connection(_ id: UInt64, seq: Int, verdict: Verdict, requests: Int, detail: String? = nil, facts: TLSFacts) -> JournalEntry {
        JournalEntry(
            seq: seq, time: t0, connection: id, exchange: 0, remote: nil, method: nil, target: nil, version: nil, headers: [],
            bodyBytes: 0, credentials: nil, verdict: verdict, detail: detail, status: 0, challenges: nil, tls: facts, requests: requests
        )
    }

    static func request(_ id: UInt64, seq: Int, facts: TLSFacts) -> JournalEntry {
        JournalEntry(
            seq: seq, time: t0, connection: id, exchange: 1, remote: nil, method: "GET", target: "/", version: "HTTP/1.1", headers: [],
            bodyBytes: 0, credentials: nil, verdict: .publicResource, detail: nil, status: 200, challenges: nil, tls: facts
        )
    }

    func judge(_ journal: [JournalEntry], exit: Int32) throws -> Judgement {
        let file = try load(Self.rotation)
        let definition = try #require(file.conformance)
        let judge = Judge(expectations: definition.expectations, authority: "localhost:8443", shown: file.scenario.tls?.shownToClients)
        return judge.judge(journal, outcome: ClientOutcome(exitStatus: exit))
    }

    /// A client that sent its request over a renewed certificate fails, and the finding numbers the
    /// certificates, says the renewal kept the key, and concludes which pin the client held.
    @Test func aRequestOverTheRenewedCertificateIsToldConnectionByConnection() throws {
        let first = TLSFacts(version: "TLSv1.3", certificateSHA256: "aa", pinSHA256: "KEY")
        let renewed = TLSFacts(version: "TLSv1.3", certificateSHA256: "bb", pinSHA256: "KEY")
        let journal = [
            Self.request(1, seq: 1, facts: first), Self.connection(1, seq: 2, verdict: .tlsOK, requests: 1, facts: first),
            Self.request(2, seq: 3, facts: renewed), Self.connection(2, seq: 4, verdict: .tlsOK, requests: 1, facts: renewed),
        ]
        let judgement = try judge(journal, exit: 1)
        #expect(judgement.verdict == .fail)
        let story = try #require(judgement.findings.last)
        #expect(story == "shown a certificate signed by the given CA, renewed after every request with the same key — "
            + "connection 1 (certificate 1): completed the TLSv1.3 handshake and sent 1 request(s); "
            + "connection 2 (certificate 2, renewed with the same key): completed the TLSv1.3 handshake and sent 1 request(s) — "
            + "it went on over the renewed certificate whose key was unchanged: it pinned the key, or nothing")
        #expect(judgement.quoted.contains(2) && judgement.quoted.contains(4))
    }

    /// A handshake refused with an alert is told with the alert; a pass carries no story.
    @Test func aRefusalNamesItsAlertAndAPassTellsNothing() throws {
        let first = TLSFacts(version: "TLSv1.3", certificateSHA256: "aa", pinSHA256: "KEY")
        let renewed = TLSFacts(alert: "bad_certificate", certificateSHA256: "bb", pinSHA256: "KEY")
        let journal = [
            Self.request(1, seq: 1, facts: first), Self.connection(1, seq: 2, verdict: .tlsOK, requests: 1, facts: first),
            Self.connection(2, seq: 3, verdict: .tlsHandshakeFailed, requests: 0, detail: "the client rejected the certificate", facts: renewed),
        ]
        #expect(try judge(journal, exit: 1) == Judgement(verdict: .pass))
        let judge = Judge(expectations: Expectations(), authority: "localhost:8443")
        var quoted: Set<Int> = []
        let story = try #require(judge.tlsStory(journal, &quoted))
        #expect(story.contains("connection 2 (certificate 2, renewed with the same key): refused during the handshake (alert bad_certificate): the client rejected the certificate"))
        #expect(story.hasSuffix("it refused the renewed certificate although its key was unchanged: it pinned the certificate"))
    }
}

/// Credentials the engine did not read (a public resource, a 404) are read from the header of the entry's hop.
struct PresentedSchemeTests {
    static func entry(hop: String?, header: String) throws -> JournalEntry {
        let json = """
            {"body_bytes": 0, "connection": 1, "exchange": 1, \(hop.map { "\"hop\": \"\($0)\", " } ?? "")\
            "headers": [{"name": "Host", "value": "127.0.0.1:8080"}, \
            {"credential": true, "name": "\(header)", "value": "Basic YWxpY2U6d29uZGVybGFuZA=="}], \
            "method": "GET", "protocol": "http/1.1", "remote": "127.0.0.1:1", "seq": 1, "status": 200, "target": "/", \
            "time": "2026-01-01T00:00:00.000Z", "verdict": "public", "version": "HTTP/1.1"}
            """
        return try JSONDecoder().decode(JournalEntry.self, from: Data(json.utf8))
    }

    @Test func credentialsOnAPublicResourceAreSeen() throws {
        let judge = Judge(expectations: Expectations(), authority: "127.0.0.1:8080")
        let origin = try Self.entry(hop: nil, header: "Authorization")
        #expect(judge.matches(EntryPattern(credentials: .scheme("Basic")), origin))
        #expect(Judge.summary(origin, authority: "127.0.0.1:8080") == "#1 GET / [Basic] → 200 public")
        #expect(Judge.schemesUsed([origin]) == [SchemeUse(hop: .origin, scheme: "Basic")])
        // The header of the other hop is not the entry's credentials.
        let proxy = try Self.entry(hop: "proxy", header: "Authorization")
        #expect(judge.matches(EntryPattern(credentials: EntryPattern.CredentialsMatch.none), proxy))
        let proxied = try Self.entry(hop: "proxy", header: "Proxy-Authorization")
        #expect(Judge.schemesUsed([proxied]) == [SchemeUse(hop: .proxy, scheme: "Basic")])
    }
}
