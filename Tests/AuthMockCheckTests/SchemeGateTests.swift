@testable import AuthMockCheck
import AuthMockCore
import AuthMockTestSupport
import Foundation
import Testing

/// The suite's one rule for `unimplemented`, on the shipped cases: a client that never sends a scheme is
/// `unimplemented` in every case that needs it, and one that used it in another case of its run is judged.
struct SchemeGateTests {
    /// The shipped cases that need this one scheme of the origin to succeed: what a client without it cannot
    /// pass. (`scheme.digest-over-basic` takes either scheme, and proxy cases gate on the proxy's. The
    /// `transfer.*` cases are about a second transfer, which a client that gives up at the first 401 never
    /// makes: their `met:` keeps them `unimplemented` whatever the gate says.)
    static func originSchemeCases(_ feature: String) throws -> [ConformanceCase] {
        let schemes: Set<String> = ["basic", "digest", "ntlm", "negotiate"]
        return try Suite.load(directory: repositoryRoot.appendingPathComponent("scenarios/conformance").path).filter {
            let features = Set($0.definition.features)
            return features.intersection(schemes) == [feature] && !features.contains("proxy") && !features.contains("transfers")
                && $0.definition.expectations.outcome == .success
        }
    }

    /// One case's report for a client that asks once without credentials, meets the challenge and gives up.
    static func neverAnswers(_ item: ConformanceCase) throws -> CaseReport {
        var harness = Harness(item.scenario)
        harness.send(headers: [HeaderField("Host", "127.0.0.1:8080")])
        let journal = harness.journal.entries
        let judge = Judge(expectations: item.definition.expectations, authority: "127.0.0.1:8080")
        let outcome = ClientOutcome(exitStatus: 1)
        let lacking = judge.judge(journal, outcome: outcome)
        let open = judge.openSchemes(journal)
        var report = CaseReport(
            id: item.id, title: item.definition.title, verdict: lacking.verdict, findings: lacking.findings, observations: lacking.observations,
            journal: journal
        )
        report.schemesUsed = Judge.schemesUsed(journal).sorted()
        report.gate = open.isEmpty ? nil : SchemeGate(needs: open, lacking: lacking, having: judge.judge(journal, outcome: outcome, implementedAnyway: true))
        return report
    }

    /// A report from another case in which the client did send `scheme`.
    static func usedElsewhere(_ scheme: String) -> CaseReport {
        var report = CaseReport(id: "zz.elsewhere", title: "", verdict: .pass, findings: [], observations: [], journal: [])
        report.schemesUsed = [SchemeUse(scheme)!]
        return report
    }

    static func suite(_ cases: [CaseReport]) -> SuiteReport {
        var suite = SuiteReport(client: "c", authmock: "", started: "", cases: cases)
        suite.settleSchemeGates()
        return suite
    }

    /// Never answering Basic (or Digest) is `unimplemented` in every case that needs the scheme, and `fail`
    /// in every one of them once the client is seen using the scheme elsewhere: the same behaviour gets
    /// the same verdict across the suite.
    @Test(arguments: [("basic", "Basic"), ("digest", "Digest")])
    func sameBehaviourSameVerdict(feature: String, scheme: String) throws {
        let cases = try Self.originSchemeCases(feature)
        #expect(cases.count >= 8, "the suite has many \(feature) cases")
        let reports = try cases.map(Self.neverAnswers)

        let lacking = Self.suite(reports)
        let wrong = lacking.cases.filter { $0.verdict != .unimplemented }.map { "\($0.id): \($0.verdict.rawValue) \($0.findings)" }
        #expect(wrong.isEmpty, "a client that never sends \(scheme) is unimplemented wherever it needs it")
        #expect(lacking.cases.allSatisfy { $0.findings.last == "no case of this run saw \(scheme) credentials from it" || $0.gate == nil })

        let having = Self.suite(reports + [Self.usedElsewhere(scheme)])
        let gated = having.cases.filter { $0.gate != nil }
        #expect(gated.count == cases.count, "every case that needs \(scheme) to succeed gates on it: \(having.cases.filter { $0.gate == nil && $0.id != "zz.elsewhere" }.map(\.id))")
        #expect(gated.allSatisfy { $0.verdict == .fail }, "\(gated.filter { $0.verdict != .fail }.map { "\($0.id): \($0.verdict.rawValue)" })")
        #expect(gated.allSatisfy { $0.findings.first == "the client used \(scheme) in `zz.elsewhere` in this run, so it has the scheme and this case is judged" })
    }

    /// Settling twice gives the same report: shards merged and settled again keep their verdicts.
    @Test func settlingIsIdempotent() throws {
        let cases = try Self.originSchemeCases("digest")
        let once = Self.suite(try cases.map(Self.neverAnswers) + [Self.usedElsewhere("Digest")])
        var twice = once
        twice.settleSchemeGates()
        #expect(twice == once)
    }

    /// A gate names the hop: Basic to the proxy is not Basic to the origin.
    @Test func proxySchemesAreTheirOwn() {
        #expect(SchemeUse("proxy Basic") == SchemeUse(hop: .proxy, scheme: "basic"))
        #expect(SchemeUse("proxy Basic") != SchemeUse("Basic"))
        #expect(SchemeUse("ntlm")?.description == "NTLM")
        #expect(SchemeUse("a b c") == nil)
        let gate = SchemeGate(needs: [SchemeUse(hop: .proxy, scheme: "Digest")], lacking: Judgement(verdict: .unimplemented), having: Judgement(verdict: .fail))
        var report = CaseReport(id: "proxy.digest-http", title: "", verdict: .unimplemented, findings: [], observations: [], journal: [])
        report.gate = gate
        #expect(Self.suite([report, Self.usedElsewhere("Digest")]).cases[0].verdict == .unimplemented)
        #expect(Self.suite([report, Self.usedElsewhere("proxy Digest")]).cases[0].verdict == .fail)
    }

    /// `credentials: any` is met by whichever scheme the client sent to that hop elsewhere.
    @Test func anySchemeIsMetByEveryScheme() {
        let any = try! #require(EntryPattern(hop: .proxy, credentials: .any).schemeUse)
        #expect(any.isShown(by: SchemeUse(hop: .proxy, scheme: "NTLM")) && !any.isShown(by: SchemeUse(hop: .origin, scheme: "NTLM")))
        var report = CaseReport(id: "scheme.digest-over-basic", title: "", verdict: .unimplemented, journal: [])
        report.gate = SchemeGate(needs: [SchemeUse(hop: .origin, scheme: SchemeUse.anyScheme)], lacking: Judgement(verdict: .unimplemented), having: Judgement(verdict: .fail))
        let lacking = Self.suite([report, Self.usedElsewhere("proxy Basic")]).cases[0]
        #expect(lacking.verdict == .unimplemented)
        #expect(lacking.findings == ["no case of this run saw credentials of any scheme from it"])
        let having = Self.suite([report, Self.usedElsewhere("Digest")]).cases[0]
        #expect(having.verdict == .fail)
        #expect(having.findings == ["the client used Digest in `zz.elsewhere` in this run, so it has the scheme and this case is judged"])
    }
}

/// Only credentials the client built from `{user}`/`{password}` show that it has a scheme: a Digest-only
/// adapter handed `Authorization: Basic …` by the application (or a URL's userinfo, or a netrc file) has not
/// shown it answers Basic challenges, so the Basic cases stay `unimplemented` for it.
struct SchemeEvidenceTests {
    @Test func onlyCredentialsTheClientBuiltCountAsEvidence() throws {
        let suite = try Suite.load(directory: repositoryRoot.appendingPathComponent("scenarios/conformance").path)
        let byHeader = try #require(suite.first { $0.id == "leak.authorization-header.other-host" })
        let byArguments = try #require(suite.first { $0.id == "redirect.other-host" })
        for item in [byHeader, byArguments] {
            var harness = Harness(item.scenario)
            _ = harness.send(authorization: "Basic YWxpY2U6d29uZGVybGFuZA==")
            let evidence = CheckRunner.schemeEvidence(item, harness.journal.entries)
            if item.id == byHeader.id {
                #expect(evidence == nil)
            } else {
                #expect(evidence == Judge.schemesUsed(harness.journal.entries).sorted())
                #expect(evidence?.isEmpty == false)
            }
        }
    }
}
