import ArgumentParser
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

/// `authmock`: the root command. Each subcommand is a nested type in an extension, in its own file
/// (`Serve.swift`, `Check.swift`, …).
@main
struct AuthMockCommand: AsyncParsableCommand {
    static let version = "0.1.0"

    // Every command names itself (here and in each subcommand): ArgumentParser otherwise derives the name
    // with `String(describing:)`, whose dynamic casts scan every protocol conformance in the binary while
    // the cache is cold, a sixth of the CPU time of `authmock --version`.
    static let configuration = CommandConfiguration(
        commandName: "authmock",
        abstract: """
            Play scripted HTTP authentication scenarios and judge the clients that meet them: Basic, Digest, \
            NTLM and Negotiate, as an origin (401) or a forward proxy (407, CONNECT), over HTTP or HTTPS with \
            broken or pinned certificates, with passwords that change and faults on the wire. Every exchange is \
            journaled with a verdict; `authmock check` runs any client against the conformance suite.
            """,
        version: version,
        subcommands: [Serve.self, Validate.self, Certs.self, Check.self, Matrix.self]
    )

    /// ArgumentParser's own entry point, except that usage errors exit 2 (as every authmock command
    /// documents) instead of EX_USAGE (64).
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            printError(fullMessage(for: error))
            #if canImport(Glibc)
            Glibc.exit(2)
            #else
            Darwin.exit(2)
            #endif
        }
    }
}

/// Exit status for a scenario file that cannot be used (distinct from 1, a failure while running).
let exitInvalidScenario = ExitCode(2)
