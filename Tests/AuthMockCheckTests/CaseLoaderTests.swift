import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The case language (`case:` and `expect:`) as the case loader reads it, with the scenario it belongs to.
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
        #expect(definition.expectations.implemented == [EntryPattern(credentials: .scheme("Digest")), EntryPattern(hop: .origin)])
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
        let diagnostics = AuthMockCheckTests.diagnostics(file: "test.yaml", broken)
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
              request: {plain-http: true}
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
                - that: e
                  never: {kind: tls, hostile: true}
            """
        var messages: [String] = []
        do {
            _ = try CaseLoader.load(yaml: yaml, file: "v.yaml", files: .inMemory([:]))
            Issue.record("a vacuous case loaded")
        } catch {
            messages = error.diagnostics.map(\.message)
        }
        for expected in [
            "verdict 'basic.okk' is not one the engine gives", "check.never.status is an empty list", "expect.implemented is an empty list",
            "check.of.credentials never matches a TLS connection record", "`grade` has no effect on an observe check",
            "case.give.pin cannot be given: the scenario has no tls: section", "case.give.proxy-password cannot be given: the scenario has no proxy users whose passwords it knows",
            "{second_url} names the second port, which this scenario does not open", "{other_hosturl} is not a listener's name",
            "case.request.plain-http needs a plain HTTP listener", "check.never.hostile never matches a TLS connection record",
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

    static let plainScenario = "version: 1\nname: x\nusers: [{name: a, password: b}]\nchallenges: [{scheme: Basic}]\n"

    /// `expect:` needs a `case:`, a `case:` needs an `expect:`, and a case needs something to expect.
    @Test(arguments: [
        "expect:\n  outcome: success\n",
        "case:\n  title: t\n",
        "case:\n  title: t\nexpect:\n  checks: []\n",
    ])
    func caseAndExpectGoTogether(sections: String) throws {
        let base = Self.plainScenario
        #expect(throws: ScenarioLoadError.self) { try load(base + sections) }
    }

    /// A scenario without `case:` and `expect:` loads as a scenario that is no case.
    @Test func plainScenarioIsNoCase() throws {
        let base = Self.plainScenario
        #expect(try load(base).conformance == nil)
    }
}
