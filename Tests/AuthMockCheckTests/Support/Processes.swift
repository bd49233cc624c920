import AuthMockCheck
import Foundation

@_exported import AuthMockProcessSupport
@_exported import AuthMockTestSupport

/// The `authmock` binary built next to this test bundle.
var authmockBinary: String {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [here.appendingPathComponent("authmock").path, repositoryRoot.appendingPathComponent(".build/debug/authmock").path]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
}
