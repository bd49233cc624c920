public import AuthMockCore
import AuthMockCertificates
import AuthMockServer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one case concluded, with the evidence: the report formats are views of this.
public struct CaseReport: Sendable, Codable, Equatable {
    public var id: String
    public var title: String
    public var reference: String?
    /// The case's place in the leak matrix, when it has one (`case.leak:`).
    public var leak: LeakRow?
    public var verdict: CaseVerdict
    /// For each broken expectation: what was expected and what the client did, quoting the journal.
    public var findings: [String]
    public var observations: [String]
    public var outcome: ClientOutcome?
    /// The command as run (after placeholders were filled).
    public var command: [String]?
    /// The AUTHMOCK_* variables the client was given, by name: what reproducing the cell by hand needs.
    public var inputs: [String: String]?
    public var stdout: String?
    public var stderr: String?
    /// The case's journal: the first ``CheckRunner/journalExcerpt`` entries and every entry a finding quotes.
    public var journal: [JournalEntry]
    /// The seq of the entries the findings quote.
    public var quoted: [Int]?
    /// Per finding (same order as ``findings``), the seq of every entry it counts, quoted or not: what the
    /// HTML report highlights. The journal excerpt keeps them, up to ``CheckRunner/evidenceKept``.
    public var evidence: [[Int]]?
    /// The schemes the client sent credentials of in this case (`Digest`, `proxy Basic`): evidence for
    /// other cases' ``SchemeGate``.
    public var schemesUsed: [SchemeUse]?
    /// Set when the case's scheme gate was not met by its own journal: the run settles the verdict.
    public var gate: SchemeGate?

    public init(
        id: String, title: String, reference: String? = nil, verdict: CaseVerdict, findings: [String] = [],
        observations: [String] = [], outcome: ClientOutcome? = nil, command: [String]? = nil, stdout: String? = nil,
        stderr: String? = nil, journal: [JournalEntry] = [], quoted: [Int]? = nil, schemesUsed: [SchemeUse]? = nil,
        gate: SchemeGate? = nil, leak: LeakRow? = nil
    ) {
        self.id = id
        self.leak = leak
        self.title = title
        self.reference = reference
        self.verdict = verdict
        self.findings = findings
        self.observations = observations
        self.outcome = outcome
        self.command = command
        self.stdout = stdout
        self.stderr = stderr
        self.journal = journal
        self.quoted = quoted
        self.schemesUsed = schemesUsed
        self.gate = gate
    }
}

/// A client's run of a suite.
public struct SuiteReport: Sendable, Codable, Equatable {
    public var client: String
    /// The client's own version line, when its profile says how to ask.
    public var version: String?
    public var authmock: String
    public var started: String
    /// The machine the run was on: its host name and operating system.
    public var host: String?
    /// How long the run took, in seconds (for merged shards: the longest shard).
    public var seconds: Double?
    /// The `authmock check` arguments that name the suite and the client (`--client curl`, or `--` and the
    /// command): with `--case ID`, the command that runs one cell again.
    public var invocation: [String]?
    /// `2/4` when the run was one shard of the suite (`--shard`); nil for a whole run.
    public var shard: String?
    public var cases: [CaseReport]

    public init(
        client: String, version: String? = nil, authmock: String, started: String, shard: String? = nil,
        cases: [CaseReport]
    ) {
        self.client = client
        self.version = version
        self.authmock = authmock
        self.started = started
        self.shard = shard
        self.cases = cases
    }

    public func count(_ verdict: CaseVerdict) -> Int { cases.filter { $0.verdict == verdict }.count }

    /// 0 when no case failed, 1 when one did, 2 when the runner could not judge a case (that wins: the
    /// run is then not a complete judgement).
    public var exitStatus: Int32 {
        if cases.contains(where: { $0.verdict == .error }) { return 2 }
        if cases.contains(where: { $0.verdict == .fail }) { return 1 }
        return 0
    }
}

/// Runs a client against conformance cases: for each, an in-process server on free ports, the client
/// command with the case's inputs, then the judge over the journal.
public struct CheckRunner: Sendable {
    public var profile: ClientProfile
    /// Features the client lacks, on top of its profile's.
    public var skipFeatures: Set<String>
    /// Seconds a client may run when the case sets no timeout.
    public var defaultTimeout: Double
    /// Called with each case's report as soon as it is judged (progress output).
    public var progress: @Sendable (_ index: Int, _ total: Int, _ report: CaseReport) -> Void
    public var authmockVersion: String
    /// The environment clients start from (AUTHMOCK_* and proxy variables are then removed and set):
    /// the process's own by default; tests pass one instead of changing the process-wide environment,
    /// which other tests' child processes would inherit.
    public var environment: [String: String] = ProcessInfo.processInfo.environment
    /// Cases run at once. Each has its own server on free ports and its own directory, so verdicts do not
    /// depend on it; only the order of the progress lines does.
    public var jobs: Int = 1
    /// The slice of the suite this run is, recorded in its report for the merge; nil: the whole suite.
    public var shard: Shard?
    /// The root CA every case's generated identity is signed with: one per run, so that a client kept
    /// across cases (a browser in a warm process) is given the same CA by each case that gives one.
    public var tlsRoot: TLSRoot? = try? TLSRoot.generate()

    /// Journal entries kept per case in reports.
    public static let journalExcerpt = 60
    /// Entries counted by findings kept beyond the excerpt: a loop of thousands is shown by its first 200.
    public static let evidenceKept = 200
    /// Journal entries a case's server keeps for the judge: a client looping at full speed until its
    /// timeout may send more, and then the judgement says so.
    public static let journalCapacity = 200_000

    public init(
        profile: ClientProfile, skipFeatures: Set<String> = [], defaultTimeout: Double = 10,
        authmockVersion: String = "", progress: @escaping @Sendable (Int, Int, CaseReport) -> Void = { _, _, _ in }
    ) {
        self.profile = profile
        self.skipFeatures = skipFeatures.union(profile.skipFeatures)
        self.defaultTimeout = defaultTimeout
        self.authmockVersion = authmockVersion
        self.progress = progress
    }

    /// Runs the cases, `jobs` at a time, and settles the verdicts that depend on the whole run
    /// (``SchemeGate``). Reports come back in the order of `cases`; progress comes as cases finish.
    public func run(_ cases: [ConformanceCase]) async -> SuiteReport {
        let startedAt = Date()
        let started = Date.ISO8601FormatStyle().format(startedAt)
        let work = ScratchDirectory.unique("authmock-check")
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }

        let version = await clientVersion(in: work)
        let prepareFailure: String? =
            if let prepare = profile.prepare { await runPrepare(prepare, in: work) } else { nil }
        let warm = profile.warm.map {
            WarmPool(
                command: $0, environment: clientEnvironment,
                workingDirectory: profile.directory ?? FileManager.default.currentDirectoryPath, logDirectory: work
            )
        }
        var reports = [CaseReport?](repeating: nil, count: cases.count)
        await withTaskGroup(of: (Int, CaseReport).self) { group in
            var next = 0
            var finished = 0
            func start(_ index: Int) {
                group.addTask {
                    if let prepareFailure {
                        let reason = "the client profile's prepare step failed: \(prepareFailure)"
                        return (index, Self.errorReport(cases[index], reason))
                    }
                    let caseDirectory = work.appendingPathComponent(TextFormat.decimal(index, width: 3))
                    var report = await run(cases[index], in: caseDirectory, warm: warm)
                    let quoted = (report.quoted ?? [])
                        + (report.gate.map { $0.lacking.quoted + $0.having.quoted } ?? [])
                    let counted = ((report.evidence ?? []) + (report.gate?.having.evidence ?? [])).joined()
                    report.journal = Self.excerpt(
                        report.journal, keeping: Set(quoted).union(Set(counted).sorted().prefix(Self.evidenceKept))
                    )
                    return (index, report)
                }
            }
            while next < min(max(1, jobs), cases.count) {
                start(next)
                next += 1
            }
            for await (index, report) in group {
                reports[index] = report
                finished += 1
                progress(finished, cases.count, report)
                if next < cases.count {
                    start(next)
                    next += 1
                }
            }
        }
        await warm?.shutdown()
        var suite = SuiteReport(
            client: profile.name, version: version, authmock: authmockVersion, started: started,
            shard: shard?.description, cases: reports.compactMap { $0 }
        )
        (suite.host, suite.seconds) = (Self.hostDescription, (Date().timeIntervalSince(startedAt) * 10).rounded() / 10)
        suite.settleSchemeGates()
        return suite
    }

    /// Runs one case in its own directory (certificates, body file, captured output); in a process of
    /// `warm` when the profile has one.
    public func run(_ item: ConformanceCase, in directory: URL) async -> CaseReport {
        await run(item, in: directory, warm: nil)
    }

    func run(_ item: ConformanceCase, in directory: URL, warm: WarmPool?) async -> CaseReport {
        let definition = item.definition
        if let missing = definition.features.first(where: {
            $0.split(separator: "|").allSatisfy { skipFeatures.contains(String($0)) }
        }) {
            var report = Self.report(item, verdict: .skip)
            let lacking = missing.replacing("|", with: " or ")
            report.findings = ["the client does not support \(lacking) (profile or --skip-feature)"]
            return report
        }
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            return Self.errorReport(item, "cannot create \(directory.path): \(error)")
        }
        let configuration = Self.serverConfiguration(for: definition, in: directory, root: tlsRoot)
        let server = AuthMockServer(scenario: item.scenario, configuration: configuration)
        do {
            try await server.start()
        } catch {
            return Self.errorReport(item, "the server did not start: \(error)")
        }
        let inputs: Inputs
        do {
            inputs = try self.inputs(for: item, server: server, directory: directory)
        } catch {
            try? await server.shutdown()
            return Self.errorReport(item, "cannot prepare the case's inputs: \(error)")
        }
        let command = profile.commandLine(
            values: inputs.values, given: inputs.given,
            fetches: definition.request.repeatCount * definition.request.parallel
        )
        let timeout = definition.timeout ?? defaultTimeout
        let result: ClientProcess.Result
        do {
            result = try await ClientProcess.run(
                command, environment: inputs.environment, directory: directory, workingDirectory: profile.directory,
                timeout: timeout, crash: profile.crash,
                stdin: definition.request.bodyOnStdin ? directory.appendingPathComponent("body.bin").path : nil,
                warm: warm
            )
        } catch {
            try? await server.shutdown()
            var report = Self.errorReport(item, "the client could not be run: \(error)")
            report.command = command
            return report
        }
        // The journal is complete once the client's connections are closed (TLS entries are written then).
        _ = await server.waitForConnectionsToClose(timeout: .seconds(2))
        let (journal, evicted) = (server.journal, server.journalEvicted)
        try? await server.shutdown()

        var report = judged(item, journal, evicted: evicted, outcome: result.outcome, inputs: inputs, timeout: timeout)
        report.outcome = result.outcome
        (report.command, report.inputs) = (command, inputs.variables)
        report.stdout = result.stdout
        report.stderr = result.stderr
        return report
    }

    /// The case's report from its journal: judged now, and also as if the client had the schemes its gate
    /// names when the journal does not show them (the run settles which holds).
    func judged(
        _ item: ConformanceCase, _ journal: [JournalEntry], evicted: Int, outcome: ClientOutcome, inputs: Inputs,
        timeout: Double
    ) -> CaseReport {
        let definition = item.definition
        // A header the case gives as the credential is one, whatever its name (an API key).
        let given = definition.give.credentialsIn == .header ? [definition.give.header] : []
        let judge = Judge(
            expectations: definition.expectations, authority: inputs.authority,
            bodySHA256: definition.request.body.map(Judge.sha256Hex), timeout: timeout,
            shown: item.scenario.tls?.shownToClients, credentialHeaders: profile.credentialHeaders + given
        )
        var judgement = judge.judge(journal, outcome: outcome)
        // A gate the journal does not meet is settled by the whole run: judge both ways now.
        let open = judge.openSchemes(journal)
        var having = open.isEmpty ? nil : judge.judge(journal, outcome: outcome, implementedAnyway: true)
        if evicted > 0 {
            let note = "the client made so many requests that the first \(evicted) journal entries were dropped;"
                + " the judgement covers the last \(journal.count)"
            judgement.add(finding: note)
            having?.add(finding: note)
        }
        var report = Self.report(item, judgement: judgement, journal: journal)
        report.schemesUsed = Self.schemeEvidence(item, journal)
        report.gate = having.map { SchemeGate(needs: open, lacking: judgement, having: $0) }
        return report
    }

    /// A server on a free port whose limits fit the case, its certificates in the case's directory.
    static func serverConfiguration(
        for definition: CaseDefinition, in directory: URL, root: TLSRoot? = nil
    ) -> ServerConfiguration {
        let bodySize = definition.request.body?.count ?? 0
        return ServerConfiguration(
            port: 0, maxBodySize: max(1024 * 1024, bodySize + 1024), journalCapacity: journalCapacity,
            shutdownGracePeriod: .seconds(1), tlsRoot: root,
            certificatesDirectory: directory.appendingPathComponent("certs").path
        )
    }

    /// `name (Linux 6.1…)`: where the run was, for the report's header.
    static var hostDescription: String {
        let info = ProcessInfo.processInfo
        return "\(info.hostName) (\(info.operatingSystemVersionString))"
    }

    /// A case's report from the judge's verdict on its journal.
    static func report(_ item: ConformanceCase, judgement: Judgement, journal: [JournalEntry]) -> CaseReport {
        var report = Self.report(item, verdict: judgement.verdict)
        report.findings = judgement.findings
        report.observations = judgement.observations
        report.quoted = judgement.quoted.isEmpty ? nil : judgement.quoted
        report.evidence = judgement.evidence
        report.journal = journal
        return report
    }

    // MARK: - Helpers

    /// The schemes this case shows the client has, for the other cases' ``SchemeGate``: only when the client
    /// was handed `{user}`/`{password}` and built the credentials itself. A header the application set, a URL's
    /// userinfo or a netrc file show what the library does with those, not that the adapter answers that
    /// scheme's challenges (a Digest-only adapter handed `Authorization: Basic …` has no Basic).
    static func schemeEvidence(_ item: ConformanceCase, _ journal: [JournalEntry]) -> [SchemeUse]? {
        guard item.definition.give.credentialsIn == .arguments else { return nil }
        return Judge.schemesUsed(journal).sorted()
    }

    /// The first entries and every quoted one, in order.
    static func excerpt(_ journal: [JournalEntry], keeping quoted: Set<Int>) -> [JournalEntry] {
        journal.enumerated().filter { $0.offset < journalExcerpt || quoted.contains($0.element.seq) }.map(\.element)
    }

    static func report(_ item: ConformanceCase, verdict: CaseVerdict) -> CaseReport {
        CaseReport(
            id: item.id, title: item.definition.title, reference: item.definition.reference, verdict: verdict,
            findings: [], observations: [], outcome: nil, command: nil, stdout: nil, stderr: nil, journal: [],
            quoted: nil, schemesUsed: nil, gate: nil, leak: item.definition.leak
        )
    }

    static func errorReport(_ item: ConformanceCase, _ reason: String) -> CaseReport {
        var report = report(item, verdict: .error)
        report.findings = [reason]
        return report
    }

    func clientVersion(in directory: URL) async -> String? {
        guard let command = profile.versionCommand else { return nil }
        let result = try? await ClientProcess.run(
            command, environment: ProcessInfo.processInfo.environment, directory: directory,
            workingDirectory: profile.directory, timeout: 20
        )
        guard let result, result.outcome.exitStatus == 0 else { return nil }
        let line = (result.stdout.isEmpty ? result.stderr : result.stdout).split(separator: "\n").first.map(String.init)
        // Only the name and number: `curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/…` → `curl 7.88.1`.
        return line.map { String($0.prefix { $0 != "(" }.prefix(80)).trimmingBlanks() }
    }

    func runPrepare(_ command: [String], in directory: URL) async -> String? {
        let prepareDirectory = directory.appendingPathComponent("prepare")
        try? FileManager.default.createDirectory(at: prepareDirectory, withIntermediateDirectories: true)
        do {
            let result = try await ClientProcess.run(
                command, environment: ProcessInfo.processInfo.environment, directory: prepareDirectory,
                workingDirectory: profile.directory, timeout: 600
            )
            guard result.outcome.exitStatus == 0 else {
                let lastLine = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
                let status = result.outcome.exitStatus.map(String.init) ?? "on a signal"
                return "\(command.joined(separator: " ")) exited \(status): \(lastLine.suffix(300))"
            }
            return nil
        } catch {
            return "\(error)"
        }
    }
}
