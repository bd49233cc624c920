import AuthMockCheck
import Foundation

// The runner's tests start curl and the `authmock` binary. These helpers are the ones of
// Tests/AuthMockServerTests/Support.swift that those tests use: SwiftPM test targets cannot share sources.

/// The `authmock` binary built next to this test bundle.
var authmockBinary: String {
    let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    let candidates = [here.appendingPathComponent("authmock").path, repositoryRoot.appendingPathComponent(".build/debug/authmock").path]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
}

struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs a program without a shell and with stdin at /dev/null, bounded in time (a hang is killed). It is
/// launched through the runner's lock: Foundation's Process.run() on Linux races with launches on other
/// threads (EBADF).
func run(_ executable: String, _ arguments: [String], timeout: Duration = .seconds(20)) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try ProcessLauncher.run(process)
    let killer = Task {
        try await Task.sleep(for: timeout)
        process.terminate()
    }
    // Read both pipes to the end before waiting, so a chatty process cannot block on a full pipe.
    async let stdout = Task.detached { out.fileHandleForReading.readDataToEndOfFile() }.value
    async let stderr = Task.detached { err.fileHandleForReading.readDataToEndOfFile() }.value
    let (o, e) = await (stdout, stderr)
    process.waitUntilExit()
    killer.cancel()
    return ProcessResult(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

/// curl's major version, from `curl --version`.
func curlMajorVersion() async throws -> Int {
    let result = try await run("/usr/bin/curl", ["--version"])
    let words = result.stdout.split(separator: " ")
    return Int(words.dropFirst().first?.split(separator: ".").first ?? "") ?? 0
}
