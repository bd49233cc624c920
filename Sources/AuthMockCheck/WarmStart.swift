import AuthMockServer
import Synchronization
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

/// A case's command as a profile's `warm:` process receives it, one JSON line on its standard input.
struct WarmJob: Codable {
    var argv: [String]
    var env: [String: String]
    var cwd: String
    var stdout: String
    var stderr: String
}

/// What the warm process answers, one JSON line each: `{"pid": N}` when the case's child runs, then
/// `{"exit": CODE}` or `{"signal": NUMBER}` when it has ended (not yet reaped: until the next job, the pid
/// and its process group stay the child's).
struct WarmReply: Codable {
    var pid: Int32?
    var exit: Int32?
    var signal: Int32?

    var termination: Spawn.Termination? {
        if let exit { return .exited(exit) }
        if let signal { return .signalled(signal) }
        return nil
    }
}

/// The processes a profile's `warm:` command starts, one per case running at once, each handing out its
/// cases one at a time (clients/warm.py: an interpreter with the library imported, forking a child per
/// case). Only start-up is saved: each case still runs in a process of its own, with its own arguments,
/// environment, directory and output files, judged from its exit as a cold start would be. A warm process
/// that cannot take a case sends the runner back to a cold start, and after the first such failure the pool
/// gives out no more.
final class WarmPool: Sendable {
    let command: [String]
    let environment: [String: String]
    let workingDirectory: String
    /// Where the warm processes' own standard error goes (an import that failed says so there).
    let logDirectory: URL
    private let idle = Mutex<[WarmProcess]>([])
    private let everyProcess = Mutex<[WarmProcess]>([])
    private let disabled = Atomic<Bool>(false)
    /// Numbers the warm processes' log files (two started at once must not share one).
    private let started = Atomic<Int>(0)

    init(command: [String], environment: [String: String], workingDirectory: String, logDirectory: URL) {
        self.command = command
        self.environment = environment
        self.workingDirectory = workingDirectory
        self.logDirectory = logDirectory
        // A warm process that died must be a failed write here, not the end of authmock.
        signal(SIGPIPE, SIG_IGN)
    }

    /// An idle warm process, or a new one; nil when none can be had (then the case starts cold).
    func acquire() -> WarmProcess? {
        guard !disabled.load(ordering: .relaxed) else { return nil }
        if let process = idle.withLock({ $0.popLast() }) { return process }
        guard let program = command.first,
            let path = ClientProcess.resolve(program, environment: environment, directory: workingDirectory)
        else {
            disable()
            return nil
        }
        let index = started.wrappingAdd(1, ordering: .relaxed).oldValue
        let log = logDirectory.appendingPathComponent("warm-\(index).stderr").path
        guard let process = try? WarmProcess.start(
            path, arguments: Array(command.dropFirst()), environment: environment,
            workingDirectory: workingDirectory, stderr: log
        ) else {
            disable()
            return nil
        }
        everyProcess.withLock { $0.append(process) }
        return process
    }

    /// Back to the pool after a case that ended as the protocol says.
    func release(_ process: WarmProcess) {
        idle.withLock { $0.append(process) }
    }

    /// A process that broke the protocol is never used again, nor is the pool.
    func disable() {
        disabled.store(true, ordering: .relaxed)
    }

    /// Ends every warm process: the end of its input ends it; then it is reaped.
    func shutdown() async {
        let processes = everyProcess.withLock { all in
            defer { all.removeAll() }
            return all
        }
        idle.withLock { $0.removeAll() }
        for process in processes {
            process.closeInput()
            _ = await process.spawn.termination()
            process.closeOutput()
        }
    }
}

/// One warm process: its input (jobs) and output (replies), used by one case at a time.
final class WarmProcess: @unchecked Sendable {
    let spawn: Spawn
    private let requests: Int32
    private let replies: Int32
    /// Bytes read past the last reply line (touched only by the one case using the process).
    private var pending: [UInt8] = []

    private init(spawn: Spawn, requests: Int32, replies: Int32) {
        self.spawn = spawn
        self.requests = requests
        self.replies = replies
    }

    static func start(
        _ path: String, arguments: [String], environment: [String: String], workingDirectory: String,
        stderr: String
    ) throws(Spawn.Failure) -> WarmProcess {
        let input = try SpawnPipe()
        let output: SpawnPipe
        do {
            output = try SpawnPipe()
        } catch {
            closeDescriptor(input.readEnd)
            closeDescriptor(input.writeEnd)
            throw error
        }
        defer {
            closeDescriptor(input.readEnd)
            closeDescriptor(output.writeEnd)
        }
        do {
            let spawn = try Spawn.start(
                path, arguments: arguments, environment: environment, workingDirectory: workingDirectory,
                stdin: .descriptor(input.readEnd), stdout: .descriptor(output.writeEnd), stderr: .file(stderr),
                newProcessGroup: true
            )
            return WarmProcess(spawn: spawn, requests: input.writeEnd, replies: output.readEnd)
        } catch {
            closeDescriptor(input.writeEnd)
            closeDescriptor(output.readEnd)
            throw error
        }
    }

    /// Writes the job's line; false when the process is gone.
    func send(_ job: WarmJob) -> Bool {
        guard var line = try? JSONEncoder().encode(job) else { return false }
        line.append(0x0A)
        return line.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(requests, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return false }
                offset += written
            }
            return true
        }
    }

    /// The next reply, blocking the calling thread; nil when the process ended or said something else.
    func readReply() -> WarmReply? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = Data(pending[..<newline])
                pending.removeSubrange(...newline)
                return try? JSONDecoder().decode(WarmReply.self, from: line)
            }
            let count = chunk.withUnsafeMutableBytes { read(replies, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0, pending.count < 65536 else { return nil }
            pending.append(contentsOf: chunk[..<count])
        }
    }


    func closeInput() { closeDescriptor(requests) }
    func closeOutput() { closeDescriptor(replies) }
}

extension ClientProcess {
    /// Runs `job` in a warm process of `pool`: the same deadline, signals and outcome as a cold start, the
    /// signals sent to the child's process group. nil when the pool could not take the case before the
    /// child ran (the caller starts it cold); a warm process that ends while its child runs is an error.
    static func runWarm(
        _ job: WarmJob, pool: WarmPool, timeout: Double, crash: ClientProfile.CrashSignature
    ) async throws(LaunchError) -> Result? {
        guard let process = pool.acquire() else { return nil }
        let start = ContinuousClock.now
        let deadline = start.advanced(by: .milliseconds(Int(timeout * 1000)))
        // The pid comes once the child is forked; a warm process stuck before that (an import, a module's
        // hook) is given until the case's deadline, and the case then starts cold: a warm start that fails
        // costs time, never a verdict.
        guard process.send(job), let pid = await PendingReply(from: process).value(by: deadline)?.pid, pid > 0 else {
            // A child that may have been forked and that the runner cannot signal ends with its warm
            // process (PR_SET_PDEATHSIG), before it starts the case (it waits for the reply to be written).
            process.spawn.signal(SIGKILL)
            pool.disable()
            return nil
        }
        // The child leads its own group; until the reply is read it is not reaped, so the group is its own.
        ProcessLauncher.runningGroups.withLock { _ = $0.insert(pid) }
        let ending = PendingReply(from: process)
        let killed = await watch(signal: { kill(-pid, $0) }, exit: ending.arrived, deadline: deadline)
        let termination = await ending.value(by: nil)?.termination
        ProcessLauncher.runningGroups.withLock { _ = $0.remove(pid) }
        guard let termination else {
            kill(-pid, SIGKILL)
            pool.disable()
            throw .failed(pool.command.joined(separator: " "), "the warm process ended while the client ran")
        }
        pool.release(process)
        let stderrURL = URL(fileURLWithPath: job.stderr)
        let outcome = Self.outcome(of: termination, killed: killed, since: start, crash: crash, stderr: stderrURL)
        return Result(
            outcome: outcome, stdout: tail(of: URL(fileURLWithPath: job.stdout)), stderr: tail(of: stderrURL)
        )
    }
}

/// A warm process's next reply, read on a thread of its own, so that no caller's thread blocks and the
/// caller can keep a deadline.
final class PendingReply: Sendable {
    /// Turns true when the reply has come, or the process ended without one.
    let arrived = WaitQueue<Bool, Bool>(false)
    private let reply = Mutex<WarmReply?>(nil)

    init(from process: WarmProcess) {
        detachThread { [self] in
            let value = process.readReply()
            reply.withLock { $0 = value }
            arrived.update { done, waiters in
                done = true
                waiters.resumeAll(returning: true)
            }
        }
    }

    /// The reply; nil when the process ended without one or none came by `deadline`.
    func value(by deadline: ContinuousClock.Instant?) async -> WarmReply? {
        guard await arrived.wait(until: deadline, timedOut: false, cancelled: false, { $0 ? true : nil }) else {
            return nil
        }
        return reply.withLock { $0 }
    }
}
