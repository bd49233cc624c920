import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The README's complete examples are a real scenario, case and client profile, and they show every key
/// the loaders accept.
struct ReadmeExampleTests {
    /// The README's complete scenario loads with six challenges, its complete case loads with its checks,
    /// and the examples name every key of every section; so does the client profile.
    @Test func completeExampleLoadsAndCoversEveryKey() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let marker = try #require(readme.range(of: "A complete example with every key"))
        let afterMarker = readme[marker.upperBound...]
        let start = try #require(afterMarker.range(of: "```yaml\n"))
        let end = try #require(afterMarker[start.upperBound...].range(of: "```"))
        let yaml = String(afterMarker[start.upperBound..<end.lowerBound])
        let scenario = try ScenarioLoader.load(yaml: yaml, file: "README.md", files: .inMemory([:]))
        #expect(scenario.challenges.count == 6)
        let caseYAML = try Self.block(after: "A complete case with every key", in: readme)
        let conformance = try #require(try CaseLoader.load(yaml: caseYAML, file: "README.md", files: .inMemory([:])).conformance)
        #expect(conformance.expectations.checks.count >= 5)
        for (section, keys) in Self.sections {
            let inCase = Self.caseSections.contains(section)
            for key in keys where !(section == "scenario" && ["case", "expect"].contains(key)) {
                #expect((inCase ? caseYAML : yaml).contains("\(key):"), "README example lacks '\(key)' (\(section))")
            }
        }
        let profileYAML = try Self.block(after: "A complete client profile", in: readme)
        _ = try ClientProfileLoader.load(yaml: profileYAML, file: "README.md")
        for key in ClientProfileLoader.keys + ClientProfileLoader.argumentKeys + ClientProfileLoader.cellKeys {
            #expect(profileYAML.contains("\(key):"), "README profile lacks '\(key)'")
        }
    }

    /// Every section a case file may have: the scenario's and the case's.
    static let sections = ScenarioLoader.keys.merging(CaseLoader.keys) { scenario, _ in scenario }

    /// The sections of `case:` and `expect:`, shown in the README's case example.
    static let caseSections = Set(CaseLoader.keys.keys)

    static func block(after marker: String, in readme: String) throws -> String {
        let found = try #require(readme.range(of: marker))
        let after = readme[found.upperBound...]
        let start = try #require(after.range(of: "```yaml\n"))
        let end = try #require(after[start.upperBound...].range(of: "```"))
        return String(after[start.upperBound..<end.lowerBound])
    }

    /// The README's case list names every case of the shipped suite, under its family, with the count.
    @Test func caseListIsComplete() throws {
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let ids = try Suite.load(directory: repositoryRoot.appendingPathComponent("scenarios/conformance").path).map(\.id)
        #expect(readme.contains("\n\(ids.count) cases in `scenarios/conformance/`"))
        for family in Set(ids.map { String($0.prefix { $0 != "." }) }) {
            let members = ids.filter { $0.hasPrefix(family + ".") }
            let line = try #require(readme.split(separator: "\n").first { $0.hasPrefix("- `\(family).*` (") }, "no line for \(family).*")
            #expect(line.hasPrefix("- `\(family).*` (\(members.count)): "), "\(line)")
            for id in members { #expect(line.contains("`\(id.dropFirst(family.count + 1))`"), "\(id) is not in the README") }
        }
    }
}
