import ArgumentParser
import AuthMockCheck
import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension AuthMockCommand {
    struct Matrix: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "matrix",
            abstract: "Combine `authmock check --json` reports into a Markdown matrix of clients × cases "
                + "(and an HTML report with --html).",
            discussion: """
                Each client's profile (--profiles DIR/CLIENT.yaml) explains cells with `cells:` entries, each naming the
                verdict it explains. The matrix shows every explanation on its cell, and checks it against the run: an
                entry whose verdict is not the run's, or that names no case of the suite, is reported as
                `FILE:LINE:COLUMN: CASE is VERDICT in the run, the note says VERDICT` \
                and makes the command exit 3 after it
                has written the matrix; so does a profile that does not load. A cell that neither passed nor was skipped
                and has no entry is a warning (listed on stderr and under the client in the matrix).

                Exit status: 0, or 3 when a profile's `cells:` entry contradicts the run (the matrix is written all the
                same), 2 for unreadable reports, shards that do not add up, or a suite that does not load.
                """
        )

        /// The exit status when a `cells:` entry contradicts the run (or a profile does not load).
        static let contradictionStatus: Int32 = 3

        @Argument(
            help: ArgumentHelp(
                "JSON reports, one per client in column order, or the reports of one client's shards "
                    + "(merged into one column)."
            )
        )
        var reports: [String]

        @Option(
            help: ArgumentHelp(
                "Client profiles whose `notes:` and `cells:` explain their verdicts "
                    + "(directory; default: the shipped clients/, found as `check` finds its suite).",
                valueName: "dir"
            )
        )
        var profiles: String?

        @Option(help: ArgumentHelp("Markdown to put at the top of the matrix: a reading guide.", valueName: "file"))
        var guide: String?

        @Option(name: .shortAndLong, help: ArgumentHelp("Write the matrix here instead of stdout.", valueName: "file"))
        var output: String?

        @Option(
            help: ArgumentHelp(
                "Also write the matrix as an HTML report here: "
                    + "index.html, a page per cell with its exchange, style.css.",
                valueName: "dir"
            )
        )
        var html: String?

        @Option(
            help: ArgumentHelp(
                "The suite the reports ran "
                    + "(for the expectations on the HTML pages; default scenarios/conformance when it exists).",
                valueName: "dir"
            )
        )
        var suite: String?

        func run() async throws {
            let suites = try readReports()
            let guideText = try readGuide()
            let cases = try suiteCases()
            // The profiles' notes, and their `cells:` entries checked against the run.
            let (notes, cells, contradicted) = profileNotes(for: suites, cases: cases)
            let text = Reports.matrix(suites, notes: notes, cells: cells, guide: guideText)
            if let html {
                do {
                    let links = reports.map {
                        Reports.SiteLink(label: URL(fileURLWithPath: $0).lastPathComponent,
                                         href: Check.relativePath(to: $0, from: html))
                    }
                    try Check.writeSite(
                        Reports.html(suites, cases: cases, notes: notes, cells: cells, links: links), to: html
                    )
                } catch {
                    printError("authmock matrix: cannot write the HTML report to \(html): \(error)")
                    throw ExitCode(2)
                }
            }
            if let output {
                try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
            } else {
                printOut(text)
            }
            if contradicted {
                printError(
                    "authmock matrix: a profile's cells: entry does not agree with the run (above); "
                        + "the matrix was written, with the entry left out"
                )
                throw ExitCode(Self.contradictionStatus)
            }
        }

        /// The reports, a client's shards merged into one; an unreadable report or shards that do not add up
        /// exit 2.
        private func readReports() throws -> [SuiteReport] {
            var suites: [SuiteReport] = []
            for path in reports {
                do {
                    suites.append(try Reports.decode(Data(contentsOf: URL(fileURLWithPath: path))))
                } catch {
                    printError("\(path): not an `authmock check --json` report: \(error)")
                    throw ExitCode(2)
                }
            }
            do {
                return try ReportMerge.merge(suites)
            } catch {
                printError("authmock matrix: \(error.description)")
                throw ExitCode(2)
            }
        }

        /// The reading guide's text, nil without --guide; one that cannot be read exits 2.
        private func readGuide() throws -> String? {
            guard let guide else { return nil }
            guard let text = try? String(contentsOfFile: guide, encoding: .utf8) else {
                printError("\(guide):1:1: cannot read the reading guide — give a Markdown file, or leave --guide out")
                throw ExitCode(2)
            }
            return text
        }

        /// The suite's cases, for the expectations on the HTML pages; nil when there is no suite to read, and a
        /// suite that does not load exits 2.
        private func suiteCases() throws -> [ConformanceCase]? {
            let suiteDirectory = suite ?? SharedData.share.locate(SharedData.suite) ?? SharedData.suite
            if suite != nil || FileManager.default.fileExists(atPath: suiteDirectory) {
                do {
                    return try Suite.load(directory: suiteDirectory)
                } catch {
                    printError(error.description)
                    throw ExitCode(2)
                }
            } else if html != nil {
                printError(
                    "authmock matrix: no suite at \(suiteDirectory); the HTML pages list no expectations (give --suite)"
                )
            }
            return nil
        }

        /// Each profile's notes and `cells:` entries, the entries checked against the run (contradictions and
        /// warnings go to stderr); `contradicted` when an entry contradicts the run or a profile does not load.
        private func profileNotes(for suites: [SuiteReport], cases: [ConformanceCase]?)
            -> (notes: [String: String], cells: [String: [ClientProfile.CellNote]], contradicted: Bool)
        {
            var notes: [String: String] = [:]
            var cells: [String: [ClientProfile.CellNote]] = [:]
            var contradicted = false
            let profiles = profiles ?? SharedData.share.locate("clients") ?? "clients"
            for suite in suites {
                let path = "\(profiles)/\(suite.client).yaml"
                // A report of a bare command (`authmock check -- curl …`) has no profile: nothing to explain it.
                guard FileManager.default.fileExists(atPath: path) else { continue }
                guard let profile = Check.loadProfile(path) else {
                    contradicted = true
                    continue
                }
                if let note = profile.matrixNotes { notes[suite.client] = note }
                cells[suite.client] = profile.cells
                let result = CellNoteCheck.check(profile, against: suite, file: path, known: cases?.map(\.id))
                for diagnostic in result.contradictions { printError(diagnostic.description) }
                for warning in result.warnings(file: path) { printError(warning) }
                contradicted = contradicted || !result.contradictions.isEmpty
            }
            return (notes, cells, contradicted)
        }
    }
}
