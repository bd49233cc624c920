import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// `scenarios/schema.json` (for editors) describes exactly the keys the loader accepts. Whether the
/// shipped scenarios validate against it is checked by `Tests/schema/test_schema.py` with the reference
/// JSON Schema implementation; this test keeps its key sets from drifting from the loaders' (the
/// scenario's sections and the case's).
struct SchemaCoverageTests {
    /// Every section a case file may have: the scenario's and the case's.
    static let sections = ScenarioLoader.keys.merging(CaseLoader.keys) { scenario, _ in scenario }

    static func schema() throws -> [String: Any] {
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("scenarios/schema.json"))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// schema.json has a definition for each section the scenario and case loaders read, with exactly the
    /// loader's keys and `additionalProperties: false`, so that editors refuse what the loader refuses.
    @Test func everySectionOfTheLoaderHasADefinitionWithExactlyItsKeys() throws {
        let schema = try Self.schema()
        let definitions = try #require(schema["definitions"] as? [String: Any])
        for (section, keys) in Self.sections {
            let object = section == "scenario" ? schema : definitions[section] as? [String: Any]
            let definition = try #require(object, "schema.json has no definitions[\"\(section)\"]")
            let properties = try #require(definition["properties"] as? [String: Any], "definitions[\"\(section)\"] has no properties")
            #expect(Set(properties.keys) == Set(keys), "section \(section): schema \(properties.keys.sorted()) vs loader \(keys.sorted())")
            #expect(definition["additionalProperties"] as? Bool == false, "section \(section) must refuse unknown keys, as the loader does")
        }
    }

    /// Every shipped scenario names the schema on its first line, for YAML language servers.
    @Test func shippedScenariosCarryTheModeline() throws {
        let root = repositoryRoot.appendingPathComponent("scenarios")
        for (directory, modeline) in [(root, "schema.json"), (root.appendingPathComponent("conformance"), "../schema.json")] {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) where name.hasSuffix(".yaml") {
                let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
                #expect(text.hasPrefix("# yaml-language-server: $schema=\(modeline)\n"), "\(name)")
            }
        }
    }
}
