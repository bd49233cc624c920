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

/// How one client run ended, as the runner saw it.
public struct ClientOutcome: Sendable, Equatable, Codable {
    /// The exit status; nil when the client was killed or never started.
    public var exitStatus: Int32?
    /// The client did not finish within the case's timeout and was killed.
    public var timedOut: Bool
    /// The signal that ended the client, when it died of one the runner did not send (a crash, an abort).
    public var signal: Int32?
    /// Seconds from start to exit (or to the kill).
    public var seconds: Double
    /// What says the client crashed although it exited (an exit status or a stderr line its profile
    /// declares: ``ClientProfile/CrashSignature``); nil when nothing does.
    public var crash: String?

    public init(
        exitStatus: Int32?, timedOut: Bool = false, signal: Int32? = nil, seconds: Double = 0, crash: String? = nil
    ) {
        self.exitStatus = exitStatus
        self.timedOut = timedOut
        self.signal = signal
        self.seconds = seconds
        self.crash = crash
    }

    enum CodingKeys: String, CodingKey {
        case exitStatus = "exit_status"
        case timedOut = "timed_out"
        case signal
        case seconds
        case crash
    }

    /// `signal 11 (SIGSEGV)`.
    static func describe(signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGILL: "SIGILL", SIGKILL: "SIGKILL",
            SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM", SIGTRAP: "SIGTRAP", SIGPIPE: "SIGPIPE", SIGINT: "SIGINT",
            SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT", SIGSYS: "SIGSYS", SIGXCPU: "SIGXCPU",
        ]
        return "signal \(signal)" + (names[signal].map { " (\($0))" } ?? "")
    }
}
