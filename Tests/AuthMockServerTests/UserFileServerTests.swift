import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// User files made by Apache's real tools (apache2-utils: `htpasswd`, `htdigest`), served to curl.
@Suite(.serialized)
struct UserFileServerTests {
    static let htpasswd = "/usr/bin/htpasswd"
    static let htdigest = "/usr/bin/htdigest"

    /// A fresh directory for one test's files, removed afterwards.
    static func withDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-users-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    static func requireApacheTools() throws {
        try #require(
            FileManager.default.isExecutableFile(atPath: htpasswd) && FileManager.default.isExecutableFile(atPath: htdigest),
            "htpasswd and htdigest are needed for these tests (apt-get install apache2-utils)"
        )
    }

    /// Every hash htpasswd can make, one user each: right passwords get 200, wrong ones 401.
    @Test func everyHtpasswdFormatAuthenticatesCurl() async throws {
        try Self.requireApacheTools()
        let formats: [(flag: String, user: String)] = [("-m", "apr1"), ("-B", "bcrypt"), ("-5", "sha512"), ("-2", "sha256"), ("-s", "sha1"), ("-d", "des")]
        try await Self.withDirectory { directory in
            let file = directory.appendingPathComponent("users.htpasswd").path
            for (index, format) in formats.enumerated() {
                // -c creates the file with the first user; -b takes the password from the command line.
                let flags = (index == 0 ? "-cb" : "-b") + String(format.flag.dropFirst())
                let made = try await run(Self.htpasswd, [flags, file, format.user, "pw-\(format.user)"])
                try #require(made.status == 0, "htpasswd \(flags): \(made.stderr)")
            }
            let scenarioFile = directory.appendingPathComponent("scenario.yaml")
            try "version: 1\nname: htpasswd\nusers: {htpasswd: users.htpasswd}\nchallenges: [{scheme: Basic}]\n"
                .write(to: scenarioFile, atomically: true, encoding: .utf8)
            let scenario = try ScenarioLoader.load(file: scenarioFile.path, files: .fileSystem)
            #expect(scenario.users.map { $0.stored?.scheme } == ["apr1", "bcrypt", "sha512-crypt", "sha256-crypt", "sha1", "des-crypt"])

            try await withServer(scenario) { server in
                for format in formats {
                    let right = try await curl(["-u", "\(format.user):pw-\(format.user)", server.url])
                    #expect(right.status == 200, "\(format.user): \(right.body)")
                    let wrong = try await curl(["-u", "\(format.user):pw-wrong", server.url])
                    #expect(wrong.status == 401, "\(format.user)")
                }
                let verdicts = server.journal.map(\.verdict)
                #expect(verdicts == Array(repeating: [Verdict.basicOK, .basicBadPassword], count: formats.count).flatMap { $0 })
            }
        }
    }

    /// An htdigest file serves Digest MD5 (its HA1 is used as is) and Basic.
    @Test func anHtdigestFileAuthenticatesCurlWithDigestAndBasic() async throws {
        try Self.requireApacheTools()
        try await Self.withDirectory { directory in
            let file = directory.appendingPathComponent("users.htdigest").path
            for (index, user) in ["alice", "bob"].enumerated() {
                let made = try await Self.runHtdigest(create: index == 0, file: file, realm: "the realm", user: user, password: "secret-\(user)")
                try #require(made.status == 0, "htdigest: \(made.stderr)")
            }
            let scenarioFile = directory.appendingPathComponent("scenario.yaml")
            try "version: 1\nname: htdigest\nrealm: the realm\nusers: {htdigest: users.htdigest}\nchallenges: [{scheme: Digest, algorithm: MD5}]\n"
                .write(to: scenarioFile, atomically: true, encoding: .utf8)
            let scenario = try ScenarioLoader.load(file: scenarioFile.path, files: .fileSystem)
            #expect(scenario.users.map(\.name) == ["alice", "bob"])

            try await withServer(scenario) { server in
                let right = try await curl(["--digest", "-u", "bob:secret-bob", server.url])
                #expect(right.status == 200)
                #expect(right.body == "Hello, bob!\n")
                let wrong = try await curl(["--digest", "-u", "bob:secret-alice", server.url])
                #expect(wrong.status == 401)
                #expect(server.journal.map(\.verdict) == [.noCredentials, .digestOK, .noCredentials, .digestBadResponse])
            }
        }
    }

    /// A bcrypt check (here cost 13, about half a second) runs off the event loop and outside the engine's
    /// lock: a request on another connection is answered while it runs, not after.
    @Test func aSlowHashDoesNotHoldUpOtherConnections() async throws {
        try Self.requireApacheTools()
        try await Self.withDirectory { directory in
            let file = directory.appendingPathComponent("users.htpasswd").path
            let made = try await run(Self.htpasswd, ["-cbB", "-C", "13", file, "slow", "pw-slow"])
            try #require(made.status == 0, "htpasswd: \(made.stderr)")
            let scenarioFile = directory.appendingPathComponent("scenario.yaml")
            try "version: 1\nname: slow\nusers: {htpasswd: users.htpasswd}\nchallenges: [{scheme: Basic}]\nresources: [{path: /, protected: true}, {path: /public, protected: false}]\n"
                .write(to: scenarioFile, atomically: true, encoding: .utf8)
            try await withServer(try ScenarioLoader.load(file: scenarioFile.path, files: .fileSystem)) { server in
                // A first exchange on the slow connection: it is admitted, and the server's first request (a
                // few ms of set-up) is over, so that the slow request is read before the quick one arrives.
                let slowConnection = try RawConnection(port: server.port, receiveTimeout: .seconds(30))
                try slowConnection.send("GET /public HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(slowConnection.readResponse()?.head.hasPrefix("HTTP/1.1 200 ") == true)
                // The slow request, then the quick exchange with no await between (a loaded machine's busy
                // cooperative pool could resume the test after the check is over); the slow answer is read last,
                // and may take long under load.
                let credentials = Data("slow:pw-slow".utf8).base64EncodedString()
                try slowConnection.send("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic \(credentials)\r\nConnection: close\r\n\r\n")
                // 50 ms for the server to read it and start the check (about 0.5 s of CPU): a blocking pause, so
                // that nothing but the machine's scheduler stands between it and the quick exchange.
                usleep(50_000)
                let quick = try rawExchange(port: server.port, Array("GET /public HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
                #expect(quick.hasPrefix("HTTP/1.1 200 "))
                let slow = slowConnection.readToEnd()
                #expect(slow.hasPrefix("HTTP/1.1 200 "))
                // The public request was decided while the bcrypt check still ran: it is before it in the journal.
                #expect(server.journal.map(\.verdict) == [.publicResource, .publicResource, .basicOK])
            }
        }
    }

    /// `authmock validate` points at the broken line of the user file, and `serve` refuses to start.
    @Test func aMalformedUserFileLineIsAFileLineError() async throws {
        try await Self.withDirectory { directory in
            try "alice:$apr1$b0oib4by$lRuYg91ZWqNrURGvOUADU.\nbob:builder\n".write(
                to: directory.appendingPathComponent("users.htpasswd"), atomically: true, encoding: .utf8
            )
            let scenarioFile = directory.appendingPathComponent("scenario.yaml")
            try "version: 1\nname: broken-users\nusers: {htpasswd: users.htpasswd}\nchallenges: [{scheme: Basic}]\n"
                .write(to: scenarioFile, atomically: true, encoding: .utf8)
            let validate = try await run(CLITests.binary, ["validate", scenarioFile.path])
            #expect(validate.status == 2)
            let userFile = directory.appendingPathComponent("users.htpasswd").path
            #expect(validate.stderr.contains("\(userFile):2:5: 'builder' is not a password hash htpasswd writes — make it with htpasswd"))
            let serve = try await run(CLITests.binary, ["serve", scenarioFile.path, "--port", "0"])
            #expect(serve.status == 2)
            #expect(serve.stdout.isEmpty)
        }
    }

    /// htdigest has no batch mode: it reads the password twice from the terminal, or stdin without one.
    static func runHtdigest(create: Bool, file: String, realm: String, user: String, password: String) async throws -> ProcessResult {
        try await run(htdigest, (create ? ["-c"] : []) + [file, realm, user], input: Data("\(password)\n\(password)\n".utf8))
    }
}
