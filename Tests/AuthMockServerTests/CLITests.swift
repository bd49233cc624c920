import AuthMockCore
import AuthMockServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The `authmock` binary as users and other projects run it: ready line, ready file, journal file,
/// clean SIGTERM, and exit statuses.
@Suite(.serialized)
struct CLITests {
    /// The binary built next to this test bundle.
    static var binary: String {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [here.appendingPathComponent("authmock").path, repositoryRoot.appendingPathComponent(".build/debug/authmock").path]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// serve on port 0: one JSON line on stdout (also in --ready-file), a banner on stderr, a working
    /// server, and on SIGTERM exit 0 with every exchange in the journal file.
    @Test func serveReadyLineAndCleanShutdown() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let readyFile = directory.appendingPathComponent("ready.json").path
        let journalFile = directory.appendingPathComponent("journal.jsonl").path

        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = [
            "serve", repositoryRoot.appendingPathComponent("scenarios/digest.yaml").path, "--port", "0",
            "--ready-file", readyFile, "--journal", journalFile, "--seed", "1",
        ]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try launch(process)
        defer { if process.isRunning { process.terminate() } }

        // The ready line is the first (and only) line on stdout.
        let line = try await firstLine(of: out)
        let ready = try JSONDecoder().decode(ReadyInfo.self, from: Data(line.utf8))
        #expect(ready.scenario == "digest")
        #expect(ready.port > 0)
        #expect(ready.url == "http://127.0.0.1:\(ready.port)/")
        #expect(ready.users.map(\.name) == ["alice", "bob"])
        #expect(try String(contentsOfFile: readyFile, encoding: .utf8) == line + "\n")

        let ok = try await curl(["--digest", "-u", "alice:wonderland", ready.url])
        #expect(ok.status == 200)
        let wrong = try await curl(["--digest", "-u", "alice:wrong", ready.url])
        #expect(wrong.status == 401)

        let banner = await Self.stopServe(process, stderr: err)
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        #expect(banner.contains("listening  \(ready.url)"))
        #expect(banner.contains("alice / wonderland"))
        #expect(banner.contains("curl --digest -u alice:wonderland \(ready.url)"))

        let lines = try String(contentsOfFile: journalFile, encoding: .utf8).split(separator: "\n")
        let entries = try lines.map { try JSONDecoder().decode(JournalEntry.self, from: Data($0.utf8)) }
        #expect(entries.map(\.verdict) == [.noCredentials, .digestOK, .noCredentials, .digestBadResponse])
        #expect(entries.map(\.seq) == [1, 2, 3, 4])
    }

    /// A Bearer scenario's banner says where the token endpoint is and prints a curl command that gets a
    /// token, and one that uses it; the ready line has the endpoint; the banner's command works as printed.
    @Test func bearerBannerAndReadyLine() async throws {
        let (process, ready, err) = try await Self.startServe([
            repositoryRoot.appendingPathComponent("scenarios/oauth-refresh.yaml").path, "--port", "0",
        ])
        defer { if process.isRunning { process.terminate() } }
        let tokenURL = try #require(ready.oauth?.tokenURL)
        #expect(tokenURL == ready.url + "oauth/token" && ready.oauth?.grants == ["password", "refresh_token"])
        // The banner's command, word for word (none of its words needs the shell's quotes here).
        let issued = try await curl([
            "-s", "-u", "app:app-secret", "-d", "grant_type=password", "-d", "username=alice", "-d", "password=wonderland",
            tokenURL,
        ])
        #expect(issued.status == 200 && issued.body.contains(#""token_type":"Bearer""#))
        let banner = await Self.stopServe(process, stderr: err)
        #expect(banner.contains("token      \(tokenURL)  (grants password, refresh_token)"), "\(banner)")
        #expect(banner.contains(
            "get token  curl -u app:app-secret -d grant_type=password -d username=alice -d password=wonderland \(tokenURL)"
        ), "\(banner)")
        #expect(banner.contains("try        curl -H 'Authorization: Bearer ACCESS_TOKEN' \(ready.url)"), "\(banner)")
    }

    /// An invalid scenario: exit status 2 and file:line:column diagnostics, and nothing is served.
    @Test func invalidScenarioExits2() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let bad = directory.appendingPathComponent("bad.yaml")
        try "version: 1\nname: bad\nusers:\n  - name: alice\n    pasword: x\nchallenges:\n  - scheme: Digest\n    algorithm: SHA-1\n"
            .write(to: bad, atomically: true, encoding: .utf8)
        // A ready file an earlier run left (a restarted container) must not outlive a start that fails.
        let stale = directory.appendingPathComponent("ready.json")
        try "{\"url\":\"http://127.0.0.1:1/\"}\n".write(to: stale, atomically: true, encoding: .utf8)
        let serve = try await run(
            Self.binary, ["serve", bad.path, "--port", "0", "--ready-file", stale.path], timeout: .seconds(10)
        )
        #expect(serve.status == 2)
        #expect(serve.stdout.isEmpty, "no ready line for a scenario that cannot be served")
        #expect(!FileManager.default.fileExists(atPath: stale.path), "the stale ready file is removed first")
        #expect(serve.stderr.contains("\(bad.path):5:5: unknown key 'pasword' in a user — did you mean 'password'?"))
        #expect(serve.stderr.contains("\(bad.path):8:16: unknown Digest algorithm 'SHA-1'"))

        let validate = try await run(Self.binary, ["validate", repositoryRoot.appendingPathComponent("scenarios/basic.yaml").path, bad.path])
        #expect(validate.status == 2)
        #expect(validate.stdout.contains("basic.yaml: ok"))
        #expect(validate.stderr.contains("bad.yaml:5:5"))

        let missing = try await run(Self.binary, ["validate", directory.appendingPathComponent("nope.yaml").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("nope.yaml:1:1: cannot read the file"))
    }

    /// Every shipped scenario validates with the CLI.
    @Test func shippedScenariosValidate() async throws {
        let directory = repositoryRoot.appendingPathComponent("scenarios")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.map { directory.appendingPathComponent($0).path }
        let result = try await run(Self.binary, ["validate"] + files)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.split(separator: "\n").count == files.count)
    }

    /// Reads the ready line of a `serve` process, then returns it with the process (to be stopped).
    static func startServe(_ arguments: [String]) async throws -> (Process, ReadyInfo, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try launch(process)
        let line = try await firstLine(of: out)
        return (process, try JSONDecoder().decode(ReadyInfo.self, from: Data(line.utf8)), err)
    }

    /// Stops a `serve` process with SIGTERM and returns what it wrote to stderr (its banner) once it exited.
    static func stopServe(_ process: Process, stderr: Pipe) async -> String {
        kill(process.processIdentifier, SIGTERM)
        let bytes = await Task.detached { stderr.fileHandleForReading.readDataToEndOfFile() }.value
        process.waitUntilExit()
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A TLS scenario: the ready line carries the files and pins under `tls`, in --certs-dir, and the
    /// banner says how to trust it.
    @Test func serveTLSReadyLine() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let (process, ready, err) = try await Self.startServe([
            repositoryRoot.appendingPathComponent("scenarios/tls-mtls.yaml").path, "--port", "0", "--certs-dir", directory.path,
        ])
        defer { if process.isRunning { process.terminate() } }
        let tls = try #require(ready.tls)
        #expect(ready.url == "https://localhost:\(ready.port)/")
        #expect(tls.caFile == directory.appendingPathComponent("ca.pem").path)
        #expect(tls.curlPin == "sha256//" + tls.pinSHA256)
        #expect(tls.fingerprintSHA256.count == 64)
        let alice = try #require(tls.clientCerts?["alice"])
        let ok = try await curl(["--cacert", tls.caFile, "--cert", alice.certFile, "--key", alice.keyFile, "-u", "alice:wonderland", ready.url])
        #expect(ok.status == 200)
        let banner = await Self.stopServe(process, stderr: err)
        #expect(process.terminationStatus == 0)
        #expect(banner.contains("trust \(tls.caFile)"))
        #expect(banner.contains("pin        \(tls.curlPin)"))
        // A --certs-dir given by the user is kept.
        #expect(FileManager.default.fileExists(atPath: tls.caFile))
    }

    /// `authmock certs` writes an identity without serving; `serve --cert/--key/--ca` serves it.
    @Test func certsThenBringYourOwn() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let generated = try await run(Self.binary, ["certs", "--out", directory.path, "--kind", "ca-signed", "--intermediate", "--client", "bob"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let info = try JSONDecoder().decode(TLSInfo.self, from: Data(generated.stdout.utf8))
        #expect(info.identity == "ca-signed")
        #expect(info.clientCerts?["bob"] != nil)
        for file in ["ca.pem", "chain.pem", "leaf.pem", "key.pem", "client-ca.pem"] {
            #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent(file).path), "\(file)")
        }

        let (process, ready, _) = try await Self.startServe([
            repositoryRoot.appendingPathComponent("scenarios/basic.yaml").path, "--port", "0",
            "--cert", info.chainFile, "--key", info.keyFile, "--ca", info.caFile,
        ])
        defer { if process.isRunning { process.terminate() } }
        let tls = try #require(ready.tls)
        #expect(tls.identity == nil)
        #expect(tls.pinSHA256 == info.pinSHA256)
        let ok = try await curl(["--cacert", info.caFile, "--pinnedpubkey", info.curlPin, "-u", "alice:wonderland", ready.url])
        #expect(ok.status == 200)
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)

        let mismatched = try await run(Self.binary, [
            "serve", repositoryRoot.appendingPathComponent("scenarios/basic.yaml").path, "--port", "0", "--cert", info.chainFile,
            "--key", try #require(info.clientCerts?["bob"]).keyFile,
        ], timeout: .seconds(10))
        #expect(mismatched.status == 2)
        #expect(mismatched.stderr.contains("does not belong"))
    }

    /// A port already in use is a clear failure with exit status 1, not a crash.
    @Test func portInUse() async throws {
        try await withServer(try shipped("basic.yaml")) { server in
            let result = try await run(Self.binary, ["serve", repositoryRoot.appendingPathComponent("scenarios/basic.yaml").path, "--port", String(server.port)], timeout: .seconds(10))
            #expect(result.status == 1)
            #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(server.port)"))
        }
    }
}
