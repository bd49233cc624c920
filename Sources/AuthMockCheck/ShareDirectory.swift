#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where authmock's shipped data is found — the conformance suite (`scenarios/conformance`), the client
/// profiles and their adapters (`clients/`), the schema, the shipped scenarios — so that `authmock check`
/// works from any working directory, installed or built.
///
/// The places are tried in this order, each one for each file asked for (a flag such as `--suite` overrides
/// all of them before this type is asked):
/// 1. the directory in the environment variable `AUTHMOCK_SHARE`;
/// 2. `<directory of the executable>/../share/authmock`: an installed layout (the release tarball, the wheel,
///    the container);
/// 3. the source checkout the binary was built in: the executable lies under `ROOT/.build/…`, and `ROOT`
///    holds `Package.swift` and `scenarios/conformance`;
/// 4. the working directory (relative paths, as before this type existed).
///
/// Pure: the executable's path, the environment, the working directory and the file test are given, so
/// that the order is unit-tested; `current()` fills them in from the running process.
public struct ShareDirectory: Sendable, Equatable {
    /// Why a directory is on the list, for messages that name what was tried.
    public enum Origin: String, Sendable {
        case environment = "AUTHMOCK_SHARE"
        case installed = "beside the binary"
        case checkout = "the source checkout"
        case workingDirectory = "the working directory"
    }

    public struct Root: Sendable, Equatable {
        public var path: String
        public var origin: Origin
    }

    /// The directories to look in, best first, without repeats.
    public let roots: [Root]
    private let workingDirectory: String

    /// - Parameters:
    ///   - executablePath: the running binary's resolved path (`/proc/self/exe`), nil when unknown.
    ///   - exists: whether a file or directory exists at an absolute path.
    public init(
        executablePath: String?, environment: [String: String], workingDirectory: String,
        exists: (String) -> Bool
    ) {
        let cwd = Self.normalized(workingDirectory)
        var roots: [Root] = []
        func add(_ path: String, _ origin: Origin) {
            let path = Self.absolute(path, in: cwd)
            if !roots.contains(where: { $0.path == path }) { roots.append(Root(path: path, origin: origin)) }
        }
        if let share = environment["AUTHMOCK_SHARE"], !share.isEmpty { add(share, .environment) }
        if let executablePath, executablePath.hasPrefix("/") {
            let binDirectory = Self.parent(Self.normalized(executablePath))
            add(Self.parent(binDirectory) + "/share/authmock", .installed)
            if let checkout = Self.checkout(containing: binDirectory, exists: exists) { add(checkout, .checkout) }
        }
        add(cwd, .workingDirectory)
        self.roots = roots
        self.workingDirectory = cwd
    }

    /// The running process's view: `/proc/self/exe`, its environment and working directory, the file system.
    public static func current() -> ShareDirectory {
        let manager = FileManager.default
        return ShareDirectory(
            executablePath: try? manager.destinationOfSymbolicLink(atPath: "/proc/self/exe"),
            environment: ProcessInfo.processInfo.environment,
            workingDirectory: manager.currentDirectoryPath,
            exists: { manager.fileExists(atPath: $0) }
        )
    }

    /// The first place holding `relative` (`scenarios/conformance`, `clients/curl.yaml`), or nil.
    /// A file found in the working directory is given by its relative path, as the commands always did,
    /// so that diagnostics and reports run from the repository root read as they did.
    public func locate(_ relative: String, exists: (String) -> Bool) -> String? {
        for root in roots where exists(root.path + "/" + relative) {
            return root.path == workingDirectory ? relative : root.path + "/" + relative
        }
        return nil
    }

    /// `locate(_:exists:)` on the file system.
    public func locate(_ relative: String) -> String? {
        locate(relative) { FileManager.default.fileExists(atPath: $0) }
    }

    /// The places `relative` was looked for, for a message: `"/a/b (AUTHMOCK_SHARE), …"`.
    public func tried(_ relative: String) -> String {
        roots.map { "\($0.path)/\(relative) (\($0.origin.rawValue))" }.joined(separator: ", ")
    }

    /// The checkout whose `.build` holds `directory`: the nearest ancestor named `.build` whose parent has
    /// `Package.swift` and `scenarios/conformance`.
    static func checkout(containing directory: String, exists: (String) -> Bool) -> String? {
        var current = directory
        while current != "/" && !current.isEmpty {
            if current.hasSuffix("/.build") {
                let root = parent(current)
                if exists(root + "/Package.swift") && exists(root + "/scenarios/conformance") { return root }
            }
            current = parent(current)
        }
        return nil
    }

    /// `/a/b/c` → `/a/b`; `/a` → `/`.
    static func parent(_ path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` made absolute against `directory`, then normalized.
    static func absolute(_ path: String, in directory: String) -> String {
        normalized(path.hasPrefix("/") ? path : directory + "/" + path)
    }

    /// Removes empty and `.` components, resolves `..` lexically, drops a trailing slash.
    static func normalized(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
