public import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import Synchronization

/// One conformance case: a scenario with `case:` and `expect:` sections, and the file it came from.
public struct ConformanceCase: Sendable {
    /// The scenario's name, e.g. `digest.stale-nonce`: what `--case` globs match.
    public var id: String { scenario.name }
    public var scenario: Scenario
    public var definition: CaseDefinition
    public var file: String

    public init(scenario: Scenario, definition: CaseDefinition, file: String) {
        self.scenario = scenario
        self.definition = definition
        self.file = file
    }
}

/// The cases of a suite directory, validated as a whole before anything runs.
public enum Suite {
    public struct LoadError: Error, CustomStringConvertible {
        public var diagnostics: [ScenarioDiagnostic]
        public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
    }

    /// Loads every `*.yaml` of `directory`, in the order of the cases' names. Files without a `case:` section
    /// are not cases and are refused, so that a suite never silently shrinks. Two files may not share a name.
    public static func load(directory: String) throws(LoadError) -> [ConformanceCase] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw LoadError(diagnostics: [
                ScenarioDiagnostic(
                    file: directory, line: 1, column: 1, message: "cannot read the suite directory",
                    hint: "give --suite a directory of case files, e.g. scenarios/conformance"
                )
            ])
        }
        let paths = names.sorted().filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.map {
            directory.hasSuffix("/") ? directory + $0 : directory + "/" + $0
        }
        // Parsed on every core (each file on its own), then taken in order, so that diagnostics and the
        // check for shared names do not depend on which file finished first.
        let loaded = Mutex([Result<CaseLoader.File, ScenarioLoadError>?](repeating: nil, count: paths.count))
        DispatchQueue.concurrentPerform(iterations: paths.count) { index in
            // An unreadable file is a diagnostic at path:1:1, like any other problem of the file.
            let result = Result { () throws(ScenarioLoadError) in
                try CaseLoader.load(file: paths[index], files: .fileSystem)
            }
            loaded.withLock { $0[index] = result }
        }
        var cases: [ConformanceCase] = []
        var diagnostics: [ScenarioDiagnostic] = []
        var seen: [String: String] = [:]
        for (path, result) in zip(paths, loaded.withLock { $0 }) {
            do {
                let (scenario, conformance) = try result!.get()
                guard let definition = conformance else {
                    diagnostics.append(ScenarioDiagnostic(
                        file: path, line: 1, column: 1, message: "the file is a scenario without a `case:` section",
                        hint: "add `case:` and `expect:`, or keep plain scenarios out of the suite directory"
                    ))
                    continue
                }
                if let other = seen[scenario.name] {
                    diagnostics.append(ScenarioDiagnostic(
                        file: path, line: 1, column: 1,
                        message: "case name '\(scenario.name)' is also used by \(other)",
                        hint: "give every case its own name"
                    ))
                    continue
                }
                seen[scenario.name] = path
                cases.append(ConformanceCase(scenario: scenario, definition: definition, file: path))
            } catch {
                diagnostics += error.diagnostics
            }
        }
        guard diagnostics.isEmpty else { throw LoadError(diagnostics: diagnostics) }
        // One order everywhere (reports, shards, the merged matrix): the case's name, not its file's.
        return cases.sorted { $0.id < $1.id }
    }

    /// The cases whose id matches any of the globs (`*` any run of characters, `?` one); all without globs.
    public static func select(_ cases: [ConformanceCase], globs: [String]) -> [ConformanceCase] {
        guard !globs.isEmpty else { return cases }
        return cases.filter { candidate in globs.contains { glob($0, matches: candidate.id) } }
    }

    static func glob(_ pattern: String, matches text: String) -> Bool {
        let p = Array(pattern), t = Array(text)
        var pi = 0, ti = 0, star = -1, mark = 0
        while ti < t.count {
            if pi < p.count, p[pi] == "?" || p[pi] == t[ti] {
                pi += 1
                ti += 1
            } else if pi < p.count, p[pi] == "*" {
                star = pi
                mark = ti
                pi += 1
            } else if star >= 0 {
                pi = star + 1
                mark += 1
                ti = mark
            } else {
                return false
            }
        }
        while pi < p.count, p[pi] == "*" { pi += 1 }
        return pi == p.count
    }
}

/// One of `count` deterministic slices of a suite (`--shard 2/4`): case i (from 0, in suite order) is in
/// shard `i % count + 1`. Round robin rather than contiguous blocks, so that each shard gets a share of
/// every family (the slow `fault.*` cases do not all land in one).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// From 1.
    public var index: Int
    public var count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Reads `I/N`.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    public var description: String { "\(index)/\(count)" }

    public func select<Item>(_ items: [Item]) -> [Item] {
        items.enumerated().filter { $0.offset % count == index - 1 }.map(\.element)
    }
}
