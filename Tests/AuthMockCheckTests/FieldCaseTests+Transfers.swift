import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The `transfer.*` cases (issue 29): a second transfer in the same client run, with a second identity. For
/// each, a deliberately wrong client (Clients/two-transfers.py with `--reuse` or `--carry`) fails on the
/// behaviour the case names, and a right one passes: curl where curl is right, the Python client otherwise.
extension CheckRunnerTests {
    static let twoTransfers = "\(CheckRunnerTests.clients)/two-transfers.py"

    /// curl with `--next`: the second transfer in the same run, with its own options (as clients/curl.yaml).
    static func curlTwice(first: [String], second: [String]) -> [String] {
        ["curl", "-sS", "--fail", "--anyauth"] + first + ["{url}", "--next", "-sS", "--fail", "--anyauth"] + second
            + ["{url2}"]
    }

    static let transferCases: [FieldCase] = [
        FieldCase(
            id: "transfer.ntlm-second-user", wrong: ["python3", twoTransfers, "--scheme", "ntlm", "--reuse"],
            finding: "never lets the second transfer be served as alice — 1 request(s) for /two, served as alice, none expected: #3 GET /two → 200 ntlm.connection-authenticated as alice",
            right: curlTwice(first: ["-u", "{domain}\\{user}:{password}"], second: ["-u", "{domain}\\{user2}:{password2}"])
        ),
        FieldCase(
            id: "transfer.ntlm-no-credentials", wrong: ["python3", twoTransfers, "--scheme", "ntlm", "--reuse"],
            finding: "never lets the transfer without credentials be served as alice — 1 request(s) for /two, served as alice",
            // The second transfer is refused (401) on its own connection: outcome any.
            right: ["curl", "-sS", "--anyauth", "-u", "{domain}\\{user}:{password}", "{url}", "--next", "-sS", "{url2}"]
        ),
        FieldCase(
            id: "transfer.negotiate-second-user", wrong: ["python3", twoTransfers, "--scheme", "negotiate", "--reuse"],
            finding: "never lets the second transfer be served as alice — 1 request(s) for /two, served as alice",
            // curl 7.88 is the wrong client here (CVE-2026-1965, see clients/curl.yaml): the right one is Python.
            right: ["python3", twoTransfers, "--scheme", "negotiate"]
        ),
        FieldCase(
            id: "transfer.connect-other-proxy-user", wrong: ["python3", twoTransfers, "--reuse"],
            finding: "opens a tunnel as courier for the second transfer, after carrier's — no request was to the proxy, CONNECT, served as courier",
            // As clients/curl.yaml runs it, with --proxy-anyauth; curl 7.88 with a plain -U (Basic up front)
            // reuses the tunnel instead (CVE-2026-3784, the profile's cells: entry).
            right: ["curl", "-sS", "--fail", "-x", "{proxy}", "--proxy-anyauth", "-U", "{proxy_user}:{proxy_password}", "--cacert", "{ca_file}", "{url}",
                    "--next", "-sS", "--fail", "-x", "{proxy}", "--proxy-anyauth", "-U", "{proxy_user2}:{proxy_password2}", "--cacert", "{ca_file}", "{url2}"]
        ),
        FieldCase(
            id: "transfer.proxy-ntlm-other-user", wrong: ["python3", twoTransfers, "--scheme", "ntlm", "--reuse"],
            finding: "never lets the second transfer be served as carrier — 1 request(s) to the proxy, for /two, served as carrier",
            right: ["curl", "-sS", "--fail", "-x", "{proxy}", "--proxy-ntlm", "-U", "{proxy_user}:{proxy_password}", "{url}",
                    "--next", "-sS", "--fail", "-x", "{proxy}", "--proxy-ntlm", "-U", "{proxy_user2}:{proxy_password2}", "{url2}"]
        ),
        FieldCase(
            id: "transfer.basic-other-host", wrong: ["python3", twoTransfers, "--carry"],
            finding: "never sends alice's credentials to the other host — 1 request(s) to a host or port other than",
            right: curlTwice(first: ["-u", "{user}:{password}"], second: ["-u", "{user2}:{password2}"])
        ),
        FieldCase(
            id: "transfer.digest-other-host", wrong: ["python3", twoTransfers, "--scheme", "digest", "--carry"],
            finding: "never sends alice's Digest credentials to the other host — 1 request(s) to a host or port other than",
            right: curlTwice(first: ["-u", "{user}:{password}"], second: ["-u", "{user2}:{password2}"])
        ),
    ]

    /// A client that makes only the first transfer never meets the second: unimplemented, not a pass.
    @Test func oneTransferIsUnimplemented() async throws {
        let report = try await check(["curl", "-sS", "--fail", "--anyauth", "-u", "{user}:{password}", "{url}"], "transfer.basic-other-host")
        #expect(try only(report).verdict == .unimplemented)
    }

    /// The second transfer's inputs: its URL (on the other loopback name for `host: other`), the second user,
    /// the second proxy user, and nothing for `as: none`.
    @Test func secondTransferInputs() async throws {
        let printed = ["printf", "%s|", "{url}", "{url2}", "{user2}", "{password2}", "{proxy_user2}", "{proxy_password2}"]
        func fields(_ id: String) async throws -> [String] {
            let report = try only(try await check(printed, id))
            return (report.stdout ?? "").split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
        let other = try await fields("transfer.basic-other-host")
        let url = try #require(URLComponents(string: other[0]))
        let url2 = try #require(URLComponents(string: other[1]))
        #expect(url.port == url2.port && url.host != url2.host && url2.path == "/two", "\(other)")
        #expect(Set([url.host, url2.host]) == ["127.0.0.1", "localhost"])
        #expect(Array(other[2...5]) == ["bob", "builder", "", ""])
        let tunnel = try await fields("transfer.connect-other-proxy-user")
        #expect(tunnel[1] == tunnel[0] + "two" && Array(tunnel[2...5]) == ["", "", "courier", "falcon"], "\(tunnel)")
        let none = try await fields("transfer.ntlm-no-credentials")
        #expect(none[1] == none[0] + "two" && Array(none[2...3]) == ["", ""], "\(none)")
    }

    /// A profile's `then:` comes after the first transfer's arguments, only in cases with a second transfer.
    @Test func profileAddsTheSecondTransfer() throws {
        let yaml = ClientProfileTests.yaml + """

            then:
              command: [--next, -sS]
              args:
                - when: [user2]
                  add: [-u, "{user2}:{password2}"]
                - when: [proxy_user2]
                  add: [-U, "{proxy_user2}:{proxy_password2}"]
              per-fetch: ["{url2}"]
            """
        let profile = try ClientProfileLoader.load(yaml: yaml, file: "curl.yaml")
        let values = ["user": "alice", "password": "pw", "url": "http://a/", "url2": "http://b/two", "user2": "bob", "password2": "b"]
        let two = profile.commandLine(values: values, given: ["user", "password", "url2", "user2", "password2"], fetches: 1)
        #expect(two == ["curl", "-sS", "-w", "%{http_code}", "-u", "alice:pw", "http://a/", "--next", "-sS", "-u", "bob:b", "http://b/two"])
        let one = profile.commandLine(values: values, given: ["user", "password"], fetches: 1)
        #expect(one == ["curl", "-sS", "-w", "%{http_code}", "-u", "alice:pw", "http://a/"])
        let broken = yaml.replacingOccurrences(of: "per-fetch: [\"{url2}\"]", with: "per-fetch: [\"{url3}\"]")
        #expect(throws: ScenarioLoadError.self) { try ClientProfileLoader.load(yaml: broken, file: "curl.yaml") }
    }

    /// The shipped curl profile makes the second transfer with `--next` and that transfer's own options: the
    /// second user, the second proxy user, the CA again (`--next` resets every option).
    @Test func curlProfileMakesTheSecondTransferWithNext() throws {
        let path = repositoryRoot.appendingPathComponent("clients/curl.yaml").path
        let profile = try ClientProfileLoader.load(yaml: try String(contentsOfFile: path, encoding: .utf8), file: path)
        let values = [
            "url": "https://localhost:1/", "url2": "https://localhost:1/two", "proxy": "http://127.0.0.1:2",
            "proxy_user": "carrier", "proxy_password": "pigeon", "proxy_user2": "courier", "proxy_password2": "falcon",
            "ca_file": "/ca.pem",
        ]
        let line = profile.commandLine(values: values, given: Set(values.keys), fetches: 1)
        let next = try #require(line.firstIndex(of: "--next"))
        #expect(Array(line[..<next].suffix(6)) == ["--proxy-anyauth", "-U", "carrier:pigeon", "--cacert", "/ca.pem", "https://localhost:1/"])
        #expect(Array(line[next...]) == [
            "--next", "-sS", "--fail", "-L", "-w", "%{http_code}\n", "-x", "http://127.0.0.1:2", "--proxy-anyauth", "-U",
            "courier:falcon", "--cacert", "/ca.pem", "https://localhost:1/two",
        ])
    }

    /// `then:` is checked against the scenario: a second user it lacks, a proxy user without a proxy, an
    /// unknown host, and a case without the `transfers` feature.
    @Test func secondTransferMistakesArePositioned() throws {
        let yaml = """
            version: 1
            name: transfer.example
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            case:
              title: two transfers
              features: [basic]
              then: {path: /two, host: elsewhere, as: second, proxy-as: first}
            expect:
              outcome: success
            """
        let messages = diagnostics(file: "t.yaml", yaml)
        #expect(messages.contains { $0.hasPrefix("t.yaml:8:") && $0.contains("a case with `then:` needs the feature transfers") }, "\(messages)")
        #expect(messages.contains { $0.contains("case.then.host 'elsewhere' is not known") }, "\(messages)")
        #expect(messages.contains { $0.contains("case.then.as: second needs 2 users whose passwords the scenario knows") }, "\(messages)")
        #expect(messages.contains { $0.contains("case.then.proxy-as needs a proxy") }, "\(messages)")
        let fixed = yaml.replacingOccurrences(of: "[basic]", with: "[basic, transfers]")
            .replacingOccurrences(of: ", host: elsewhere, as: second, proxy-as: first", with: ", host: other, as: none")
        let definition = try #require(try CaseLoader.load(yaml: fixed, file: "t.yaml", files: .inMemory([:])).conformance)
        #expect(definition.then == CaseTransfer(path: "/two", host: .other, user: .none))
    }
}
