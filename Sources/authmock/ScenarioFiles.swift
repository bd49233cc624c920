import AuthMockCheck
import AuthMockCore
import AuthMockServer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum ScenarioFiles {
    /// Reads and validates a scenario file from disk, or prints every diagnostic to stderr and returns nil.
    /// Through the case loader, so that `serve` and `validate` also refuse a conformance case whose
    /// `case:` or `expect:` section is wrong, as they always have; the case itself is not served.
    /// A relative path missing from the working directory is also looked for among the shipped files
    /// (`SharedData`), so that `authmock serve scenarios/basic.yaml` works wherever authmock is installed.
    static func load(_ path: String) -> Scenario? {
        var path = path
        if !path.hasPrefix("/"), !FileManager.default.fileExists(atPath: path),
            let shipped = SharedData.share.locate(path)
        {
            path = shipped
        }
        do {
            return try CaseLoader.load(file: path, files: .fileSystem).scenario
        } catch {
            for diagnostic in error.diagnostics { printError(diagnostic.description) }
            return nil
        }
    }
}

func printError(_ text: String) {
    DescriptorOutput.standardError.write((text + "\n").utf8)
}

/// Writes a line to stdout; a reader that went away (`| head`) is not an error worth dying for.
func printOut(_ text: String) {
    DescriptorOutput.standardOutput.write((text + "\n").utf8)
}
