import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// Verdicts you can bet on: a pass needs the behaviour its row names. Null clients — one that never
/// connects, one that fetches without credentials, one that sends Basic up front and exits — run the whole
/// suite and pass only the rows listed here, each with the reason its claim is met; a crash is told from a
/// refusal; a credential that leaves its authority counts in whatever header it travels.
@Suite(.serialized)
struct VerdictTrustTests {
    static let suiteDirectory = repositoryRoot.appendingPathComponent("scenarios/conformance").path
    static let clients = repositoryRoot.appendingPathComponent("Tests/AuthMockCheckTests/Clients").path

    func check(_ profile: ClientProfile, _ globs: [String] = [], skip: Set<String> = []) async throws -> SuiteReport {
        var runner = CheckRunner(profile: profile, skipFeatures: skip, defaultTimeout: 10)
        runner.jobs = 4
        let suite = try Suite.load(directory: Self.suiteDirectory)
        return await runner.run(globs.isEmpty ? suite : Suite.select(suite, globs: globs))
    }

    func check(_ command: [String], _ globs: String...) async throws -> SuiteReport {
        try await check(.command(command), globs)
    }

    func verdicts(_ report: SuiteReport) -> [String: CaseVerdict] {
        Dictionary(uniqueKeysWithValues: report.cases.map { ($0.id, $0.verdict) })
    }

    // MARK: - Null clients

    /// A client that never connects shows no behaviour: every case is unimplemented, saying why.
    @Test(arguments: ["/bin/true", "/bin/false"])
    func clientThatNeverConnectsPassesNothing(command: String) async throws {
        let report = try await check(.command([command]))
        #expect(report.cases.count == (try Suite.load(directory: Self.suiteDirectory)).count)
        for result in report.cases {
            #expect(result.verdict == .unimplemented, "\(command) \(result.id): \(result.verdict) \(result.findings)")
            #expect(result.findings.first?.contains("never reached the server") == true, "\(result.id): \(result.findings)")
        }
        #expect(report.exitStatus == 0, "unimplemented fails no run")
    }

    /// The TLS rows about refusing a certificate or a protocol: a client that fetches anything, credentials
    /// or not, meets the claim by refusing the handshake, and passes them. Its other passes are listed with
    /// the reason.
    static let refusesBadTLS: [String: String] = [
        "tls.expired": "refuses the expired certificate in the handshake",
        "tls.not-yet-valid": "refuses the not-yet-valid certificate",
        "tls.incomplete-chain": "refuses a chain without its intermediate",
        "tls.sha1-signature": "OpenSSL's default security level refuses a SHA-1 signature",
        "tls.weak-key": "OpenSSL's default security level refuses RSA-1024",
        "tls.wrong-host": "refuses a certificate for other names",
        "tls.untrusted-root": "refuses a CA other than the given one",
        "tls.self-signed-without-ca": "refuses a self-signed certificate it was not given",
        "tls.old-protocol": "refuses TLS 1.0 and 1.1",
        "tls.no-common-name": "accepts a leaf whose names are only in subjectAltName",
        "tls.self-signed-with-ca": "accepts the self-signed certificate it was given",
        "tls.mtls-optional": "completes a handshake that asks for an optional client certificate",
        // A claim the journal cannot check: a client that ignores pins connects as one whose pin matched.
        // The mismatch and rotation rows tell them apart, and fail such a client.
        "tls.pin-match": "connects when the pin matches; that it checked the pin is proved only by tls.pin-mismatch",
    ]

    /// curl without credentials: it fetches and exits 0 whatever the status, so it passes only the TLS rows
    /// whose claim is about the certificate, never a row about authentication. It skips the cases that put
    /// credentials in the URL itself (`userinfo`): there curl would send them, and be a client with Basic.
    @Test func clientWithoutCredentialsPassesOnlyCertificateRows() async throws {
        let command = ["curl", "-sS", "-o", "/dev/null", "--cacert", "{ca_file}", "{url}"]
        let report = try await check(.command(command), skip: ["userinfo"])
        let passes = Set(report.cases.filter { $0.verdict == .pass }.map(\.id))
        #expect(passes.isSubset(of: Set(Self.refusesBadTLS.keys)), "unexpected passes: \(passes.subtracting(Self.refusesBadTLS.keys).sorted())")
        #expect(passes.count >= 8, "it does refuse bad certificates: \(passes.sorted())")
        // It never sent a scheme, so every row gated on one is unimplemented, not failed or passed.
        let verdicts = verdicts(report)
        for id in ["basic.no-challenge", "basic.challenge", "digest.auth-int-only", "hostile.challenge-redos", "hostile.many-challenges", "scheme.basic-or-ntlm"] {
            #expect(verdicts[id] == .unimplemented, "\(id): \(String(describing: verdicts[id]))")
        }
    }

    /// curl sending Basic up front and exiting 0 whatever the status: besides the certificate rows it passes
    /// only rows where sending Basic once, up front, is the behaviour the row names.
    static let preemptiveBasicPasses: [String: String] = [
        "fault.delay": "one authenticated request that waits for the slow answer: what the row names",
        "fault.drop-mid-body": "curl reports the body cut short (exit 18) although it exits 0 on any status",
    ]

    @Test func clientSendingBasicUpFrontPassesOnlyWhatItDoes() async throws {
        let report = try await check(["curl", "-sS", "-o", "/dev/null", "--basic", "-u", "{user}:{password}", "--cacert", "{ca_file}", "{url}"])
        let allowed = Set(Self.refusesBadTLS.keys).union(Self.preemptiveBasicPasses.keys)
        let passes = Set(report.cases.filter { $0.verdict == .pass }.map(\.id))
        #expect(passes.isSubset(of: allowed), "unexpected passes: \(passes.subtracting(allowed).sorted())")
        let verdicts = verdicts(report)
        // Rows about answering a challenge it never met are not passes.
        #expect(verdicts["basic.challenge"] == .informational, "\(String(describing: verdicts["basic.challenge"]))")
        #expect(verdicts["basic.no-challenge"] == .unimplemented)
        #expect(verdicts["digest.stale-loop"] == .unimplemented)
    }

    // MARK: - Crash is not refusal

    /// A client that dies of an uncaught exception after the 401 exits 1, as a clean refusal would: its
    /// profile's crash signature tells them apart, and a crash fails the case with the evidence named.
    @Test func uncaughtExceptionIsACrashNotARefusal() async throws {
        let script = "\(Self.clients)/crash-after-answer.py"
        let unsigned = try await check(["python3", script], "basic.bad-password")
        #expect(unsigned.cases.first?.verdict == .pass, "without a signature exit 1 reads as a refusal: \(unsigned.cases.first?.findings ?? [])")

        var profile = ClientProfile.command(["python3", script])
        profile.crash = .init(stderrPrefixes: ["Traceback (most recent call last):"])
        let traced = try #require(try await check(profile, ["basic.bad-password"]).cases.first)
        #expect(traced.verdict == .fail)
        #expect(traced.outcome?.crash?.contains("Traceback (most recent call last):") == true)
        #expect(traced.findings.first?.contains("it crashed") == true && traced.findings.first?.contains("IndexError") == true, "\(traced.findings)")

        profile = .command(["python3", script, "--status", "70"])
        profile.crash = .init(exitStatuses: [70])
        let reserved = try #require(try await check(profile, ["basic.bad-password"]).cases.first)
        #expect(reserved.verdict == .fail)
        #expect(reserved.findings.first?.contains("exit status 70, which its profile reserves for a crash") == true, "\(reserved.findings)")
    }

    /// The evidence: a reserved status, or a stderr line that starts with a declared prefix (after
    /// indentation), read over the whole of stderr.
    @Test func crashSignatureEvidence() {
        let signature = ClientProfile.CrashSignature(exitStatuses: [70], stderrPrefixes: ["Exception in thread \"main\""])
        #expect(signature.evidence(exitStatus: 1, stderr: "java.io.IOException: refused\n") == nil)
        #expect(signature.evidence(exitStatus: 70, stderr: "boom\n") == "exit status 70, which its profile reserves for a crash: boom")
        #expect(signature.evidence(exitStatus: 70, stderr: "Exception in thread \"main\" java.lang.Error: x\n\tat A.b(A.java:1)\n")
            == "exit status 70, which its profile reserves for a crash; its stderr says: Exception in thread \"main\" java.lang.Error: x")
        let java = "Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index 4096\n\tat Foo.bar(Foo.java:1)\n"
        #expect(signature.evidence(exitStatus: 1, stderr: java) == "its stderr says: Exception in thread \"main\" java.lang.ArrayIndexOutOfBoundsException: Index 4096")
        let python = "Traceback (most recent call last):\n  File \"a.py\", line 1\nIndexError: list index out of range\n"
        #expect(ClientProfile.CrashSignature(stderrPrefixes: ["Traceback (most recent call last):"]).evidence(exitStatus: 1, stderr: python)
            == "its stderr says: Traceback (most recent call last): … IndexError: list index out of range")
        #expect(ClientProfile.CrashSignature().evidence(exitStatus: 70, stderr: "Traceback (most recent call last):") == nil)
    }

    // MARK: - Same host means same host; leaks count

    /// The TLS URL and the plain-HTTP URL share their host: a client that keys Authorization on the host
    /// alone (requests before 2.20, CVE-2018-18074) keeps it over cleartext and fails; one that compares the
    /// origin passes.
    @Test func httpsToHTTPKeepsTheHost() async throws {
        let script = "\(Self.clients)/redirect-headers.py"
        let byHost = try #require(try await check(["python3", script, "--strip-on", "host"], "redirect.https-to-http").cases.first)
        #expect(byHost.verdict == .fail, "\(byHost.findings)")
        #expect(byHost.findings.contains { $0.contains("carrying a credential header") && $0.contains("over cleartext") }, "\(byHost.findings)")
        let byOrigin = try #require(try await check(["python3", script, "--strip-on", "origin"], "redirect.https-to-http").cases.first)
        #expect(byOrigin.verdict == .pass, "\(byOrigin.findings)")
        let hosts = Set(byOrigin.journal.compactMap { entry in entry.headers.first { $0.name.lowercased() == "host" }?.value.split(separator: ":").first })
        #expect(hosts == ["localhost"], "both hops name one host: \(hosts)")
    }

    /// Proxy-Authorization an application set, or a Cookie, kept on a redirect to another host: the journal
    /// marks them as credentials and the case fails; dropping every credential header passes.
    @Test(arguments: ["Proxy-Authorization", "Cookie"])
    func credentialHeadersCountOnAnotherHost(header: String) async throws {
        let script = "\(Self.clients)/redirect-headers.py"
        let kept = try #require(try await check(["python3", script, "--header", header], "redirect.other-host").cases.first)
        #expect(kept.verdict == .fail, "\(kept.findings)")
        #expect(kept.findings.contains { $0.contains("carrying a credential header") }, "\(kept.findings)")
        #expect(kept.findings.contains { $0.contains("LEAK: Proxy-Authorization reached the origin") } == (header == "Proxy-Authorization"), "\(kept.findings)")
        let dropped = try #require(try await check(["python3", script, "--header", header, "--strip-all"], "redirect.other-host").cases.first)
        #expect(dropped.verdict == .pass, "\(dropped.findings)")
    }

    /// A leak the journal records away from the case's authority fails a case even where no check of its
    /// own looks for it; at the case's own authority, a header the application chose to set is left to the
    /// cases about it.
    @Test func recordedLeakElsewhereFailsTheCase() throws {
        func entry(host: String) -> JournalEntry {
            JournalEntry(
                seq: 1, time: Date(), connection: 1, exchange: 1, remote: nil, method: "GET", target: "/", version: "HTTP/1.1",
                headers: [.init(name: "Host", value: host), .init(name: "Proxy-Authorization", value: "Basic eDp5", credential: true)],
                bodyBytes: 0, credentials: nil, verdict: .basicOK, detail: nil, status: 200, challenges: nil,
                leaks: ["Proxy-Authorization reached the origin"]
            )
        }
        let judge = Judge(expectations: Expectations(outcome: .success), authority: "127.0.0.1:1")
        let elsewhere = judge.judge([entry(host: "localhost:1")], outcome: ClientOutcome(exitStatus: 0))
        #expect(elsewhere.verdict == .fail)
        #expect(elsewhere.findings.first?.contains("the journal recorded a leak elsewhere") == true, "\(elsewhere.findings)")
        #expect(judge.judge([entry(host: "127.0.0.1:1")], outcome: ClientOutcome(exitStatus: 0)).verdict == .pass)
    }

    // MARK: - Rows that passed without their behaviour

    /// digest.auth-int-only: qop=auth to an auth-int-only challenge is a qop the server did not offer.
    @Test func authIntOnlyRefusesQOPAuth() async throws {
        let script = "\(Self.clients)/digest.py"
        let wrong = try #require(try await check(["python3", script, "--qop-auth"], "digest.auth-int-only").cases.first)
        #expect(wrong.verdict == .fail)
        #expect(wrong.findings.contains { $0.contains("digest.qop-not-offered") }, "\(wrong.findings)")
        let right = try #require(try await check(["python3", script], "digest.auth-int-only").cases.first)
        #expect(right.verdict == .pass, "\(right.findings)")
    }

    /// digest.stale-loop: a client that never retried after stale=true showed no bound; one that retries a
    /// few times and stops passes.
    @Test func staleLoopNeedsARetry() async throws {
        let script = "\(Self.clients)/digest.py"
        let never = try #require(try await check(["python3", script, "--no-stale-retry"], "digest.stale-loop").cases.first)
        #expect(never.verdict == .unimplemented)
        #expect(never.findings.first?.contains("never met what the case is about") == true, "\(never.findings)")
        let bounded = try #require(try await check(["python3", script], "digest.stale-loop").cases.first)
        #expect(bounded.verdict == .pass, "\(bounded.findings)")
    }

    /// proxy.407-close-silently: proxy credentials sent up front never meet the 407.
    @Test func closeSilentlyNeedsThe407() async throws {
        let upFront = try #require(
            try await check(["curl", "-sS", "--fail", "-x", "{proxy}", "--proxy-basic", "--proxy-user", "{proxy_user}:{proxy_password}", "{url}"], "proxy.407-close-silently")
                .cases.first
        )
        #expect(upFront.verdict == .unimplemented, "\(upFront.findings)")
        #expect(upFront.findings.first?.contains("answered 407") == true, "\(upFront.findings)")
        let challenged = try #require(
            try await check(["curl", "-sS", "--fail", "-x", "{proxy}", "--proxy-anyauth", "--proxy-user", "{proxy_user}:{proxy_password}", "{url}"], "proxy.407-close-silently")
                .cases.first
        )
        #expect(challenged.verdict == .pass, "\(challenged.findings)")
    }

    /// hostile.challenge-redos: "at most once" means once; a client that answers twice fails.
    @Test func redosAnswersAtMostOnce() async throws {
        let twice = try #require(try await check(["python3", "\(Self.clients)/loop-on-401.py", "--times", "2"], "hostile.challenge-redos").cases.first)
        #expect(twice.verdict == .fail, "\(twice.findings)")
        #expect(twice.findings.contains { $0.contains("2 request(s) with credentials, at most 1 expected") }, "\(twice.findings)")
        let once = try #require(try await check(["python3", "\(Self.clients)/loop-on-401.py", "--times", "1"], "hostile.challenge-redos").cases.first)
        #expect(once.verdict == .pass, "\(once.findings)")
    }

    // MARK: - One list of inputs

    /// Every input the runner documents is filled on a command line and in `env:`: `{cert_sha256}` was
    /// listed in the README and the help but not substituted.
    @Test func everyInputIsSubstituted() {
        let values = Dictionary(uniqueKeysWithValues: ClientInput.allCases.map { ($0.rawValue, "value-of-\($0.rawValue)") })
        var profile = ClientProfile(name: "all", command: ["client"] + ClientInput.allCases.map(\.placeholder))
        profile.environment = Dictionary(uniqueKeysWithValues: ClientInput.allCases.map { ("X_\($0.rawValue.uppercased())", "[\($0.placeholder)]") })
        let line = profile.commandLine(values: values, given: [], fetches: 1)
        #expect(line == ["client"] + ClientInput.allCases.map { "value-of-\($0.rawValue)" })
        let environment = profile.environment(values: values)
        for input in ClientInput.allCases {
            #expect(environment["X_\(input.rawValue.uppercased())"] == "[value-of-\(input.rawValue)]", "\(input)")
        }
    }

    /// The README's table of the client contract names exactly these inputs, each with its variable, and
    /// `check --help` names every placeholder.
    @Test func readmeAndHelpNameEveryInput() async throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "### The client contract").dropFirst().first?.components(separatedBy: "\n### ").first)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `{") }
        var documented: [String: String] = [:]
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let names = cells[0].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `{}")) }
            let variables = cells[1].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " `")) }
            for (name, variable) in zip(names, variables) { documented[name] = variable }
        }
        #expect(documented == Dictionary(uniqueKeysWithValues: ClientInput.allCases.map { ($0.rawValue, $0.environmentName) }))
        let help = try await AuthMockCheckTests.run(authmockBinary, ["check", "--help"])
        for input in ClientInput.allCases {
            #expect(help.stdout.contains(input.placeholder), "check --help lacks \(input.placeholder)")
        }
    }

    /// On a real run the pins reach the command line: no placeholder is left in braces.
    @Test func pinsReachTheCommandLine() async throws {
        let report = try await check(["python3", "-c", "import sys; print(' '.join(sys.argv[1:]))", "{pin_sha256}", "{cert_sha256}", "{ca_file}"], "tls.pin-match")
        let result = try #require(report.cases.first)
        #expect(!(result.stdout ?? "").contains("{"), "\(result.stdout ?? "")")
        let words = (result.stdout ?? "").split(separator: " ")
        #expect(words.count == 3 && words[1].count == 64 && words[1].allSatisfy(\.isHexDigit), "\(words)")
    }

    // MARK: - Adapters on their documented API

    /// Every shipped profile names the documentation its adapter follows, and every adapter that can
    /// crash without a signal (an uncaught exception in Python or on the JVM, a Go panic) declares how it
    /// says so; aiohttp has a column for the API its docs teach now and one for the older one.
    @Test func shippedProfilesCiteTheirDocumentationAndCrashSignature() throws {
        let directory = repositoryRoot.appendingPathComponent("clients")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(names.count >= 21)
        for name in names {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let profile = try ClientProfileLoader.load(yaml: text, file: name)
            #expect(!profile.documentation.isEmpty && profile.documentation.allSatisfy { $0.hasPrefix("https://") }, "\(name): \(profile.documentation)")
            switch profile.command.first {
            case "python3", "java":
                #expect(profile.crash.exitStatuses == [70] && !profile.crash.stderrPrefixes.isEmpty, "\(name): \(profile.crash)")
            case let program? where program.contains("go-net-http"):
                #expect(profile.crash.stderrPrefixes.contains("panic: "), "\(name)")
            default:
                break  // curl, wget and the Swift adapters crash by signals, which need no declaration
            }
        }
        let current = try String(contentsOf: directory.appendingPathComponent("aiohttp.yaml"), encoding: .utf8)
        let older = try String(contentsOf: directory.appendingPathComponent("aiohttp-basicauth.yaml"), encoding: .utf8)
        #expect(current.contains("encode_basic_auth") && older.contains("BasicAuth"))
        let adapter = try String(contentsOf: directory.appendingPathComponent("aiohttp-client.py"), encoding: .utf8)
        #expect(adapter.contains("aiohttp.encode_basic_auth(") && adapter.contains("aiohttp.BasicAuth("))
    }
}
