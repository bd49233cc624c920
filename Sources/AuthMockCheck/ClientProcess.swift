import AuthMockCore
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
    static func run(
        _ arguments: [String], environment: [String: String], directory: URL, workingDirectory: String? = nil,
        timeout: Double, crash: ClientProfile.CrashSignature = .init()
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
        defer {
            try? out?.close()
            try? err?.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = Array(arguments.dropFirst())
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: workingDirectory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = out
        process.standardError = err
        // The exit is reported by Foundation's termination handler (a SIGCHLD source), so the runner learns
        // of it at once instead of at the next tick of a poll; the deadline is a task racing it.
        let (exits, exited) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let ended = Atomic(false)
        process.terminationHandler = { _ in
            ended.store(true, ordering: .sequentiallyConsistent)
            exited.yield()
            exited.finish()
        }
        let start = ContinuousClock.now
        do {
            try ProcessLauncher.run(process)
        } catch {
            throw .failed(program, "\(error)")
        }
        let timedOut = Atomic(false)
        let pid = process.processIdentifier
        let watchdog = Task {
            try await Task.sleep(until: start.advanced(by: .milliseconds(Int(timeout * 1000))), clock: .continuous)
            // Signals go only to a process whose exit has not been reported (the pid is still its own).
            guard !ended.load(ordering: .sequentiallyConsistent) else { return }
            timedOut.store(true, ordering: .relaxed)
            kill(pid, SIGTERM)
            try await Task.sleep(for: .seconds(1))
            if !ended.load(ordering: .sequentiallyConsistent) { kill(pid, SIGKILL) }
        }
        for await _ in exits {}
        watchdog.cancel()
        process.waitUntilExit()
        let killed = timedOut.load(ordering: .relaxed)
        let outcome = outcome(of: process, since: start, killed: killed, crash: crash, stderr: stderrURL)
        return Result(outcome: outcome, stdout: tail(of: stdoutURL), stderr: tail(of: stderrURL))
    }

    /// An empty file at `url`, open for the client to write.
    private static func outputFile(_ url: URL) -> FileHandle? {
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        return try? FileHandle(forWritingTo: url)
    }

    /// How the process ended, once it has: its status or signal, its time, and what says it crashed.
    private static func outcome(
        of process: Process, since start: ContinuousClock.Instant, killed: Bool, crash: ClientProfile.CrashSignature,
        stderr stderrURL: URL
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

    static func tail(of url: URL) -> String {
        guard let data = try? Data(contentsOf: url) else { return "" }
        let text = String(decoding: data.suffix(tailBytes), as: UTF8.self)
        return data.count > tailBytes ? "…" + text : text
    }
}
