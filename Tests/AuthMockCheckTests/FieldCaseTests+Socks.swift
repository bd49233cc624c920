import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The SOCKS5 cases (issue 29): for each, a deliberately wrong SOCKS5 client of a few lines
/// (Clients/socks5-client.py with one flag) fails on the behaviour the case names, and curl passes.
extension CheckRunnerTests {
    struct SocksCase: Sendable, CustomTestStringConvertible {
        var id: String
        var wrong: [String]
        /// A sentence the wrong client's finding must contain.
        var finding: String
        var right: [String]
        var testDescription: String { id }

        static func python(_ flags: String...) -> [String] {
            ["python3", "\(CheckRunnerTests.clients)/socks5-client.py"] + flags
        }

        /// curl as the profile runs it: `--proxy socks5h://…` with `--proxy-user`.
        static let curl = ["curl", "-sS", "--fail", "--proxy", "{socks_proxy}", "--proxy-user", "{socks_user}:{socks_password}"]

        static let all: [SocksCase] = [
            SocksCase(
                id: "socks5.username-password", wrong: python("--no-auth"),
                finding: "authenticates once and gets its tunnel to the origin",
                right: curl + ["{url}"]
            ),
            SocksCase(
                id: "socks5.bad-password", wrong: python("--retry"),
                finding: "stops after the proxy refuses its credentials — 10 request(s) to the SOCKS5 proxy, with credentials, at most 2 expected: #1 socks5 handshake [username-password mole] → socks5.bad-password",
                right: curl + ["{url}"]
            ),
            SocksCase(
                id: "socks5.hostname", wrong: python("--resolve"),
                finding: "never resolves the name itself (a DNS leak under socks5h) — 1 request(s) to the SOCKS5 proxy, naming the target by address, none expected",
                right: curl + ["--cacert", "{ca_file}", "{url}"]
            ),
            SocksCase(
                id: "socks5.no-acceptable-method", wrong: python("--retry"),
                finding: "stops after the proxy accepts none of its methods — 10 request(s) to the SOCKS5 proxy, at most 2 expected",
                right: curl + ["{url}"]
            ),
            SocksCase(
                id: "socks5.credentials-stay-at-proxy", wrong: python("--leak"),
                finding: "sends the origin no credential header of the proxy's — 1 request(s) to the origin, carrying a credential header, none expected",
                right: curl + ["{url}"]
            ),
        ]
    }

    @Test(arguments: SocksCase.all)
    func socksCaseCatchesTheWrongClient(_ socks: SocksCase) async throws {
        let wrong = try only(try await check(socks.wrong, socks.id))
        #expect(wrong.verdict == .fail, "\(wrong.findings)")
        #expect(wrong.findings.contains { $0.contains(socks.finding) }, "\(wrong.findings)")
        let right = try only(try await check(socks.right, socks.id))
        #expect(right.verdict == .pass, "\(right.findings) \(right.stderr ?? "")")
    }

    /// The case language's SOCKS5 words are read strictly: a SOCKS5 password needs SOCKS5 users, and
    /// `socks-address` and `hop` take only their values.
    @Test func socksCaseWordsAreReadStrictly() throws {
        let yaml = """
            version: 1
            name: x
            challenges: []
            resources: [{path: /, protected: false}]
            case:
              title: t
              give: {socks-password: wrong}
            expect:
              checks:
                - that: a
                  never: {hop: socks, socks-address: name}
            """
        var messages: [String] = []
        do {
            _ = try CaseLoader.load(yaml: yaml, file: "s.yaml", files: .inMemory([:]))
            Issue.record("the case loaded")
        } catch {
            messages = error.diagnostics.map(\.message)
        }
        #expect(messages.contains("case.give.socks-password cannot be given: the scenario has no socks5 users"), "\(messages)")
        #expect(messages.contains("hop 'socks' is not known"), "\(messages)")
        #expect(messages.contains("check.never.socks-address 'name' is not known"), "\(messages)")
        let loaded = try CaseLoader.load(
            yaml: yaml.replacingOccurrences(of: "socks, socks-address: name", with: "socks5, socks-address: ip")
                .replacingOccurrences(of: "resources:", with: "socks5: {users: [{name: m, password: p}]}\nresources:"),
            file: "s.yaml", files: .inMemory([:])
        )
        #expect(loaded.conformance?.give.socksPassword == .wrong)
    }

    /// A client that never speaks SOCKS5 (curl straight at the origin) meets none of the cases: no pass.
    /// Where a case forbids reaching the origin around the proxy, going there directly fails it.
    @Test func aClientWithoutSOCKS5PassesNothing() async throws {
        let report = try await check(["curl", "-sS", "--fail", "{url}"], "socks5.*")
        #expect(report.cases.count == SocksCase.all.count)
        let verdicts = Dictionary(uniqueKeysWithValues: report.cases.map { ($0.id, $0.verdict) })
        #expect(verdicts == [
            "socks5.username-password": .unimplemented, "socks5.hostname": .unimplemented,
            "socks5.credentials-stay-at-proxy": .unimplemented, "socks5.bad-password": .fail,
            "socks5.no-acceptable-method": .fail,
        ])
    }
}
