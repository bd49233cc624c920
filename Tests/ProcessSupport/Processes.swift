import AuthMockCheck
import Foundation

// Shared by the test targets that start programs (curl, the `authmock` binary, deliberately wrong clients);
// a target of its own so that AuthMockTestSupport, and with it the core's tests, build no NIO.

public struct ProcessResult: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
}

/// Runs a program without a shell, bounded in time (a hang is killed and reported). `input` is written
/// to its stdin, which is then closed; without it, stdin is /dev/null. It is launched through the
/// runner's lock: Foundation's Process.run() on Linux races with launches on other threads (EBADF).
public func run(_ executable: String, _ arguments: [String], input: Data? = nil, timeout: Duration = .seconds(20)) async throws -> ProcessResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    let stdin = input.map { _ in Pipe() }
    process.standardInput = stdin ?? FileHandle.nullDevice
    try ProcessLauncher.run(process)
    if let stdin, let input {
        try stdin.fileHandleForWriting.write(contentsOf: input)
        try stdin.fileHandleForWriting.close()
    }
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

extension ProcessLauncher {
    /// Launches a Foundation `Process` under the runner's launch lock (the runner itself spawns with
    /// posix_spawn; tests may keep Foundation).
    public static func run(_ process: Process) throws {
        try withLaunchLock { try process.run() }
    }
}

public let curlPath = "/usr/bin/curl"

/// curl's major version, from `curl --version`.
public func curlMajorVersion() async throws -> Int {
    let result = try await run(curlPath, ["--version"])
    let words = result.stdout.split(separator: " ")
    return Int(words.dropFirst().first?.split(separator: ".").first ?? "") ?? 0
}
