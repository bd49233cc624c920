import AuthMock
import ProfileClient
import XCTest

/// The XCTest way: one server per test, started in `setUp` from a scenario file, stopped in `tearDown`.
final class ProfileClientXCTests: XCTestCase {
    // Optional, not `AuthMockFixture!`: XCTest runs tearDown even when setUp threw, and then there is no server.
    var server: AuthMockFixture?

    override func setUp() async throws {
        let file = try XCTUnwrap(Bundle.module.path(forResource: "profile", ofType: "yaml", inDirectory: "scenarios"))
        server = try await AuthMockFixture.start(scenarioFile: file)
    }

    override func tearDown() async throws {
        try await server?.shutdown()
    }

    func testAnswersTheChallengeOnceWithItsCredentials() async throws {
        let server = try XCTUnwrap(server)
        let client = ProfileClient(user: "alice", password: "wonderland")
        let body = try await client.fetch(server.url(for: "/profile"))
        XCTAssertEqual(body, "name: alice\n")

        // What the server saw: a first request without credentials, challenged, then one with them.
        let first = try await server.takeRequest(timeout: .seconds(5))
        XCTAssertEqual(first.verdict, .noCredentials)
        XCTAssertEqual(first.challenges, ["Basic realm=\"profiles\""])
        let second = try await server.takeRequest(timeout: .seconds(5))
        XCTAssertEqual(second.verdict, .basicOK)
        XCTAssertEqual(second.credentials?.user, "alice")
        XCTAssertEqual(client.challengesSeen, 1)
    }

    func testGivesUpOnAWrongPasswordInsteadOfLooping() async throws {
        let server = try XCTUnwrap(server)
        let client = ProfileClient(user: "alice", password: "not-the-password")
        do {
            _ = try await client.fetch(server.url(for: "/profile"))
            XCTFail("a wrong password was accepted")
        } catch ProfileClient.Failure.unauthorized {
            // expected
        }
        let verdicts = server.requests.map(\.verdict)
        XCTAssertEqual(verdicts, [.noCredentials, .basicBadPassword], "the client should try its password once, then stop")
    }
}
