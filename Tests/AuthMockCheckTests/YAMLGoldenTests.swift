import Foundation
import Testing

/// The YAML reader's proof (issue 32): `authmock validate` and `authmock check --client … --list` give the
/// same exit status, output and file:line:column diagnostics, byte for byte, as the binary built on Yams did,
/// on every shipped file (scenarios, conformance cases, bench scenarios, the example's scenario, client
/// profiles) and every held-out one (the scenario fuzzer's corpus and YAMLGolden/held-out*: syntax errors,
/// aliases, tags, YAML 1.1 words, deep nesting, huge input). YAMLGolden/cli.golden was recorded with the
/// Yams-based binary of main; to re-record (only when a diagnostic is meant to change), run this test with
/// AUTHMOCK_RECORD_YAML_GOLDEN=1.
struct YAMLGoldenTests {
    static let goldenFile = repositoryRoot.appendingPathComponent("Tests/AuthMockCheckTests/YAMLGolden/cli.golden")

    /// Every file of `directory` (relative to the repository) whose name passes `keep`, sorted, as paths
    /// relative to the repository.
    static func files(_ directory: String, _ keep: (String) -> Bool = { $0.hasSuffix(".yaml") }) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(
            atPath: repositoryRoot.appendingPathComponent(directory).path
        )) ?? []
        return names.filter(keep).sorted().map { "\(directory)/\($0)" }
    }

    static var scenarioInputs: [String] {
        files("scenarios") + files("scenarios/conformance") + files("ci/bench-scenarios")
            + files("examples/swift-fixture/Tests/ProfileClientTests/scenarios")
            + files("Fuzz/Corpus/FuzzScenarioLoader") { !$0.hasPrefix(".") }
            + files("Tests/AuthMockCheckTests/YAMLGolden/held-out")
    }

    static var profileInputs: [String] {
        files("clients") + files("Tests/AuthMockCheckTests/YAMLGolden/held-out-profiles")
    }

    /// The transcript of every run: the command, its status, its output and its diagnostics, with the
    /// repository's path taken out so that the golden holds in any checkout.
    static func transcript() async throws -> String {
        let root = repositoryRoot.path + "/"
        func clean(_ text: String) -> String { text.replacingOccurrences(of: root, with: "") }
        var out = ""
        let scenarios = scenarioInputs
        let validate = try await run(
            authmockBinary, ["validate"] + scenarios.map { root + $0 }, timeout: .seconds(120)
        )
        out += "$ authmock validate \(scenarios.joined(separator: " "))\nstatus: \(validate.status)\n"
        out += "--- stdout\n\(clean(validate.stdout))--- stderr\n\(clean(validate.stderr))"
        for profile in profileInputs {
            let suite = root + "scenarios/conformance"
            let list = try await run(authmockBinary, ["check", "--suite", suite, "--client", root + profile, "--list"])
            let lines = list.stdout.split(separator: "\n").count
            out += "$ authmock check --client \(profile) --list\nstatus: \(list.status)\n"
            out += "stdout lines: \(lines)\n--- stderr\n\(clean(list.stderr))"
        }
        return out
    }

    @Test func diagnosticsMatchTheYamsReader() async throws {
        let actual = try await Self.transcript()
        if ProcessInfo.processInfo.environment["AUTHMOCK_RECORD_YAML_GOLDEN"] == "1" {
            try Data(actual.utf8).write(to: Self.goldenFile)
        }
        let golden = try String(contentsOf: Self.goldenFile, encoding: .utf8)
        #expect(!golden.isEmpty)
        let actualLines = actual.split(separator: "\n", omittingEmptySubsequences: false)
        let goldenLines = golden.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, (have, want)) in zip(actualLines, goldenLines).enumerated() where have != want {
            Issue.record("line \(index + 1) differs:\n  golden: \(want.prefix(400))\n  now:    \(have.prefix(400))")
            break
        }
        #expect(actualLines.count == goldenLines.count)
        #expect(actual == golden)
    }
}
