import AuthMockCore
import Foundation
import Testing

/// The case language (`case:` and `expect:`), client profiles and the judge, with no sockets: journals
/// come from the real engine driven by a harness.
struct CaseLoaderTests {
    static let caseYAML = """
        version: 1
        name: digest.example
        users:
          - name: alice
            password: wonderland
        challenges:
          - scheme: Digest
        tls:
          identity: ca-signed
        case:
          title: gives up on a wrong password
          reference: RFC 7616 §3.3
          features: [digest, body]
          timeout: 3s
          request:
            method: PUT
            path: /upload?x=1
            body-bytes: 100
            repeat: 2
          give: {password: wrong, pin: wrong, ca: false}
        expect:
          outcome: failure
          implemented: [{credentials: Digest}, {hop: origin}]
          checks:
            - that: stops
              at-most: 2
              of: {credentials: Digest, algorithm: MD5}
              after: {status: 401}
            - that: order
              grade: non-strict
              sequence:
                - {status: [401, 407], verdict: digest.*}
            - that: what it did
              observe: schemes
        """

    /// Every part of a case reads into the model.
    @Test func caseReadsIntoTheModel() throws {
        let definition = try #require(try load(Self.caseYAML).conformance)
        #expect(definition.title == "gives up on a wrong password")
        #expect(definition.features == ["digest", "body"])
        #expect(definition.timeout == 3)
        #expect(definition.request.method == "PUT")
        #expect(definition.request.path == "/upload?x=1")
        #expect(definition.request.body?.count == 100)
        #expect(definition.request.repeatCount == 2)
        #expect(definition.give == CaseInputs(password: .wrong, ca: false, pin: .wrong))
        #expect(definition.expectations.outcome == .failure)
        #expect(definition.expectations.implemented == [EntryPattern(credentials: .scheme("Digest")), EntryPattern(hop: "origin")])
        #expect(definition.expectations.checks == [
            Check(that: "stops", rule: .count(EntryPattern(credentials: .scheme("Digest"), algorithm: "MD5"), min: nil, max: 2, after: EntryPattern(status: [401]))),
            Check(that: "order", grade: .nonStrict, rule: .sequence([EntryPattern(status: [401, 407], verdict: ["digest.*"])])),
            Check(that: "what it did", grade: .informational, rule: .observe(.schemes)),
        ])
    }

    /// A generated body says where it was cut: each line carries its own offset.
    @Test func generatedBodyIsSelfDescribing() throws {
        let definition = try #require(try load(Self.caseYAML.replacingOccurrences(of: "body-bytes: 100", with: "body-bytes: 70")).conformance)
        #expect(String(decoding: definition.request.body!, as: UTF8.self).hasPrefix("authmock body, byte 000000000\nauthmock body, byte 000000030\n"))
    }

    /// Mistakes in a case are reported with positions and what would be right, all at once.
    @Test func caseMistakesArePositioned() throws {
        let broken = Self.caseYAML
            .replacingOccurrences(of: "features: [digest, body]", with: "features: [digets]")
            .replacingOccurrences(of: "of: {credentials: Digest, algorithm: MD5}", with: "of: {credential: Digest}")
            .replacingOccurrences(of: "grade: non-strict", with: "grade: strict\n      never: {}")
        let diagnostics = AuthMockCoreTests.diagnostics(file: "test.yaml", broken)
        #expect(diagnostics.contains { $0.hasPrefix("test.yaml:13:") && $0.contains("feature 'digets' is not known — did you mean 'digest'?") })
        #expect(diagnostics.contains { $0.contains("unknown key 'credential' in check.of — did you mean 'credentials'?") })
        #expect(diagnostics.contains { $0.contains("check.grade 'strict' is not known — expected one of: fail, non-strict, informational") })
        #expect(diagnostics.contains { $0.contains("a check takes one rule, found sequence, never") })
    }

    /// Checks that could never fail are refused: unknown verdicts, empty lists, HTTP fields on TLS
    /// records, options on observations, inputs the scenario cannot give, links to absent listeners.
    @Test func vacuousChecksAreRefused() throws {
        let yaml = """
            version: 1
            name: v
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            resources:
              - path: /
                headers: {Location: "{second_url}x", Link: "{other_hosturl}"}
            case:
              title: t
              give: {pin: right, proxy-password: wrong}
            expect:
              implemented: []
              checks:
                - that: a
                  never: {verdict: basic.okk}
                - that: b
                  never: {status: []}
                - that: c
                  at-least: 1
                  of: {kind: tls, credentials: any}
                - that: d
                  observe: schemes
                  grade: fail
            """
        var messages: [String] = []
        do {
            _ = try ScenarioLoader.load(yaml: yaml, file: "v.yaml", files: .inMemory([:]))
            Issue.record("a vacuous case loaded")
        } catch {
            messages = error.diagnostics.map(\.message)
        }
        for expected in [
            "verdict 'basic.okk' is not one the engine gives", "check.never.status is an empty list", "expect.implemented is an empty list",
            "check.of.credentials never matches a TLS connection record", "`grade` has no effect on an observe check",
            "case.give.pin cannot be given: the scenario has no tls: section", "case.give.proxy-password cannot be given: the scenario has no proxy users whose passwords it knows",
            "{second_url} names the second port, which this scenario does not open", "{other_hosturl} is not a listener's name",
        ] {
            #expect(messages.contains(expected), "missing: \(expected) in \(messages)")
        }
    }

    /// `Verdict.known` lists every verdict Verdict.swift declares, so case files can be checked against it.
    @Test func knownVerdictsAreComplete() throws {
        let source = try String(contentsOf: repositoryRoot.appendingPathComponent("Sources/AuthMockCore/Journal/Verdict.swift"), encoding: .utf8)
        let declared = source.split(separator: "\n").compactMap { line -> String? in
            guard line.contains("static let"), line.contains(": Verdict = \"") else { return nil }
            return line.split(separator: "\"").dropFirst().first.map(String.init)
        }
        #expect(declared.count > 50)
        #expect(Set(declared) == Set(Verdict.known.map(\.rawValue)))
    }

    /// `expect:` needs a `case:`, and a case needs something to expect.
    @Test func caseAndExpectGoTogether() throws {
        let base = "version: 1\nname: x\nusers: [{name: a, password: b}]\nchallenges: [{scheme: Basic}]\n"
        #expect(throws: ScenarioLoadError.self) { try load(base + "expect:\n  outcome: success\n") }
        #expect(throws: ScenarioLoadError.self) { try load(base + "case:\n  title: t\n") }
        #expect(throws: ScenarioLoadError.self) { try load(base + "case:\n  title: t\nexpect:\n  checks: []\n") }
        #expect(try load(base).conformance == nil)
    }
}

struct ClientProfileTests {
    static let yaml = """
        name: curl
        version: [curl, --version]
        skip-features: [negotiate]
        command: [curl, -sS, -w, "%{http_code}"]
        args:
          - when: [user]
            unless: [domain]
            add: [-u, "{user}:{password}"]
          - when: [user, domain]
            add: [-u, "{domain}\\\\{user}:{password}"]
          - when: [ca_file]
            add: [--cacert, "{ca_file}"]
        per-fetch: ["{url}"]
        """

    /// Conditional arguments follow the inputs a case gives; braces that are not placeholders stay.
    @Test func commandLineFollowsTheInputs() throws {
        let profile = try ClientProfileLoader.load(yaml: Self.yaml, file: "curl.yaml")
        #expect(profile.skipFeatures == ["negotiate"])
        let plain = profile.commandLine(values: ["user": "alice", "password": "pw", "url": "http://x/"], given: ["user", "password"], fetches: 2)
        #expect(plain == ["curl", "-sS", "-w", "%{http_code}", "-u", "alice:pw", "http://x/", "http://x/"])
        let ntlm = profile.commandLine(
            values: ["user": "alice", "password": "pw", "domain": "EX", "ca_file": "/ca.pem", "url": "u"], given: ["user", "password", "domain", "ca_file"],
            fetches: 1
        )
        #expect(ntlm == ["curl", "-sS", "-w", "%{http_code}", "-u", "EX\\alice:pw", "--cacert", "/ca.pem", "u"])
        #expect(ClientProfile.substitute("{proxy_user}:{nothing}{", ["proxy_user": "p"]) == "p:{nothing}{")
        #expect(ClientProfile.substitute("{ca_file}", [:]) == "")
    }

    /// A typo in a placeholder or a condition is caught when the profile is read.
    @Test func profileMistakesArePositioned() {
        let broken = Self.yaml.replacingOccurrences(of: "when: [ca_file]", with: "when: [ca-file]")
            .replacingOccurrences(of: "\"{user}:{password}\"", with: "\"{usr}:{password}\"")
        do {
            _ = try ClientProfileLoader.load(yaml: broken, file: "curl.yaml")
            Issue.record("a broken profile loaded")
        } catch {
            let messages = error.diagnostics.map(\.description)
            #expect(messages.contains { $0.hasPrefix("curl.yaml:8:") && $0.hasSuffix("placeholder {usr} is not known — did you mean {user}?") })
            #expect(messages.contains { $0.contains("when names 'ca-file', which is not an input — did you mean 'ca_file'?") })
        }
    }
}

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
        let judgement = try judge(Self.badPassword, harness.engine.state.journal.entries, exit: 22)
        #expect(judgement == Judgement(verdict: .pass))
    }

    /// A client that keeps re-sending the refused password fails, and the finding quotes the journal.
    @Test func loopingFailsWithQuotes() throws {
        var harness = try basicHarness()
        for _ in 0..<4 { harness.send(authorization: basic("alice", "nope")) }
        let judgement = try judge(Self.badPassword, harness.engine.state.journal.entries, exit: 22)
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
        let judgement = try judge(Self.badPassword, harness.engine.state.journal.entries, exit: 0)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings.first?.hasPrefix("expected the client to report failure (non-zero exit); it exited 0; last in the journal: #1 GET /") == true)
    }

    /// A client that never sends the scheme is unimplemented — unless it also broke a bound.
    @Test func unimplementedUnlessABoundBreaks() throws {
        var harness = try basicHarness()
        harness.send()
        let quiet = try judge(Self.badPassword, harness.engine.state.journal.entries, exit: 1)
        #expect(quiet.verdict == .unimplemented)
        #expect(quiet.findings.first?.hasPrefix("the client never sent a request with Basic credentials") == true)

        let leaky = Self.badPassword + "\n    - that: no leak\n      never: {leak: true}\n"
        var leaking = try basicHarness()
        leaking.send("GET", "/", headers: [HeaderField("Proxy-Authorization", basic("p", "q"))])
        let judgement = try judge(leaky, leaking.engine.state.journal.entries, exit: 1)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings.contains { $0.contains("LEAK: Proxy-Authorization reached the origin") })
    }

    /// A hang is a fail that says the client was killed.
    @Test func timeoutFails() throws {
        let judgement = try judge(Self.badPassword, [], exit: nil, timedOut: true)
        #expect(judgement.verdict == .fail)
        #expect(judgement.findings.first?.hasPrefix("expected the client to finish; it was still running after 2 s and was killed") == true)
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
        let good = try judge(Self.ordered, harness.engine.state.journal.entries)
        #expect(good == Judgement(verdict: .pass, observations: ["the schemes: Basic"]))

        var preemptive = try basicHarness()
        preemptive.send(authorization: basic("alice", "wonderland"))
        let judgement = try judge(Self.ordered, preemptive.engine.state.journal.entries)
        #expect(judgement.verdict == .nonStrict)
        #expect(judgement.findings.first?.hasPrefix("expected: challenge first, then credentials — no request was without credentials, answered 401; the client sent: #1 GET / [Basic alice] → 200 basic.ok") == true)

        let observeOnly = Self.ordered.replacingOccurrences(of: "outcome: success", with: "outcome: any")
            .replacingOccurrences(of: "    - that: challenge first, then credentials\n      grade: non-strict\n      sequence:\n        - {credentials: none, status: 401}\n        - {credentials: Basic, status: 200}\n", with: "")
        #expect(try judge(observeOnly, preemptive.engine.state.journal.entries).verdict == .informational)
    }

    /// `after:` counts only what follows the first match; authority, TLS and body patterns read the entry.
    @Test func patternsOverRedirectsAndBodies() throws {
        var harness = try basicHarness()
        harness.send(authorization: basic("alice", "wonderland"))
        harness.send("GET", "/", headers: [HeaderField("Host", "localhost:8080"), HeaderField("Authorization", basic("alice", "wonderland"))])
        harness.send("POST", "/", headers: [HeaderField("Host", "127.0.0.1:8080"), HeaderField("Authorization", basic("alice", "wonderland"))], body: Array("abc".utf8))
        let entries = harness.engine.state.journal.entries
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

/// Server behaviours the suite relies on.
struct ConformanceEngineTests {
    /// `nonce.stale-first: 1` calls the first nonce stale on its first correct use, and only that one.
    @Test func staleFirst() throws {
        var harness = Harness(try load("""
            version: 1
            name: s
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Digest}]
            nonce: {stale-first: 1}
            """))
        let client = DigestClient(user: "alice", password: "wonderland")
        let first = harness.send()
        let stale = harness.send(authorization: client.authorization(for: try #require(first.digestChallenge("MD5"))))
        #expect(stale.verdict == .digestStaleNonce)
        #expect(stale.digestChallenge("MD5")?[parameter: "stale"] == "true")
        let ok = harness.send(authorization: client.authorization(for: try #require(stale.digestChallenge("MD5"))))
        #expect(ok.verdict == .digestOK)
    }

    /// An auth-int response computed over an empty body, as curl 7.88 sends it, is named for what it is.
    @Test func authIntWithoutBody() throws {
        var harness = Harness(try load("""
            version: 1
            name: s
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Digest, qop: auth-int}]
            """))
        let challenge = try #require(harness.send("POST").digestChallenge("MD5"))
        let client = DigestClient(user: "alice", password: "wonderland")
        let body = Array("name=alice".utf8)
        let wrong = harness.send(authorization: client.authorization(for: challenge, method: "POST", qop: .authInt), "POST", body: body)
        #expect(wrong.verdict == .digestAuthIntWithoutBody)
        let right = harness.send(
            authorization: DigestClient(user: "alice", password: "wonderland", nc: 2).authorization(for: challenge, method: "POST", body: body, qop: .authInt),
            "POST", body: body
        )
        #expect(right.verdict == .digestOK)
        #expect(right.entry?.bodySHA256 == Judge.sha256Hex(body))
    }

    /// Resource headers name the server's other listeners; the shell fills them in.
    @Test func linksInResourceHeaders() throws {
        var harness = Harness(try load("""
            version: 1
            name: s
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            resources:
              - path: /
                status: 302
                headers: {Location: "{other_host_url}landing"}
            """))
        harness.engine.setLinks(["other_host_url": "http://localhost:8080/", "unknown": "x"])
        let answer = harness.send(authorization: basic("alice", "wonderland"))
        #expect(answer.status == 302)
        #expect(answer.response.headers.first("Location") == "http://localhost:8080/landing")
        #expect(harness.engine.links == ["other_host_url": "http://localhost:8080/"])
    }

    /// A proxy may be scripted to answer 401 (a broken proxy), with WWW-Authenticate, chunked and closing.
    @Test func brokenProxyChallenge() throws {
        let scenario = try load("""
            version: 1
            name: p
            users: []
            challenges: []
            resources: [{path: /, protected: false}]
            proxy:
              users: [{name: carrier, password: pigeon}]
              challenges: [{scheme: Basic}]
              unauthorized: {status: 401, chunked: true, close: true}
            """)
        var random = RandomSource.seeded(1)
        var proxy = Engine(scenario: try #require(scenario.proxyScenario), configuration: .init(role: .proxy), random: &random)
        let answer = proxy.handle(Request(method: "CONNECT", target: "localhost:8443"), now: t0, random: &random)
        #expect(answer.status == 401)
        #expect(answer.response.headers.first("WWW-Authenticate") == "Basic realm=\"authmock proxy\"")
        #expect(answer.response.headers.first("Proxy-Authenticate") == nil)
        #expect(answer.response.chunked && answer.response.closeConnection)
        #expect(answer.entry?.challenges == ["Basic realm=\"authmock proxy\""])
    }
}
