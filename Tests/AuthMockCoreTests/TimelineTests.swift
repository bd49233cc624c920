import Testing
import Foundation
@testable import AuthMockCore

/// Users changing while the scenario runs: timeline steps, the control endpoint, stale passwords.
struct TimelineTests {
    func harness() throws -> Harness { Harness(try loadShipped("password-change.yaml")) }

    /// After alice's first success her password changes: the old one is `credential.stale-password`
    /// (Basic and Digest alike), the new one works, and the change itself is journaled in between.
    @Test func passwordChangesAfterSuccess() throws {
        var h = try harness()
        let first = h.send(authorization: basic("alice", "wonderland"))
        #expect(first.verdict == .basicOK)
        #expect(first.events.map(\.verdict) == [.userPasswordChanged])
        #expect(first.journalEntries.map(\.seq) == [1, 2], "the change comes right after the success that caused it")

        let stale = h.send(authorization: basic("alice", "wonderland"))
        #expect(stale.status == 401)
        #expect(stale.verdict == .credentialStalePassword)
        let challenge = try #require(stale.digestChallenge("SHA-256"))
        let staleDigest = h.send(authorization: DigestClient(user: "alice", password: "wonderland").authorization(for: challenge))
        #expect(staleDigest.verdict == .credentialStalePassword)
        #expect(h.send(authorization: basic("alice", "nope")).verdict == .basicBadPassword)
        #expect(h.send(authorization: basic("alice", "looking-glass")).verdict == .basicOK)
        #expect(h.journal.entries.filter { $0.verdict == .credentialStalePassword }.count == 2)
    }

    /// The same with Digest from the start: the success that changes the password leaves the old one's
    /// H(A1) remembered, and it must not answer for the new password (nor the new one's for the old).
    @Test func digestPasswordChangesAfterDigestSuccess() throws {
        var h = try harness()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let first = h.send(authorization: DigestClient(user: "alice", password: "wonderland").authorization(for: challenge))
        #expect(first.status == 200)
        #expect(first.events.map(\.verdict) == [.userPasswordChanged])
        let next = try #require(h.send().digestChallenge("SHA-256"))
        let old = h.send(authorization: DigestClient(user: "alice", password: "wonderland").authorization(for: next))
        #expect(old.verdict == .credentialStalePassword)
        let again = try #require(h.send().digestChallenge("SHA-256"))
        let new = h.send(authorization: DigestClient(user: "alice", password: "looking-glass").authorization(for: again))
        #expect(new.status == 200)
        let last = try #require(h.send().digestChallenge("SHA-256"))
        #expect(h.send(authorization: DigestClient(user: "alice", password: "wonderland").authorization(for: last)).status == 401)
    }

    /// `at-request` locks bob before request 5 is decided: valid credentials then get 403.
    @Test func lockAtRequest() throws {
        var h = try harness()
        for _ in 0..<4 { #expect(h.send(authorization: basic("bob", "builder")).status == 200) }
        let fifth = h.send(authorization: basic("bob", "builder"))
        #expect(fifth.status == 403)
        #expect(fifth.verdict == .credentialLocked)
        #expect(fifth.events.map(\.verdict) == [.userLocked])
        #expect(h.send(authorization: basic("bob", "wrong")).verdict == .basicBadPassword)
    }

    /// `after: 60s` removes carol once that much time has passed; her old password is then stale.
    @Test func removeAfterTime() throws {
        var h = try harness()
        #expect(h.send(authorization: basic("carol", "hatter")).status == 200)
        h.now = t0.addingTimeInterval(59)
        #expect(h.send(authorization: basic("carol", "hatter")).status == 200)
        h.now = t0.addingTimeInterval(61)
        let gone = h.send(authorization: basic("carol", "hatter"))
        #expect(gone.verdict == .credentialStalePassword)
        #expect(gone.events.map(\.verdict) == [.userRemoved])
        #expect(h.send(authorization: basic("carol", "other")).verdict == .basicUnknownUser)
    }

    /// `after:` counts from the engine's start, not from the first request; the control endpoint applies
    /// steps that came due while no request arrived.
    @Test func timeCountsFromStart() throws {
        var h = try harness()
        h.engine.start(at: t0)
        h.now = t0.addingTimeInterval(61)
        let users = h.send("GET", "/_authmock/users")
        #expect(users.events.map(\.verdict) == [.userRemoved])
        let list = try JSONDecoder().decode([Engine.UserStatus].self, from: Data(users.response.body))
        #expect(list.first { $0.name == "carol" }?.removed == true)
        #expect(h.send(authorization: basic("carol", "hatter")).verdict == .credentialStalePassword)
    }

    /// The control endpoint changes a password or locks and unlocks a user on demand; reset restores all.
    @Test func controlEndpoint() throws {
        var h = try harness()
        let change = h.send("POST", "/_authmock/users/bob", body: Array(#"{"password": "rebuilt"}"#.utf8))
        #expect(change.status == 200)
        #expect(change.entry == nil)
        #expect(change.events.map(\.verdict) == [.userPasswordChanged])
        #expect(change.events.first?.detail?.contains("POST /_authmock/users/bob") == true)
        #expect(h.send(authorization: basic("bob", "builder")).verdict == .credentialStalePassword)
        #expect(h.send(authorization: basic("bob", "rebuilt")).status == 200)

        #expect(h.send("POST", "/_authmock/users/bob", body: Array(#"{"enabled": false}"#.utf8)).events.map(\.verdict) == [.userLocked])
        #expect(h.send(authorization: basic("bob", "rebuilt")).status == 403)
        #expect(h.send("POST", "/_authmock/users/bob", body: Array(#"{"enabled": true}"#.utf8)).status == 200)
        #expect(h.send(authorization: basic("bob", "rebuilt")).status == 200)

        let list = try JSONDecoder().decode([Engine.UserStatus].self, from: Data(h.send("GET", "/_authmock/users").response.body))
        #expect(list.map(\.name) == ["alice", "bob", "carol"])
        #expect(list[1].password == "rebuilt")
        #expect(list[1].passwordChanges == 1)

        #expect(h.send("POST", "/_authmock/users/nobody", body: Array(#"{"enabled": true}"#.utf8)).status == 404)
        #expect(h.send("POST", "/_authmock/users/bob", body: Array("not json".utf8)).status == 400)
        #expect(h.send("POST", "/_authmock/users/bob", body: Array("{}".utf8)).status == 400)
        #expect(h.send("GET", "/_authmock/users/bob").status == 405)

        h.engine.reset()
        #expect(h.send(authorization: basic("bob", "builder")).status == 200)
    }

    /// Timeline steps with two triggers, with no action, with a user not in `users` (with a suggestion), or with
    /// `unlock: false` are each refused at their position, and nothing else is.
    @Test func loaderRefusesAmbiguousSteps() {
        let found = diagnostics(file: "t.yaml", """
            version: 1
            name: x
            users: [{name: alice, password: a}]
            challenges: [{scheme: Basic}]
            timeline:
              - {after-successes: 1, at-request: 2, user: alice, lock: true}
              - {after: 5s, user: alice}
              - {after: 5s, user: alise, lock: true}
              - {after: 5s, user: alice, unlock: false}
            """)
        #expect(found.contains { $0.hasPrefix("t.yaml:6:5: a timeline step needs exactly one trigger, found after-successes and at-request") })
        #expect(found.contains { $0.hasPrefix("t.yaml:7:5: a timeline step needs exactly one action, found none") })
        #expect(found.contains { $0.hasPrefix("t.yaml:8:23: timeline user 'alise' is not in users — did you mean 'alice'?") })
        #expect(found.contains { $0.hasPrefix("t.yaml:9:38: unlock: false does nothing") })
        #expect(found.count == 4)
    }
}
