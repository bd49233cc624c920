import AuthMock
import Foundation
import ProfileClient
import Testing

/// The Swift Testing way: `withAuthMock` scopes a server to one test, here from YAML written inline.
@Suite struct ProfileClientTests {
    static let scenario = """
        version: 1
        name: rotating-password
        realm: profiles
        users:
          - name: alice
            password: wonderland
        challenges:
          - scheme: Basic
        resources:
          - path: /profile
            body: "name: alice\\n"
        """

    @Test func aPasswordChangedOnTheServerIsReportedAsUnauthorized() async throws {
        try await withAuthMock(yaml: Self.scenario) { server in
            let client = ProfileClient(user: "alice", password: "wonderland")
            let before = try await client.fetch(server.url(for: "/profile"))
            #expect(before == "name: alice\n")

            // The password changes while the client still holds the old one.
            try server.setPassword("looking-glass", for: "alice")
            await #expect(throws: ProfileClient.Failure.unauthorized) {
                try await ProfileClient(user: "alice", password: "wonderland").fetch(server.url(for: "/profile"))
            }
            // The server recognised the old password, and the client did not insist.
            let refused = server.requests.filter { $0.credentials?.user == "alice" && $0.status == 401 }
            #expect(refused.map(\.verdict) == [.credentialStalePassword])

            let after = try await ProfileClient(user: "alice", password: "looking-glass").fetch(server.url(for: "/profile"))
            #expect(after == "name: alice\n")
        }
    }

    @Test func eachRequestCanBeAwaitedAsItArrives() async throws {
        try await withAuthMock(yaml: Self.scenario) { server in
            let fetch = Task { try await ProfileClient(user: "alice", password: "wonderland").fetch(server.url(for: "/profile")) }
            let challenged = try await server.takeRequest(timeout: .seconds(5))
            #expect(challenged.status == 401)
            #expect(challenged.target == "/profile")
            let answered = try await server.takeRequest(timeout: .seconds(5))
            #expect(answered.status == 200)
            #expect(answered.header("Authorization") == "Basic " + Data("alice:wonderland".utf8).base64EncodedString())
            _ = try await fetch.value
        }
    }
}
