#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where authmock puts the files it makes for a run and removes after it: generated certificates, and the
/// runner's per-case directories (client output, certificates, bodies).
public enum ScratchDirectory {
    /// `$TMPDIR` when the user set it; otherwise `/dev/shm` where it is a writable directory (Linux's
    /// tmpfs), else the system's temporary directory. Creating a file in `/tmp` on an ext4 root costs about
    /// 0.24 ms here against 0.009 ms in tmpfs, and a conformance run creates some 300 files.
    public static let base: URL = {
        if let tmpdir = ProcessInfo.processInfo.environment["TMPDIR"], !tmpdir.isEmpty {
            return FileManager.default.temporaryDirectory
        }
        var status = stat()
        if stat("/dev/shm", &status) == 0, status.st_mode & S_IFMT == S_IFDIR, access("/dev/shm", W_OK | X_OK) == 0 {
            return URL(fileURLWithPath: "/dev/shm", isDirectory: true)
        }
        return FileManager.default.temporaryDirectory
    }()

    /// A new directory name under ``base`` (not created).
    public static func unique(_ prefix: String) -> URL {
        base.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    }
}
