import ArgumentParser
import AuthMockCertificates
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
import Dispatch
import Logging

extension AuthMockCommand {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve a scenario until SIGINT or SIGTERM.",
            discussion: """
                Prints a banner to stderr and, once connections are accepted, exactly one JSON line to stdout:
                {"url":"http://127.0.0.1:8080/","port":8080,"scenario":"digest","users":[…],"journal":"…",
                "control_token":"…"}. Off loopback (--host 0.0.0.0) every /_authmock/ request needs
                Authorization: Bearer <control_token>; POSTs to it need Content-Type: application/json.
                On SIGINT/SIGTERM it stops accepting, finishes in-flight responses, flushes the journal and exits 0.
                """
        )

        @Argument(help: "The scenario file (YAML).", completion: .file(extensions: ["yaml", "yml"]))
        var scenario: String

        @Option(help: "Address to bind.")
        var host = "127.0.0.1"

        @Option(help: "Port to listen on; 0 picks a free port.")
        var port = 8080

        @Option(help: ArgumentHelp("Also write the ready JSON to this file, atomically.", valueName: "path"))
        var readyFile: String?

        @Option(
            help: ArgumentHelp(
                "Append every exchange to this file as JSON lines (truncated at start).", valueName: "path"
            )
        )
        var journal: String?

        @Option(help: ArgumentHelp("Seed for nonces and opaques, to make a run repeatable.", valueName: "n"))
        var seed: UInt64?

        @Option(help: "trace, debug, info, notice, warning, error or critical (to stderr).")
        var logLevel: Logger.Level = .warning

        @Option(help: ArgumentHelp("Largest header field accepted, in bytes; larger gets 431.", valueName: "bytes"))
        var maxHeaderSize = 8 * 1024

        @Option(help: ArgumentHelp("Journal entries kept in memory for GET /_authmock/journal.", valueName: "n"))
        var journalLimit = 10_000

        @Option(
            help: ArgumentHelp(
                "Seconds a request head may take once its first byte arrived; slower gets 408.", valueName: "seconds"
            )
        )
        var headerTimeout = 10.0

        @Option(
            help: ArgumentHelp(
                "Seconds a connection may stay silent while a request or body is awaited (also bounds TLS handshakes).",
                valueName: "seconds"
            )
        )
        var idleTimeout = 60.0

        @Option(help: ArgumentHelp("Open connections at most; more are closed at once and journaled.", valueName: "n"))
        var maxConnections = 4096

        @Option(
            help: ArgumentHelp(
                "Write ca.pem, chain.pem, leaf.pem, key.pem and client certificates here "
                    + "(default: a temporary directory removed on exit).",
                valueName: "dir"
            )
        )
        var certsDir: String?

        @Option(
            help: ArgumentHelp(
                "Serve HTTPS with this certificate chain (PEM, leaf first) instead of a generated one.",
                valueName: "pem"
            )
        )
        var cert: String?

        @Option(help: ArgumentHelp("The private key (PEM) for --cert.", valueName: "pem"))
        var key: String?

        @Option(
            help: ArgumentHelp(
                "The CA (PEM) clients should trust, written as ca.pem (default: the last certificate of --cert).",
                valueName: "pem"
            )
        )
        var ca: String?

        @Option(
            help: ArgumentHelp(
                "Port of the forward proxy of a scenario with a proxy: section (0: free).", valueName: "port"
            )
        )
        var proxyPort = 0

        @Option(
            help: ArgumentHelp(
                "Port of the SOCKS5 listener of a scenario with a socks5: section (0: free).", valueName: "port"
            )
        )
        var socksPort = 0

        @Option(
            help: ArgumentHelp(
                "Port of the extra plain-HTTP listener of a TLS scenario with plain-http: true (0: free).",
                valueName: "port"
            )
        )
        var httpPort = 0

        @Option(
            help: ArgumentHelp(
                "The control plane's token (Authorization: Bearer T on /_authmock/ requests; required off "
                    + "loopback). Default: $AUTHMOCK_CONTROL_TOKEN, else a new one per run, in the ready line.",
                valueName: "token"
            )
        )
        var controlToken: String?

        @Option(
            help: ArgumentHelp(
                "Another name control requests may use in Host, e.g. authmock (a container's service name) or "
                    + "localhost:9000 (a port mapping); repeatable.",
                valueName: "name"
            )
        )
        var controlHost: [String] = []

        /// --control-token, else the environment's AUTHMOCK_CONTROL_TOKEN (kept out of `ps`), else nil.
        var chosenControlToken: String? {
            let environment = ProcessInfo.processInfo.environment["AUTHMOCK_CONTROL_TOKEN"]
            return controlToken ?? environment.flatMap { $0.isEmpty ? nil : $0 }
        }

        func validate() throws {
            if let token = chosenControlToken, !ControlGuard.isValidToken(token) {
                throw ValidationError(
                    "the control token must be letters, digits and -._~+/ (then = padding), as a Bearer token is"
                )
            }
            for name in controlHost where name.isEmpty || name.contains(where: { $0 == " " || $0 == "/" }) {
                throw ValidationError("--control-host takes a name or name:port, not '\(name)'")
            }
            guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535") }
            guard maxHeaderSize >= 256 else { throw ValidationError("--max-header-size must be at least 256") }
            guard journalLimit >= 1 else { throw ValidationError("--journal-limit must be at least 1") }
            guard headerTimeout > 0, headerTimeout <= 86_400 else {
                throw ValidationError("--header-timeout must be from 0 to 86400 seconds (not 0)")
            }
            guard idleTimeout > 0, idleTimeout <= 86_400 else {
                throw ValidationError("--idle-timeout must be from 0 to 86400 seconds (not 0)")
            }
            guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") }
            guard (cert == nil) == (key == nil) else { throw ValidationError("--cert and --key go together") }
            guard ca == nil || cert != nil else { throw ValidationError("--ca needs --cert and --key") }
        }

        func run() async throws {
            // First of all, so that a SIGTERM sent while the scenario loads still ends in a clean exit 0.
            let signals = TerminationSignals()
            // A ready file an earlier run left (a restarted container) would tell a health check the server
            // is up before this one listens.
            if let readyFile { try? FileManager.default.removeItem(atPath: readyFile) }
            guard let scenario = ScenarioFiles.load(self.scenario) else { throw exitInvalidScenario }
            let level = logLevel
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
            let identity = try loadIdentity()
            let server = AuthMockServer(
                scenario: scenario, configuration: serverConfiguration(identity: identity),
                logger: Logger(label: "authmock")
            )
            do {
                try await server.start()
            } catch {
                printError("authmock: cannot listen on \(host):\(port): \(error)")
                throw ExitCode.failure
            }

            let ready = ReadyInfo(server: server)
            printError(
                Banner(
                    scenario: scenario, ready: ready, bound: server.boundAddresses, loopbackOnly: server.isLoopbackOnly,
                    reach: server.wildcardAddresses
                ).text
            )
            if let readyFile {
                do {
                    try Data((ready.jsonLine() + "\n").utf8).write(
                        to: URL(fileURLWithPath: readyFile), options: .atomic
                    )
                } catch {
                    printError("authmock: cannot write the ready file \(readyFile): \(error)")
                    try await server.shutdown()
                    throw ExitCode.failure
                }
            }
            printOut(ready.jsonLine())

            let signal = await signals.wait()
            printError("authmock: \(signal), shutting down")
            try await server.shutdown()
        }

        /// The certificate of `--cert`/`--key` (and `--ca`), or nil for a generated identity.
        private func loadIdentity() throws -> TLSIdentity? {
            guard let cert, let key else { return nil }
            do {
                return try TLSIdentity.load(
                    chainPEM: String(contentsOfFile: cert, encoding: .utf8),
                    privateKeyPEM: String(contentsOfFile: key, encoding: .utf8),
                    trustPEM: try ca.map { try String(contentsOfFile: $0, encoding: .utf8) }
                )
            } catch {
                printError("authmock: cannot use --cert \(cert) and --key \(key): \(error)")
                throw exitInvalidScenario
            }
        }

        /// The server's configuration, from the options.
        private func serverConfiguration(identity: TLSIdentity?) -> ServerConfiguration {
            var configuration = ServerConfiguration(
                host: host, port: port, maxHeaderFieldSize: maxHeaderSize,
                maxHeaderListSize: max(maxHeaderSize, 64 * 1024), journalCapacity: journalLimit,
                headerTimeout: .milliseconds(Int64(headerTimeout * 1000)),
                idleTimeout: .milliseconds(Int64(idleTimeout * 1000)), maxConnections: maxConnections, seed: seed,
                journalPath: journal, tlsIdentity: identity, certificatesDirectory: certsDir, plainHTTPPort: httpPort,
                proxyPort: proxyPort
            )
            configuration.socksPort = socksPort
            configuration.controlToken = chosenControlToken
            configuration.controlHosts = controlHost
            return configuration
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// SIGINT and SIGTERM, delivered once as an async event instead of killing the process.
final class TerminationSignals: @unchecked Sendable {
    // Sources must stay alive for as long as the handlers should fire; guarded by the main queue.
    private var sources: [any DispatchSourceSignal] = []
    private let stream: AsyncStream<String>
    private let continuation: AsyncStream<String>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: String.self)
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [continuation] in continuation.yield(name) }
            source.resume()
            sources.append(source)
        }
    }

    func wait() async -> String {
        for await name in stream { return name }
        return "end"
    }
}
