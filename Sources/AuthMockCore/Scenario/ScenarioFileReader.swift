#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How the loader reads the files a scenario names (`users: {htpasswd: users.htpasswd}`).
///
/// The core does no I/O of its own accord: hosts pass ``fileSystem`` and tests pass ``inMemory(_:)``,
/// so that every rule about user files is tested without touching the disk.
public struct ScenarioFileReader: Sendable {
    /// Reads a file by the path it resolved (see ``resolve(_:relativeTo:)``).
    public var read: @Sendable (_ path: String) throws -> String

    public init(read: @escaping @Sendable (_ path: String) throws -> String) {
        self.read = read
    }

    /// The real file system, as UTF-8 text.
    public static let fileSystem = ScenarioFileReader { path in
        try String(contentsOfFile: path, encoding: .utf8)
    }

    /// Files held in memory by path; any other path does not exist.
    public static func inMemory(_ files: [String: String]) -> ScenarioFileReader {
        ScenarioFileReader { path in
            guard let text = files[path] else { throw CocoaError(.fileReadNoSuchFile) }
            return text
        }
    }

    /// `path` as written in a scenario: absolute as it is, otherwise relative to the scenario file's
    /// directory (to the working directory for text that came from no file).
    public static func resolve(_ path: String, relativeTo scenarioFile: String) -> String {
        guard !path.hasPrefix("/") else { return path }
        let directory = directoryPart(of: scenarioFile)
        guard !directory.isEmpty, !scenarioFile.hasPrefix("<") else { return path }
        return directory.hasSuffix("/") ? directory + path : directory + "/" + path
    }

    /// What NSString's `deletingLastPathComponent` gave: the path without its last component, with runs of
    /// slashes made one and no trailing slash ("" for a bare name, "/" for a file at the root).
    static func directoryPart(of path: String) -> String {
        let absolute = path.hasPrefix("/")
        var components = path.split(separator: "/")
        guard components.count > (absolute ? 0 : 1) else { return absolute ? "/" : "" }
        components.removeLast()
        let directory = components.joined(separator: "/")
        return absolute ? "/" + directory : directory
    }

    /// Why a read failed, in a few words.
    package static func reason(_ error: any Error) -> String {
        if let cocoa = error as? CocoaError {
            switch cocoa.code {
            case .fileReadNoSuchFile, .fileNoSuchFile: return "no such file"
            case .fileReadNoPermission: return "permission denied"
            case .fileReadInapplicableStringEncoding: return "not UTF-8 text"
            default: break
            }
        }
        return String(describing: error)
    }
}
