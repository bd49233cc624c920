import ArgumentParser
import AuthMockCheck
import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension AuthMockCommand {
    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "check",
            abstract: "Run an HTTP client against the conformance suite and judge how it handles authentication.",
            discussion: """
                Each case starts its scenario in-process on free ports, runs the client once (no shell), and judges it
                from the journal and its exit status: \
                pass, non-strict, informational, unimplemented, fail, error or skip.
                The client gets the case's inputs as placeholders in its arguments \
                (\(ClientInput.allCases.map(\.placeholder).joined(separator: ", ")))
                and as AUTHMOCK_* environment variables (AUTHMOCK_URL…). \
                A client killed by a signal has crashed, and so has
                one that exits with a --crash-exit-status or prints a --crash-stderr line: a crash fails every case.

                Exit status: 0 when no case failed, 1 when one did, 2 for usage or suite errors (or a case the runner
                could not judge).

                Examples:
                  authmock check -- curl -sS --fail --anyauth -u '{user}:{password}' '{url}'
                  authmock check --client curl --case 'digest.*' --junit report.xml
                """
        )

        @Option(
            help: ArgumentHelp(
                "Directory of case files (default: the shipped scenarios/conformance, found by AUTHMOCK_SHARE, "
                    + "beside the binary, in its source checkout, or in the working directory).",
                valueName: "dir"
            )
        )
        var suite: String?

        @Option(
            name: .customLong("case"),
            help: ArgumentHelp("Run only cases whose name matches (glob: * and ?); repeatable.", valueName: "glob")
        )
        var cases: [String] = []

        @Option(
            help: ArgumentHelp(
                "A client profile: a name under clients/ (curl, python-urllib…) or a YAML file.", valueName: "name|file"
            )
        )
        var client: String?

        @Option(
            help: ArgumentHelp(
                "Features the client lacks, comma-separated (ntlm,proxy,pinning…); their cases are skipped.",
                valueName: "list"
            )
        )
        var skipFeature: [String] = []

        @Option(
            help: ArgumentHelp(
                "Seconds a client may take per case when the case sets none (default: the profile's timeout, or 10).",
                valueName: "seconds"
            )
        )
        var timeout: Double?

        @Option(
            help: ArgumentHelp(
                "Cases run at once, each on its own server (default: the number of cores).", valueName: "n"
            )
        )
        var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

        @Option(
            help: ArgumentHelp(
                "Run only slice I of N of the selected cases (round robin); "
                    + "`authmock matrix` merges the shards' JSON reports.",
                valueName: "I/N"
            )
        )
        var shard: String?

        @Option(help: ArgumentHelp("Write a JUnit XML report.", valueName: "file"))
        var junit: String?

        @Option(help: ArgumentHelp("Write the full verdicts, with journal excerpts, as JSON.", valueName: "file"))
        var json: String?

        @Option(help: ArgumentHelp("Write this client's results as a Markdown table.", valueName: "file"))
        var markdown: String?

        @Option(
            help: ArgumentHelp(
                "Write an HTML report here: "
                    + "index.html with the client's column, a page per case with its exchange, style.css.",
                valueName: "dir"
            )
        )
        var html: String?

        @Option(
            help: ArgumentHelp(
                "An exit status by which the client says it crashed (an uncaught exception), repeatable; "
                    + "a profile's `crash:` adds its own.",
                valueName: "n"
            )
        )
        var crashExitStatus: [Int32] = []

        @Option(
            help: ArgumentHelp(
                "The first words of a stderr line that says the client crashed "
                    + "(`Traceback (most recent call last):`), repeatable.",
                valueName: "text"
            )
        )
        var crashStderr: [String] = []

        @Flag(help: "List the selected cases and exit.")
        var list = false

        @Flag(help: "Never colour the console output.")
        var noColor = false

        @Argument(parsing: .postTerminator, help: "The client command, after --.")
        var command: [String] = []

        /// Usage problems exit 2, as documented (ArgumentParser's own would exit 64).
        func usageProblem() -> String? {
            guard (timeout ?? 1) > 0 else { return "--timeout must be positive" }
            guard jobs >= 1 else { return "--jobs must be at least 1" }
            if let status = crashExitStatus.first(where: { !(1...255).contains($0) }) {
                return "--crash-exit-status takes 1 to 255; got \(status)"
            }
            if crashStderr.contains(where: { $0.trimmingBlanks().isEmpty }) {
                return "--crash-stderr takes the first words of a line, not an empty one"
            }
            if let shard, Shard(shard) == nil {
                return "--shard takes I/N with 1 ≤ I ≤ N, e.g. --shard 2/4; got '\(shard)'"
            }
            if !list, (client == nil) == command.isEmpty {
                return "give the client either as a command after -- or with --client (one of them)"
            }
            let unknown = skipFeatures.subtracting(CaseDefinition.knownFeatures)
            guard unknown.isEmpty else {
                return "unknown feature(s) for --skip-feature: \(unknown.sorted().joined(separator: ", ")); "
                    + "known: \(CaseDefinition.knownFeatures.joined(separator: ", "))"
            }
            return nil
        }

        var skipFeatures: Set<String> {
            Set(
                skipFeature.flatMap { $0.split(separator: ",").map { $0.trimmingBlanks() } }
                    .filter { !$0.isEmpty }
            )
        }

        mutating func run() async throws {
            if let problem = usageProblem() {
                printError("authmock check: \(problem)")
                throw ExitCode(2)
            }
            let suite = try self.suite ?? SharedData.locate(SharedData.suite, for: "check", flag: "--suite")
            self.suite = suite
            let all: [ConformanceCase]
            do {
                all = try Suite.load(directory: suite)
            } catch {
                printError(error.description)
                throw ExitCode(2)
            }
            let slice = shard.flatMap(Shard.init)
            let selected = try selectedCases(of: all, slice: slice)
            var loaded: ClientProfile?
            if let client { loaded = try clientProfile(client, suite: all) }
            if list {
                for item in selected {
                    let features = item.definition.features.isEmpty
                        ? "" : "  [\(item.definition.features.joined(separator: ", "))]"
                    printOut("\(item.id)  \(item.definition.title)\(features)")
                }
                return
            }
            var profile = loaded ?? .command(command)
            profile.crash.exitStatuses += crashExitStatus
            profile.crash.stderrPrefixes += crashStderr

            let colour =
                !noColor && isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
            var runner = CheckRunner(
                profile: profile, skipFeatures: skipFeatures, defaultTimeout: timeout ?? profile.timeout ?? 10,
                authmockVersion: AuthMockCommand.version
            ) {
                index, total, report in
                printOut(Reports.progressLine(index: index, total: total, report: report, colour: colour))
            }
            runner.jobs = min(jobs, profile.jobs ?? jobs)
            runner.shard = slice
            let clientsEnd = ProcessLauncher.endClientsOnTermination()
            var report = await runner.run(selected)
            withExtendedLifetime(clientsEnd) {}
            // How to run a cell again: this command with `--case ID` (the HTML report's reproduce block).
            let naming: [String] = if let client { ["--client", client] } else { ["--"] + command }
            let suiteArguments: [String] = if let path = self.suite { ["--suite", path] } else { [] }
            report.invocation = suiteArguments + naming
            // Files first: they are what CI keeps, whatever happens to stdout.
            try writeReports(report, profile: profile, cases: selected)
            printOut(Reports.table(report, colour: colour))
            if report.exitStatus != 0 { throw ExitCode(report.exitStatus) }
        }

        /// The cases `--case` and `--shard` select from the suite; none is a usage error (exit 2).
        private func selectedCases(of all: [ConformanceCase], slice: Shard?) throws -> [ConformanceCase] {
            let matching = Suite.select(all, globs: cases)
            let selected = slice.map { $0.select(matching) } ?? matching
            guard !selected.isEmpty else {
                if let slice, !matching.isEmpty {
                    printError(
                        "authmock check: shard \(slice) of \(matching.count) case(s) is empty "
                            + "— use at most \(matching.count) shards"
                    )
                    throw ExitCode(2)
                }
                printError(
                    "authmock check: no case in \(suite ?? "") matches \(cases.joined(separator: ", ")) "
                        + "— `authmock check --list` shows the names"
                )
                throw ExitCode(2)
            }
            return selected
        }

        /// The `--client` profile; one that does not load exits 2.
        private func clientProfile(_ client: String, suite all: [ConformanceCase]) throws -> ClientProfile {
            guard let profile = Self.loadProfile(client) else { throw ExitCode(2) }
            // The suite may be another one than the profile was written for: an unknown name is a warning here
            // (`authmock matrix`, which knows the run's suite, fails on it).
            for note in profile.cells {
                for (id, position) in zip(note.cases, note.casePositions) where !all.contains(where: { $0.id == id }) {
                    printError(
                        "\(Self.profilePath(client)):\(position.line):\(position.column): "
                            + "warning: no case '\(id)' in \(suite ?? "")"
                    )
                }
            }
            return profile
        }

        /// Writes the reports the options ask for; one that cannot be written exits 2.
        private func writeReports(_ report: SuiteReport, profile: ClientProfile, cases selected: [ConformanceCase])
            throws
        {
            do {
                if let junit {
                    try Data(Reports.junit(report).utf8).write(to: URL(fileURLWithPath: junit), options: .atomic)
                }
                if let json { try Reports.json(report).write(to: URL(fileURLWithPath: json), options: .atomic) }
                if let markdown {
                    try Data(Reports.markdown(report).utf8).write(to: URL(fileURLWithPath: markdown), options: .atomic)
                }
                if let html {
                    let notes = profile.matrixNotes.map { [report.client: $0] } ?? [:]
                    let cells: [String: [ClientProfile.CellNote]] = client == nil ? [:] : [report.client: profile.cells]
                    let title = "authmock check — \(report.client)"
                    let written = [("JSON", json), ("JUnit XML", junit), ("Markdown", markdown)]
                    let links = written.compactMap { label, file in
                        file.map { Reports.SiteLink(label: label, href: Self.relativePath(to: $0, from: html)) }
                    }
                    try Self.writeSite(
                        Reports.html([report], cases: selected, notes: notes, cells: cells, title: title, links: links),
                        to: html
                    )
                }
            } catch {
                printError("authmock check: cannot write a report: \(error)")
                throw ExitCode(2)
            }
        }

        /// Writes the HTML report's files under `directory`, creating it and its subdirectories. A site
        /// authmock wrote there before is replaced whole: its `cases/` pages go first, so that no page of a
        /// client or case this run lacks is left behind. Other files are left as they are.
        static func writeSite(_ files: [String: String], to directory: String) throws {
            let root = URL(fileURLWithPath: directory, isDirectory: true)
            let index = root.appendingPathComponent("index.html")
            if let previous = try? String(contentsOf: index, encoding: .utf8),
                previous.contains("<meta name=\"generator\" content=\"authmock\">")
                    || previous.contains("Generated by <code>authmock</code>")
            {
                try? FileManager.default.removeItem(at: root.appendingPathComponent("cases"))
            }
            for (path, text) in files.sorted(by: { $0.key < $1.key }) {
                let file = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true
                )
                try Data(text.utf8).write(to: file, options: .atomic)
            }
        }

        /// `file` as a link from a page in `directory`: relative when both are under one root.
        static func relativePath(to file: String, from directory: String) -> String {
            let base = FileManager.default.currentDirectoryPath
            func parts(_ path: String) -> [String] {
                let absolute = path.hasPrefix("/") ? path : base + "/" + path
                return URL(fileURLWithPath: absolute).standardizedFileURL.path.split(separator: "/").map(String.init)
            }
            let target = parts(file)
            let from = parts(directory)
            let shared = zip(target, from).prefix { $0 == $1 }.count
            let steps = Array(repeating: "..", count: from.count - shared) + Array(target.dropFirst(shared))
            // A link's path: what would end it or start a query escaped.
            return steps.map { $0.replacing("%", with: "%25").replacing(" ", with: "%20").replacing("#", with: "%23")
                .replacing("?", with: "%3F") }.joined(separator: "/")
        }

        /// `curl` → `clients/curl.yaml` where the shipped profiles are (`SharedData`); a path is read as it is.
        static func profilePath(_ name: String) -> String {
            guard !(name.contains("/") || name.hasSuffix(".yaml")) else { return name }
            return SharedData.share.locate("clients/\(name).yaml") ?? "clients/\(name).yaml"
        }

        static func loadProfile(_ name: String) -> ClientProfile? {
            let path = profilePath(name)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                let directory = SharedData.share.locate("clients") ?? "clients"
                let known = (try? FileManager.default.contentsOfDirectory(atPath: directory))?
                    .filter { $0.hasSuffix(".yaml") }.map { String($0.dropLast(5)) }.sorted() ?? []
                let tried = path == name ? "" : " (looked in \(SharedData.share.tried("clients/\(name).yaml")))"
                printError(
                    "\(path):1:1: cannot read the client profile\(tried) — "
                        + (known.isEmpty
                            ? "set AUTHMOCK_SHARE to the directory holding clients/, or give a profile file"
                            : "known profiles: \(known.joined(separator: ", "))")
                )
                return nil
            }
            do {
                var profile = try ClientProfileLoader.load(yaml: text, file: path)
                // Commands run next to the profile, so that it can name its adapter by a relative path.
                profile.directory = URL(fileURLWithPath: path).deletingLastPathComponent().standardizedFileURL.path
                return profile
            } catch {
                for diagnostic in error.diagnostics { printError(diagnostic.description) }
                return nil
            }
        }
    }
}
