import AuthMockCheck
import AuthMockCore
import Foundation

/// The repository's root, found from this file's path (tests read the shipped scenarios, cases and README).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

/// A case file's text as the runner reads it: the scenario and, when the text has one, its case.
/// The text names no other file: nothing is read from disk.
func load(_ yaml: String) throws -> CaseLoader.File {
    try CaseLoader.load(yaml: yaml, file: "test.yaml", files: .inMemory([:]))
}

/// A plain scenario's text, read by the core's loader as `serve` reads it.
func loadScenario(_ yaml: String) throws -> Scenario {
    try ScenarioLoader.load(yaml: yaml, file: "test.yaml", files: .inMemory([:]))
}

/// A shipped scenario (`scenarios/NAME`), read from disk.
func loadShipped(_ name: String) throws -> Scenario {
    let url = repositoryRoot.appendingPathComponent("scenarios/\(name)")
    return try ScenarioLoader.load(yaml: String(contentsOf: url, encoding: .utf8), file: "scenarios/\(name)", files: .fileSystem)
}

/// The diagnostics a case file's text produces (empty when it loads), as `file:line:column: …` lines.
func diagnostics(file: String = "bad.yaml", _ yaml: String) -> [String] {
    do {
        _ = try CaseLoader.load(yaml: yaml, file: file, files: .inMemory([:]))
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}
