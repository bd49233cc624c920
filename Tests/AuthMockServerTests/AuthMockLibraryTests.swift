import AuthMock
import Foundation
import Testing

/// The fixture library's own contract: what a test that embeds authmock relies on. (Here, beside the
/// server's tests, for their raw-socket client.)
@Suite struct AuthMockLibraryTests {
    static let basic = """
        version: 1
        name: fixture-basic
        users:
          - name: alice
            password: wonderland
        challenges:
          - scheme: Basic
        """

    /// One plain-HTTP request with a preset `Authorization` (or none); returns the status.
    ///
    /// A raw socket rather than URLSession: FoundationNetworking's URLSession without a delegate stalls
    /// on a 401 with a challenge, and these tests are about the fixture, not about a client.
    static func get(_ url: URL, user: String? = nil, password: String? = nil) async throws -> Int {
        var head = "GET \(url.path.isEmpty ? "/" : url.path)\(url.query.map { "?" + $0 } ?? "") HTTP/1.1\r\n"
        head += "Host: \(url.host!):\(url.port!)\r\nConnection: close\r\n"
        if let user, let password {
            head += "Authorization: Basic " + Data("\(user):\(password)".utf8).base64EncodedString() + "\r\n"
        }
        let request = Array((head + "\r\n").utf8)
        let port = url.port!
        let response = try await Task.detached { try rawExchange(port: port, request) }.value
        let words = response.prefix { $0 != "\r" }.split(separator: " ")
        guard words.count >= 2, words[0].hasPrefix("HTTP/1."), let status = Int(words[1]) else {
            throw POSIXError(.EBADMSG)
        }
        return status
    }

    /// A Bearer scenario in-process: the user's static token, the token endpoint and its client from the
    /// fixture; a token from the endpoint works at the resource, and the journal says how it was issued.
    @Test func bearerScenarioGivesItsTokensAndEndpoint() async throws {
        let yaml = """
            version: 1
            name: fixture-bearer
            users: [{name: alice, password: wonderland, token: alice-token}]
            challenges: [{scheme: Bearer}]
            oauth:
              clients: [{id: app, secret: app-secret}]
            """
        try await withAuthMock(yaml: yaml) { server in
            #expect(server.token(of: "alice") == "alice-token")
            let endpoint = try #require(server.tokenURL)
            #expect(endpoint.path == "/oauth/token" && endpoint.port == server.url.port)
            let client = try #require(server.oauthClients.first)
            let credentials = Data("\(client.id):\(client.secret!)".utf8).base64EncodedString()
            let form = "grant_type=client_credentials"
            let post = "POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Authorization: Basic \(credentials)\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                + "Content-Length: \(form.utf8.count)\r\n\r\n" + form
            let port = server.url.port!
            let answer = try await Task.detached { try rawExchange(port: port, Array(post.utf8)) }.value
            let json = try #require(answer.range(of: "\r\n\r\n").map { String(answer[$0.upperBound...]) })
            let token = try JSONDecoder().decode([String: JSONValue].self, from: Data(json.utf8))
            let access = try #require(token["access_token"]?.text)
            let get = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAuthorization: Bearer \(access)\r\n\r\n"
            let served = try await Task.detached { try rawExchange(port: port, Array(get.utf8)) }.value
            #expect(served.hasPrefix("HTTP/1.1 200"), "\(served)")
            #expect(server.requests.map(\.verdict) == [.oauthTokenIssued, .bearerOK])
            // The live page shows both, and fetching it journals nothing.
            #expect(server.liveURL.absoluteString == server.url.absoluteString + "_authmock/")
            let live = "GET \(server.liveURL.path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n"
            let page = try await Task.detached { try rawExchange(port: port, Array(live.utf8)) }.value
            #expect(page.hasPrefix("HTTP/1.1 200") && page.contains("bearer.ok"), "\(page.prefix(400))")
            #expect(server.requests.count == 2)
        }
    }

    /// The fixture serves on a free loopback port; exchanges that arrived before any take come back in arrival
    /// order, each once, with their verdict, challenges, target, credentials and headers.
    @Test func takeRequestReturnsEachExchangeOnceInArrivalOrder() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            #expect(server.url.absoluteString.hasPrefix("http://127.0.0.1:"))
            #expect(server.url.port != 8080)
            let first = try await Self.get(server.url)
            let second = try await Self.get(server.url(for: "/?x=1"), user: "alice", password: "wonderland")
            #expect(first == 401)
            #expect(second == 200)

            // Both arrived before the first take: they come back in order, each once.
            let one = try await server.takeRequest(timeout: .seconds(2))
            let two = try await server.takeRequest(timeout: .seconds(2))
            #expect(one.verdict == .noCredentials)
            #expect(one.challenges == ["Basic realm=\"authmock\""])
            #expect(two.verdict == .basicOK)
            #expect(two.target == "/?x=1")
            #expect(two.credentials?.user == "alice")
            #expect(two.header("authorization")?.hasPrefix("Basic ") == true)
            #expect(server.requestCount == 2)
            #expect(server.requests.map(\.seq) == [one.seq, two.seq])
        }
    }

    /// A take started before any request waits, and returns the exchange that arrives next.
    @Test func takeRequestWaitsForTheNextExchange() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            async let taken = server.takeRequest(timeout: .seconds(10))
            try await Task.sleep(for: .milliseconds(50))
            _ = try await Self.get(server.url, user: "alice", password: "wrong")
            let entry = try await taken
            #expect(entry.verdict == .basicBadPassword)
            #expect(entry.status == 401)
        }
    }

    /// A take with nothing to return throws `timedOut` after its timeout, and the waiter that gave up does not
    /// swallow the exchange that comes next.
    @Test func takeRequestTimesOutWhenNothingArrives() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            let started = ContinuousClock.now
            await #expect(throws: AuthMockError.timedOut(.milliseconds(100))) {
                try await server.takeRequest(timeout: .milliseconds(100))
            }
            #expect(ContinuousClock.now - started >= .milliseconds(100))
            // The waiter that timed out does not swallow the next exchange.
            _ = try await Self.get(server.url)
            let entry = try await server.takeRequest(timeout: .seconds(2))
            #expect(entry.verdict == .noCredentials)
        }
    }

    /// A timeout that ends before the wait could even begin still ends it (no lost timer).
    @Test func aZeroTimeoutReturnsAtOnce() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            for _ in 0..<20 {
                await #expect(throws: AuthMockError.timedOut(.zero)) { try await server.takeRequest(timeout: .zero) }
            }
        }
    }

    /// A take cancelled before it started waiting ends at once with CancellationError, not at its timeout.
    @Test func aTakeCancelledBeforeItWaitsEndsAtOnce() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            for _ in 0..<20 {
                let task = Task { try await server.takeRequest(timeout: .seconds(60)) }
                task.cancel()
                await #expect(throws: CancellationError.self) { try await task.value }
            }
        }
    }

    /// Shutting the fixture down ends a waiting take with `shutDown`; a take after the shutdown throws the same.
    @Test func shutdownWakesAWaitingTake() async throws {
        let server = try await AuthMockFixture.start(yaml: Self.basic)
        let taken = Task { try await server.takeRequest(timeout: .seconds(30)) }
        try await Task.sleep(for: .milliseconds(50))
        try await server.shutdown()
        await #expect(throws: AuthMockError.shutDown) { try await taken.value }
        await #expect(throws: AuthMockError.shutDown) { try await server.takeRequest(timeout: .seconds(1)) }
    }

    /// Cancelling a waiting take ends it with CancellationError, not at its timeout.
    @Test func cancellingATakeEndsIt() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            let task = Task { try await server.takeRequest(timeout: .seconds(30)) }
            try await Task.sleep(for: .milliseconds(50))
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    /// A password set from the test is what the server checks (the old one is stale) and what `user(_:)` reports;
    /// the change is journaled but is not a request; lock gives 403, remove 401, an unknown user throws.
    @Test func passwordChangesAreSeenByTheServerAndTheTest() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            #expect(server.user("alice")?.password == "wonderland")
            try server.setPassword("looking-glass", for: "alice")
            #expect(server.user("alice")?.password == "looking-glass")

            let oldPassword = try await Self.get(server.url, user: "alice", password: "wonderland")
            #expect(oldPassword == 401)
            let newPassword = try await Self.get(server.url, user: "alice", password: "looking-glass")
            #expect(newPassword == 200)
            let stale = try await server.takeRequest(timeout: .seconds(2))
            #expect(stale.verdict == .credentialStalePassword)
            let next = try await server.takeRequest(timeout: .seconds(2)).verdict
            #expect(next == .basicOK)
            // The change itself is in the journal, but is not a request.
            #expect(server.journal.contains { $0.verdict == .userPasswordChanged })
            #expect(server.requests.count == 2)

            #expect(throws: AuthMockError.noSuchUser("mallory")) { try server.setPassword("x", for: "mallory") }

            try server.lock("alice")
            let locked = try await Self.get(server.url, user: "alice", password: "looking-glass")
            #expect(locked == 403)
            try server.unlock("alice")
            try server.remove("alice")
            #expect(server.users.isEmpty)
            let removed = try await Self.get(server.url, user: "alice", password: "looking-glass")
            #expect(removed == 401)
        }
    }

    /// A reset empties the journal and the pending requests (a take then times out) and restores the scenario's
    /// passwords.
    @Test func resetRestoresUsersAndForgetsPendingRequests() async throws {
        try await withAuthMock(yaml: Self.basic) { server in
            _ = try await Self.get(server.url)
            try server.setPassword("new", for: "alice")
            server.reset()
            #expect(server.journal.isEmpty)
            #expect(server.requestCount == 0)
            #expect(server.user("alice")?.password == "wonderland")
            await #expect(throws: AuthMockError.timedOut(.milliseconds(50))) { try await server.takeRequest(timeout: .milliseconds(50)) }
        }
    }

    /// A Scenario value built in code is served as one read from YAML: its user gets 200 and is journaled.
    @Test func aScenarioBuiltInSwiftServesLikeAFile() async throws {
        let scenario = Scenario(
            name: "in-code", users: [User(name: "bob", password: "builder")],
            challenges: [.basic(BasicChallenge())]
        )
        try await withAuthMock(scenario) { server in
            let status = try await Self.get(server.url, user: "bob", password: "builder")
            #expect(status == 200)
            let user = try await server.takeRequest(timeout: .seconds(2)).credentials?.user
            #expect(user == "bob")
        }
    }

    /// Starting from a scenario file with an unknown key throws the loader's diagnostic with file, line and
    /// column; a missing file throws a ScenarioLoadError too.
    @Test func aBadScenarioFileIsRefusedWithItsPositions() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("bad.yaml").path
        try "version: 1\nname: bad\nchalenges: []\n".write(toFile: file, atomically: true, encoding: .utf8)
        do {
            _ = try await AuthMockFixture.start(scenarioFile: file)
            Issue.record("a scenario with an unknown key started")
        } catch let error as ScenarioLoadError {
            #expect(error.description.hasPrefix("\(file):3:1: "))
            #expect(error.description.contains("challenges"))
        }
        await #expect(throws: ScenarioLoadError.self) { try await AuthMockFixture.start(scenarioFile: directory.appendingPathComponent("missing.yaml").path) }
    }

    /// When the body of `withAuthMock` throws, the error comes out and the server is shut down: its port no
    /// longer answers.
    @Test func withAuthMockShutsTheServerDownWhenTheBodyThrows() async throws {
        struct Boom: Error {}
        var port = 0
        await #expect(throws: Boom.self) {
            try await withAuthMock(yaml: Self.basic) { server in
                port = server.url.port!
                throw Boom()
            }
        }
        #expect(port != 0)
        await #expect(throws: (any Error).self) { _ = try await Self.get(URL(string: "http://127.0.0.1:\(port)/")!) }
    }

    /// A TLS fixture exposes its CA file and PEM, client certificates and the public-key pin; a rotation
    /// with a new key changes the pin, one that keeps the key keeps it.
    /// The scenario's `http2:` reaches the fixture: it says what it speaks, and a stream shows in `requests`.
    @Test func http2PassesThrough() async throws {
        let yaml = """
            version: 1
            name: fixture-h2
            tls: {identity: ca-signed}
            http2: offer
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}]
            """
        try await withAuthMock(yaml: yaml) { server in
            #expect(server.protocols == ["h2", "http/1.1"])
            let answer = try await curl(["--http2", "--cacert", server.caFile!.path, "-u", "alice:wonderland", server.url.absoluteString])
            #expect(answer.status == 200)
            #expect(server.requests.map(\.httpProtocol) == ["h2"])
        }
    }

    @Test func tlsFilesPinsAndRotation() async throws {
        let yaml = """
            version: 1
            name: fixture-tls
            tls:
              identity: ca-signed
              client-certificate: optional
            users:
              - name: alice
                password: wonderland
            challenges:
              - scheme: Basic
            """
        try await withAuthMock(yaml: yaml) { server in
            #expect(server.url.scheme == "https")
            #expect(server.caPEM?.hasPrefix("-----BEGIN CERTIFICATE-----") == true)
            #expect(FileManager.default.fileExists(atPath: server.caFile!.path))
            #expect(server.clientCertificates["alice"] != nil)
            let pin = try #require(server.pinSHA256)
            #expect(Data(base64Encoded: pin)?.count == 32)
            try await server.rotateCertificate(keepKey: false)
            let rotated = try #require(server.pinSHA256)
            #expect(rotated != pin)
            // A new leaf on the same key keeps the public-key pin, and changes the certificate pin.
            let certificate = try #require(server.certSHA256)
            try await server.rotateCertificate(keepKey: true)
            #expect(server.pinSHA256 == rotated)
            #expect(server.certSHA256 != certificate && server.certSHA256?.count == 64)
        }
    }

    /// A scenario with a proxy exposes its address (loopback, its own port) and URL.
    @Test func theProxyAddressIsReadable() async throws {
        let yaml = """
            version: 1
            name: fixture-proxy
            resources:
              - path: /
                protected: false
            proxy:
              users:
                - name: carol
                  password: proxy-secret
              challenges:
                - scheme: Basic
            """
        try await withAuthMock(yaml: yaml) { server in
            let proxy = try #require(server.proxyAddress)
            #expect(proxy.host == "127.0.0.1")
            #expect(proxy.port != server.url.port)
            #expect(server.proxyURL?.absoluteString == "http://127.0.0.1:\(proxy.port)")
        }
    }
}
