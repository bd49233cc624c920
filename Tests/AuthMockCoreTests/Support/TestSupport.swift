import AuthMockCore
@_exported import AuthMockTestSupport
import Foundation

/// The repository's root, found from this file's path (tests read the shipped scenarios).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

func loadShipped(_ name: String) throws -> Scenario {
    let url = repositoryRoot.appendingPathComponent("scenarios/\(name)")
    return try ScenarioLoader.load(yaml: String(contentsOf: url, encoding: .utf8), file: "scenarios/\(name)", files: .fileSystem)
}

/// A scenario's text; it names no file that exists (the core's tests read none).
func load(_ yaml: String) throws -> Scenario {
    try ScenarioLoader.load(yaml: yaml, file: "test.yaml", files: .inMemory([:]))
}

/// The diagnostics a scenario text produces (empty when it loads), as `file:line:column: …` lines.
func diagnostics(file: String = "bad.yaml", _ yaml: String) -> [String] {
    do {
        _ = try ScenarioLoader.load(yaml: yaml, file: file, files: .inMemory([:]))
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}
