import ArgumentParser

/// `authmock`: play scripted authentication scenarios over HTTP.
@main
struct AuthMock: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "authmock",
        abstract: "Play scripted HTTP authentication scenarios (Basic, Digest, over HTTP or HTTPS) and journal every exchange.",
        version: version,
        subcommands: [Serve.self, Validate.self, Certs.self, Check.self, Matrix.self]
    )
}

/// Exit status for a scenario file that cannot be used (distinct from 1, a failure while running).
let exitInvalidScenario = ExitCode(2)
