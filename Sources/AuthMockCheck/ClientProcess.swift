import AuthMockCore
import AuthMockServer
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
        timeout: Double, crash: ClientProfile.CrashSignature = .init(), stdin: String? = nil, warm: WarmPool? = nil
    ) async throws(LaunchError) -> Result {
        let workingDirectory = workingDirectory ?? FileManager.default.currentDirectoryPath
        guard let program = arguments.first,
            let path = resolve(program, environment: environment, directory: workingDirectory)
        else {
            throw .notFound(arguments.first ?? "")
        }
        let stdoutURL = directory.appendingPathComponent("stdout")
        let stderrURL = directory.appendingPathComponent("stderr")
        // A warm start has no pipe to hand over: a case whose body comes on stdin starts cold; and so does a
        // command whose program is not the warm process's own (another interpreter, a shell).
        if let warm, stdin == nil, program == warm.command.first {
            let job = WarmJob(
                argv: arguments, env: environment, cwd: workingDirectory, stdout: stdoutURL.path,
                stderr: stderrURL.path
            )
            if let result = try await runWarm(job, pool: warm, timeout: timeout, crash: crash) { return result }
        }
        let feeder: Feeder?
        do {
            feeder = try stdin.map(Feeder.init)
        } catch {
            throw .failed("cat", "\(error)")
        }
        defer { feeder?.finish() }
        let start = ContinuousClock.now
        let client: Spawn
        do {
            // A process group of its own: a timeout ends the client and whatever it started.
            client = try Spawn.start(
                path, arguments: Array(arguments.dropFirst()), environment: environment,
                workingDirectory: workingDirectory, stdin: feeder.map { .descriptor($0.readEnd) } ?? .null,
                stdout: .file(stdoutURL.path), stderr: .file(stderrURL.path), newProcessGroup: true
            )
        } catch {
            // The pipe's reading end was the client's to close; without a client it is ours.
            feeder?.closeReadEnd()
            throw .failed(program, "\(error)")
        }
        // Only the client reads: when it is gone, cat's pipe breaks.
        feeder?.closeReadEnd()
        // The exit is reported by a thread that waits for it, so the runner learns of it at once instead of
        // at the next tick of a poll; the deadline is the wait's own.
        let exit = WaitQueue<Bool, Bool>(false)
        client.notifyExit {
            exit.update { ended, waiters in
                ended = true
                waiters.resumeAll(returning: true)
            }
        }
        let deadline = start.advanced(by: .milliseconds(Int(timeout * 1000)))
        let killed = await watch(signal: client.signal, exit: exit, deadline: deadline)
        let termination = await client.termination()
        let outcome = Self.outcome(of: termination, killed: killed, since: start, crash: crash, stderr: stderrURL)
        return Result(outcome: outcome, stdout: tail(of: stdoutURL), stderr: tail(of: stderrURL))
    }

    /// How the ended `process` ended: its status or signal, how long it ran, and crash evidence from stderr.
    static func outcome(
        of termination: Spawn.Termination, killed: Bool, since start: ContinuousClock.Instant,
        crash: ClientProfile.CrashSignature, stderr stderrURL: URL
    ) -> ClientOutcome {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var status: Int32?, signal: Int32?
        switch termination {
        case .exited(let code): status = killed ? nil : code
        case .signalled(let number): signal = killed ? nil : number
        }
        let signaled = signal != nil
        var outcome = ClientOutcome(
            exitStatus: status, timedOut: killed, signal: signal,
            seconds: (seconds * 1000).rounded() / 1000
        )
        // The whole of stderr, not its tail: a traceback's first line can be far from its end.
        if !killed, !signaled, !crash.isEmpty {
            let text = (try? Data(contentsOf: stderrURL)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            outcome.crash = crash.evidence(exitStatus: status, stderr: text)
        }
        return outcome
    }

    /// Waits for the exit of a client (`exit`'s state turns true) until `deadline`; then sends its process
    /// group SIGTERM (`signal`), and SIGKILL when it has exited or a second later. Returns whether it was
    /// signalled. The client is not reaped before this returns, so its pid and group are still its own. A
    /// cancelled run stops waiting and signals nothing.
    static func watch(
        signal: (Int32) -> Void, exit: WaitQueue<Bool, Bool>, deadline: ContinuousClock.Instant
    ) async -> Bool {
        func exited(by deadline: ContinuousClock.Instant?) async -> Bool {
            await exit.wait(until: deadline, timedOut: false, cancelled: true) { $0 ? true : nil }
        }
        guard await !exited(by: deadline) else { return false }
        signal(SIGTERM)
        _ = await exited(by: ContinuousClock.now + .seconds(1))
        // Whatever of its group is left (the client itself, if SIGTERM did not end it; a child it started).
        signal(SIGKILL)
        _ = await exited(by: nil)
        return true
    }

    static func tail(of url: URL) -> String {
        guard let data = try? Data(contentsOf: url) else { return "" }
        let text = String(decoding: data.suffix(tailBytes), as: UTF8.self)
        return data.count > tailBytes ? "…" + text : text
    }
}

/// `cat FILE` writing into a pipe, whose reading end becomes the client's standard input: a stream, not a
/// file the client could seek back in. A second process, so that a client that stops reading breaks
/// `cat`'s pipe, not authmock's.
struct Feeder {
    let cat: Spawn
    let readEnd: Int32

    init(_ file: String) throws(Spawn.Failure) {
        let pipe = try SpawnPipe()
        do {
            cat = try Spawn.start(
                "/bin/cat", arguments: [file], environment: [:], stdout: .descriptor(pipe.writeEnd)
            )
        } catch {
            closeDescriptor(pipe.readEnd)
            closeDescriptor(pipe.writeEnd)
            throw error
        }
        // Only cat writes: the client sees the end of its input when cat is done.
        closeDescriptor(pipe.writeEnd)
        readEnd = pipe.readEnd
    }

    func closeReadEnd() { closeDescriptor(readEnd) }

    /// The feeder ends when the client has read everything or is gone (a broken pipe); make sure.
    func finish() {
        cat.signal(SIGTERM)
        _ = cat.reap()
    }
}
