#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Synchronization

/// Starts processes one at a time. Foundation's `Process.run()` on Linux lists the open descriptors to close
/// them in the child and races with descriptors opened or closed on other threads (EBADF), and a pipe made
/// here is inheritable until it is marked close-on-exec; so everything in this process that launches — the
/// runner's `Spawn`, and tests that still use Foundation's `Process` — goes through this one lock.
public enum ProcessLauncher {
    private static let lock = Mutex(())

    public static func withLaunchLock<T>(_ body: () throws -> T) rethrows -> T {
        try lock.withLock { _ in try body() }
    }

    /// The process groups of clients started and not yet reaped. Clients lead groups of their own, out of
    /// reach of the terminal's Ctrl-C, so authmock passes such a signal on to them (`endClientsOnTermination`).
    static let runningGroups = Mutex(Set<pid_t>())

    /// From now on SIGINT and SIGTERM first reach every running client's process group, then end authmock as
    /// they would have. Keep the returned value alive for as long as that should hold.
    public static func endClientsOnTermination() -> some Sendable {
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                runningGroups.withLock { groups in
                    for group in groups { kill(-group, number) }
                }
                signal(number, SIG_DFL)
                // To the process, not this thread: Dispatch's threads block signals.
                kill(getpid(), number)
            }
            source.resume()
            return source
        }
        return SignalSources(sources: sources)
    }

    private struct SignalSources: @unchecked Sendable {
        let sources: [any DispatchSourceSignal]
    }
}

/// A program started with `posix_spawn`, without a shell: no Foundation `Process` (which needs all of
/// Foundation, and with it ICU). How it ended is learnt from a thread of its own that waits for it, so no
/// event loop is blocked and nothing polls.
struct Spawn: Sendable {
    /// Where a standard stream of the child comes from or goes to.
    enum Stream: Sendable {
        /// /dev/null.
        case null
        /// A file opened for the child: read for stdin; created or truncated for stdout and stderr.
        case file(String)
        /// A descriptor of this process, duplicated into the child (e.g. one end of a pipe).
        case descriptor(Int32)
    }

    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32
        var description: String { "\(call): \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// How a child ended.
    enum Termination: Equatable, Sendable {
        case exited(Int32)
        case signalled(Int32)

        init(waitStatus status: Int32) {
            // The encoding of wait(2) statuses on Linux and the BSDs (WIFEXITED and friends are macros).
            let signal = status & 0x7f
            self = signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
        }
    }

    let pid: pid_t
    /// Whether the child leads a process group of its own (`signalGroup` reaches its descendants).
    let ownGroup: Bool

    /// Starts `path` with `arguments` (argv[1...]; argv[0] is `path`) and exactly `environment`.
    /// - Parameters:
    ///   - workingDirectory: where the child starts; nil: this process's own.
    ///   - newProcessGroup: the child leads a new process group, so that a timeout can end it and everything
    ///     it started (a wrapper script's interpreter, a JVM's helpers).
    /// Signal dispositions and the signal mask are reset to the defaults in the child: this process ignores
    /// SIGPIPE (NIO) and, when serving, SIGINT and SIGTERM, which a child would otherwise inherit.
    static func start(
        _ path: String, arguments: [String], environment: [String: String], workingDirectory: String? = nil,
        stdin: Stream = .null, stdout: Stream = .null, stderr: Stream = .null, newProcessGroup: Bool = false
    ) throws(Failure) -> Spawn {
        var actions = SpawnActions()
        defer { actions.destroy() }
        try actions.set(0, stdin, readOnly: true)
        try actions.set(1, stdout, readOnly: false)
        try actions.set(2, stderr, readOnly: false)
        if let workingDirectory { try actions.changeDirectory(workingDirectory) }
        var attributes = SpawnAttributes(newProcessGroup: newProcessGroup)
        defer { attributes.destroy() }
        let argv = CStrings([path] + arguments)
        let envp = CStrings(environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" })
        defer {
            argv.release()
            envp.release()
        }
        var pid: pid_t = 0
        let code = ProcessLauncher.withLaunchLock {
            posix_spawn(&pid, path, &actions.value, &attributes.value, argv.pointers, envp.pointers)
        }
        guard code == 0 else { throw Failure(call: "posix_spawn", code: code) }
        if newProcessGroup { ProcessLauncher.runningGroups.withLock { _ = $0.insert(pid) } }
        return Spawn(pid: pid, ownGroup: newProcessGroup)
    }

    /// Calls `onExit` on a thread of its own once the child has ended, without reaping it: until `reap()`,
    /// its pid (and process group) cannot be reused, so a signal sent meanwhile reaches no stranger.
    func notifyExit(_ onExit: @escaping @Sendable () -> Void) {
        let pid = pid
        detachThread {
            var info = siginfo_t()
            while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
            onExit()
        }
    }

    /// Waits for the child to end (blocking the calling thread) and releases its pid.
    func reap() -> Termination {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        // Out of the running groups and reaped at once, so a Ctrl-C never signals a pid that is free again.
        return ProcessLauncher.runningGroups.withLock { groups in
            groups.remove(pid)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) == -1 {
                if errno != EINTR { return .exited(-1) }
            }
            return Termination(waitStatus: status)
        }
    }

    /// Waits for the end without blocking a caller's thread: the blocking wait runs on a thread of its own.
    func termination() async -> Termination {
        await withCheckedContinuation { continuation in
            let spawn = self
            detachThread { continuation.resume(returning: spawn.reap()) }
        }
    }

    /// Sends `signal` to the child, and to its whole process group if it leads one. Only before `reap()`.
    func signal(_ signal: Int32) {
        kill(ownGroup ? -pid : pid, signal)
    }
}

/// Runs `body` on a new detached thread (Foundation's `Thread` is not in FoundationEssentials).
func detachThread(_ body: @escaping @Sendable () -> Void) {
    final class Box {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let argument = Unmanaged.passRetained(Box(body)).toOpaque()
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let created = pthread_create(&thread, nil, { argument in
        #if canImport(Glibc)
        let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
        #else
        let box = Unmanaged<Box>.fromOpaque(argument).takeRetainedValue()
        #endif
        box.body()
        return nil
    }, argument)
    guard created == 0 else {
        // No thread to be had: run it here rather than never.
        Unmanaged<Box>.fromOpaque(argument).takeRetainedValue().body()
        return
    }
    #if canImport(Glibc)
    pthread_detach(thread)
    #else
    if let thread { pthread_detach(thread) }
    #endif
}
