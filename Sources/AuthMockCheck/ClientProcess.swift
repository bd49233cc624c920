import AuthMockCore
import AuthMockServer
public import Foundation
import Synchronization

/// Starts processes one at a time. Foundation's `Process.run()` on Linux races with launches on other
/// threads (one launch's file descriptors are closed or inherited by another: EBADF), so everything in
/// this process that launches — the runner, and tests that embed it — goes through this one lock.
public enum ProcessLauncher {
    private static let lock = Mutex(())

    public static func run(_ process: Process) throws {
        try lock.withLock { _ in try process.run() }
    }
}

/// Runs a client command without a shell, with a deadline, capturing the tail of its output.
struct ClientProcess {
    struct Result {
        var outcome: ClientOutcome
        var stdout: String
        var stderr: String
    }

    enum LaunchError: Error, CustomStringConvertible {
        case notFound(String)
        case failed(String, String)

        var description: String {
            switch self {
            case .notFound(let program): "'\(program)' was not found on PATH"
            case .failed(let program, let reason): "'\(program)' could not be started: \(reason)"
            }
        }
    }

    /// Output kept per stream for the report: the end, where clients print their errors.
    static let tailBytes = 4096

    /// Finds a program as a shell would: a path with a slash as it is (relative to `directory`), otherwise
    /// on PATH.
    static func resolve(_ program: String, environment: [String: String], directory: String) -> String? {
        if program.contains("/") {
            let path = program.hasPrefix("/")
                ? program : URL(fileURLWithPath: directory).appendingPathComponent(program).path
            return FileManager.default.isExecutableFile(atPath: path) ? path : nil
        }
        for directory in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// - Parameters:
    ///   - directory: where the output files go.
    ///   - workingDirectory: where the client runs; nil: authmock's own.
    ///   - stdin: a file whose bytes reach the client's standard input through a pipe (which it cannot
    ///     rewind); nil: /dev/null.
    static func run(
        _ arguments: [String], environment: [String: String], directory: URL, workingDirectory: String? = nil,
        timeout: Double, crash: ClientProfile.CrashSignature = .init(), stdin: String? = nil
    ) async throws(LaunchError) -> Result {
        let workingDirectory = workingDirectory ?? FileManager.default.currentDirectoryPath
        guard let program = arguments.first,
            let path = resolve(program, environment: environment, directory: workingDirectory)
        else {
            throw .notFound(arguments.first ?? "")
        }
        let stdoutURL = directory.appendingPathComponent("stdout")
        let stderrURL = directory.appendingPathComponent("stderr")
        let out = outputFile(stdoutURL)
        let err = outputFile(stderrURL)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        let feeder: Process?
        do {
            feeder = try stdin.map(Self.feed)
        } catch {
            throw .failed("cat", "\(error)")
        }
        process.standardInput = feeder?.standardOutput ?? FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        defer {
            try? out?.close()
            try? err?.close()
            // The feeder ends when the client has read everything or is gone (a broken pipe); make sure.
            if let feeder {
                if feeder.isRunning { feeder.terminate() }
                feeder.waitUntilExit()
            }
        }
        // The exit is reported by Foundation's termination handler (a SIGCHLD source), so the runner learns
        // of it at once instead of at the next tick of a poll; the deadline is the wait's own.
        let exit = WaitQueue<Bool, Bool>(false)
        process.terminationHandler = { _ in
            exit.update { ended, waiters in
                ended = true
                waiters.resumeAll(returning: true)
            }
        }
        let start = ContinuousClock.now
        do {
            try ProcessLauncher.run(process)
        } catch {
            throw .failed(program, "\(error)")
        }
        // Only the client reads: when it is gone, cat's pipe breaks.
        try? (feeder?.standardOutput as? Pipe)?.fileHandleForReading.close()
        let deadline = start.advanced(by: .milliseconds(Int(timeout * 1000)))
        let killed = await watch(process.processIdentifier, exit: exit, deadline: deadline)
        process.waitUntilExit()
        let outcome = Self.outcome(of: process, killed: killed, since: start, crash: crash, stderr: stderrURL)
        return Result(outcome: outcome, stdout: tail(of: stdoutURL), stderr: tail(of: stderrURL))
    }

    /// How the ended `process` ended: its status or signal, how long it ran, and crash evidence from stderr.
    private static func outcome(
        of process: Process, killed: Bool, since start: ContinuousClock.Instant,
        crash: ClientProfile.CrashSignature, stderr stderrURL: URL
    ) -> ClientOutcome {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let signaled = process.terminationReason == .uncaughtSignal
        let status: Int32? = killed || signaled ? nil : process.terminationStatus
        var outcome = ClientOutcome(
            exitStatus: status, timedOut: killed, signal: signaled && !killed ? process.terminationStatus : nil,
            seconds: (seconds * 1000).rounded() / 1000
        )
        // The whole of stderr, not its tail: a traceback's first line can be far from its end.
        if !killed, !signaled, !crash.isEmpty {
            let text = (try? Data(contentsOf: stderrURL)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            outcome.crash = crash.evidence(exitStatus: status, stderr: text)
        }
        return outcome
    }

    /// Starts `cat FILE` writing into a pipe, whose reading end becomes the client's standard input: a
    /// stream, not a file the client could seek back in. A second process, so that a client that stops
    /// reading breaks `cat`'s pipe, not authmock's.
    static func feed(_ file: String) throws -> Process {
        let feeder = Process()
        feeder.executableURL = URL(fileURLWithPath: "/bin/cat")
        feeder.arguments = [file]
        feeder.standardInput = FileHandle.nullDevice
        feeder.standardOutput = Pipe()
        feeder.standardError = FileHandle.nullDevice
        try ProcessLauncher.run(feeder)
        // Only cat writes: the client sees the end of its input when cat is done.
        try? (feeder.standardOutput as? Pipe)?.fileHandleForWriting.close()
        return feeder
    }

    /// Waits for the exit of process `pid` (`exit`'s state turns true) until `deadline`; then sends it
    /// SIGTERM, and SIGKILL a second later if it has not exited by then. Returns whether it was signalled.
    /// Signals go only to a process whose exit has not been reported (the pid is still its own). A
    /// cancelled run stops waiting and signals nothing.
    private static func watch(
        _ pid: Int32, exit: WaitQueue<Bool, Bool>, deadline: ContinuousClock.Instant
    ) async -> Bool {
        func exited(by deadline: ContinuousClock.Instant?) async -> Bool {
            await exit.wait(until: deadline, timedOut: false, cancelled: true) { $0 ? true : nil }
        }
        guard await !exited(by: deadline) else { return false }
        kill(pid, SIGTERM)
        if await !exited(by: ContinuousClock.now + .seconds(1)) { kill(pid, SIGKILL) }
        _ = await exited(by: nil)
        return true
    }

    /// An empty file at `url`, open for the client to write.
    private static func outputFile(_ url: URL) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return try? FileHandle(forWritingTo: url)
    }

    static func tail(of url: URL) -> String {
        guard let data = try? Data(contentsOf: url) else { return "" }
        let text = String(decoding: data.suffix(tailBytes), as: UTF8.self)
        return data.count > tailBytes ? "…" + text : text
    }
}
