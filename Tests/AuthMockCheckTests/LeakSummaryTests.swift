import AuthMockCheck
import AuthMockCore
import Testing

/// `case.leak:` and the matrix's credential-leaks summary made from it.
struct LeakSummaryTests {
    static let yaml = CaseLoaderTests.caseYAML.replacingOccurrences(
        of: "  timeout: 3s\n", with: "  timeout: 3s\n  leak: {credential: cookie, route: https-to-http}\n"
    )

    @Test func leakReadsIntoTheModel() throws {
        let definition = try #require(try load(Self.yaml).conformance)
        #expect(definition.leak == LeakRow(credential: .cookie, route: .httpsToHTTP))
        #expect(try load(CaseLoaderTests.caseYAML).conformance?.leak == nil)
    }

    @Test func unknownWordsArePositionedWithTheList() {
        let broken = Self.yaml.replacingOccurrences(
            of: "{credential: cookie, route: https-to-http}", with: "{credential: cookies, route: elsewhere}"
        )
        let found = diagnostics(file: "leak.yaml", broken)
        #expect(found.contains { $0.hasPrefix("leak.yaml:15:22:") && $0.contains("case.leak.credential 'cookies' is not known — did you mean 'cookie'?") }, "\(found)")
        #expect(found.contains { $0.contains("case.leak.route 'elsewhere' is not known — expected one of: other-host,") }, "\(found)")
        let missing = diagnostics(Self.yaml.replacingOccurrences(of: ", route: https-to-http", with: ""))
        #expect(missing.contains { $0.contains("case.leak has no 'route'") }, "\(missing)")
    }

    static func report(_ id: String, _ verdict: CaseVerdict, _ credential: LeakRow.Credential, _ route: LeakRow.Route) -> CaseReport {
        CaseReport(id: id, title: id, verdict: verdict, leak: LeakRow(credential: credential, route: route))
    }

    /// A row per credential kind a case names; a cell lists the routes a client failed on, else how many it
    /// kept the credential on, else why it was not judged.
    @Test func summaryListsTheRoutesEachClientLeakedOn() {
        let leaky = SuiteReport(client: "leaky", authmock: "", started: "", cases: [
            Self.report("a", .fail, .authorization, .otherHost),
            Self.report("b", .fail, .authorization, .otherPort),
            Self.report("c", .pass, .authorization, .chainBack),
            Self.report("d", .unimplemented, .cookie, .otherHost),
            Self.report("e", .informational, .apiKey, .otherHost),
            CaseReport(id: "f", title: "f", verdict: .fail),
        ])
        let careful = SuiteReport(client: "careful", authmock: "", started: "", cases: [
            Self.report("a", .pass, .authorization, .otherHost),
            Self.report("b", .pass, .authorization, .otherPort),
            Self.report("c", .nonStrict, .authorization, .chainBack),
            Self.report("d", .skip, .cookie, .otherHost),
            Self.report("e", .pass, .apiKey, .otherHost),
        ])
        let lines = Reports.leakSummary([leaky, careful])
        #expect(lines.first == "## Credential leaks")
        #expect(lines.contains("| credential | leaky | careful |"))
        #expect(lines.contains("| Authorization, answering a challenge | ❌ other host, other port | ⚠️ chain back |"))
        #expect(lines.contains("| Cookie | ➖ | ⏭ |"))
        #expect(lines.contains("| API-key header set by the application | ℹ️ other host | ✅ (1) |"))
        #expect(!lines.contains { $0.hasPrefix("| netrc") })
        #expect(Reports.matrix([leaky, careful]).contains("## Credential leaks"))
        #expect(Reports.leakSummary([SuiteReport(client: "x", authmock: "", started: "", cases: [CaseReport(id: "f", title: "f", verdict: .pass)])]).isEmpty)
    }
}
