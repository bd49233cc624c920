@testable import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The runner's own spawner (no Foundation `Process`): exit status, signals, output into files, stdin through
/// a pipe, environment and working directory, and a timeout that ends the client's whole process group.
struct SpawnTests {
    /// A fresh directory for one test's files.
    func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("spawn-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func text(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "<missing>" }

    @Test func exitStatusAndSignalAreReported() async throws {
        let exited = try Spawn.start("/bin/sh", arguments: ["-c", "exit 7"], environment: [:])
        #expect(await exited.termination() == .exited(7))
        let killed = try Spawn.start("/bin/sh", arguments: ["-c", "kill -SEGV $$"], environment: [:])
        #expect(await killed.termination() == .signalled(SIGSEGV))
    }

    @Test func outputGoesToFilesAndEnvironmentAndDirectoryAreTheGivenOnes() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let out = directory.appendingPathComponent("out"), err = directory.appendingPathComponent("err")
        try Data("old content that must go\n".utf8).write(to: out)
        let spawn = try Spawn.start(
            "/bin/sh", arguments: ["-c", #"echo "$GREETING"; pwd; echo "${HOME:-no home}" >&2"#],
            environment: ["GREETING": "hello there", "PATH": "/usr/bin:/bin"],
            workingDirectory: directory.path, stdout: .file(out.path), stderr: .file(err.path)
        )
        #expect(await spawn.termination() == .exited(0))
        let real = try #require(realpath(directory.path, nil))
        defer { free(real) }
        #expect(text(out) == "hello there\n\(String(cString: real))\n")
        #expect(text(err) == "no home\n")
    }

    @Test func ignoredSignalsAreNotInherited() async throws {
        // `authmock serve` ignores SIGTERM; a child must still die of it.
        let previous = signal(SIGTERM, SIG_IGN)
        defer { signal(SIGTERM, previous) }
        let spawn = try Spawn.start("/bin/sh", arguments: ["-c", "kill -TERM $$; exit 3"], environment: [:])
        #expect(await spawn.termination() == .signalled(SIGTERM))
    }

    @Test func aMissingProgramOrDirectoryIsAnError() throws {
        #expect(throws: Spawn.Failure.self) {
            try Spawn.start("/nonexistent/program", arguments: [], environment: [:])
        }
        #expect(throws: Spawn.Failure.self) {
            try Spawn.start("/bin/true", arguments: [], environment: [:], workingDirectory: "/nonexistent/dir")
        }
    }

    @Test func theFeederStreamsAFileIntoStandardInput() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let body = directory.appendingPathComponent("body"), out = directory.appendingPathComponent("out")
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: body)
        let feeder = try Feeder(body.path)
        // A pipe, not the file: the client cannot seek in it (`test -p /dev/stdin`).
        let spawn = try Spawn.start(
            "/bin/sh", arguments: ["-c", "test -p /dev/stdin && cat"], environment: [:],
            stdin: .descriptor(feeder.readEnd), stdout: .file(out.path)
        )
        feeder.closeReadEnd()
        #expect(await spawn.termination() == .exited(0))
        feeder.finish()
        #expect(try Data(contentsOf: out) == Data(bytes))
    }

    @Test func aTimeoutEndsTheClientAndEverythingItStarted() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pidFile = directory.appendingPathComponent("grandchild")
        // The client starts a grandchild that ignores nothing and outlives it unless its group is signalled.
        let result = try await ClientProcess.run(
            ["/bin/sh", "-c", "sleep 30 & echo $! > \(pidFile.path); wait"], environment: ["PATH": "/usr/bin:/bin"],
            directory: directory, timeout: 0.5
        )
        #expect(result.outcome.timedOut)
        #expect(result.outcome.exitStatus == nil && result.outcome.signal == nil)
        let grandchild = try #require(Int32(text(pidFile).trimmingCharacters(in: .whitespacesAndNewlines)))
        // Signalled with the client; reaped by init once it is gone, so give it time (a survivor lives 30 s).
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        var alive = true
        while alive, ContinuousClock.now < deadline {
            alive = kill(grandchild, 0) == 0 && !isZombie(grandchild)
            if alive { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(!alive, "the grandchild \(grandchild) survived the timeout")
    }

    @Test func aClientRunReportsStatusOutputAndTime() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let result = try await ClientProcess.run(
            ["sh", "-c", "echo out; echo err >&2; exit 4"], environment: ["PATH": "/usr/bin:/bin"],
            directory: directory, timeout: 10
        )
        #expect(result.outcome.exitStatus == 4 && !result.outcome.timedOut)
        #expect(result.stdout == "out\n" && result.stderr == "err\n")
        #expect(result.outcome.seconds < 10)
        await #expect(throws: ClientProcess.LaunchError.self) {
            try await ClientProcess.run(["no-such-program-here"], environment: ["PATH": "/bin"], directory: directory, timeout: 1)
        }
    }
}

/// Whether `pid` is a zombie: dead, and not yet reaped by its parent.
func isZombie(_ pid: Int32) -> Bool {
    let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
    return stat.split(separator: ")").last?.split(separator: " ").first == "Z"
}
