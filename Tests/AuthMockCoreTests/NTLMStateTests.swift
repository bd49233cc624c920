import Testing
import Foundation
@testable import AuthMockCore

/// Review findings: NTLM connection state must not outlive a reset or a password change.
struct NTLMStateTests {
    let alice = NTLMClient(user: "alice", password: "wonderland", domain: "EXAMPLE")

    mutating func authenticated() throws -> Harness {
        var h = Harness(try loadShipped("ntlm.yaml"))
        let challenge = h.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString())
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(challenge.token("NTLM")))
        let done = h.send(authorization: "NTLM " + Data(alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)).base64EncodedString())
        #expect(done.verdict == .ntlmOK)
        #expect(h.send().verdict == .ntlmConnectionAuthenticated)
        return h
    }

    /// After a reset, a connection that had completed NTLM is challenged again (401), and no NTLM state is left.
    @Test mutating func resetForgetsAuthenticatedConnections() throws {
        var h = try authenticated()
        h.engine.reset()
        #expect(h.send().status == 401)
        #expect(h.engine.state.ntlmConnections == 0)
    }

    /// Changing the password of the user a kept-alive connection authenticated as makes it authenticate again (401).
    @Test mutating func passwordChangeEndsAuthenticatedConnections() throws {
        var h = try authenticated()
        h.changeUser("alice", .setPassword("new"))
        #expect(h.send().status == 401, "a kept-alive connection must authenticate again after the change")
    }

    /// Closing a connection forgets its handshake only: another connection's still completes.
    @Test func closingOneConnectionLeavesTheOthers() throws {
        var h = Harness(try loadShipped("ntlm.yaml"))
        var challenges: [UInt64: (challenge: [UInt8], targetInfo: [UInt8])] = [:]
        for connection: UInt64 in [1, 2] {
            h.connection = connection
            let answer = h.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString())
            challenges[connection] = NTLMClient.readChallenge(try #require(answer.token("NTLM")))
        }
        #expect(h.engine.state.ntlmConnections == 2)
        h.engine.connectionClosed(1)
        #expect(h.engine.state.ntlmConnections == 1)
        let (serverChallenge, targetInfo) = try #require(challenges[2])
        h.connection = 2
        let done = h.send(authorization: "NTLM " + Data(alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)).base64EncodedString())
        #expect(done.verdict == .ntlmOK)
    }

    /// Per-connection state is bounded for an engine never told of closes: the oldest connection's goes first.
    @Test func connectionStateIsBounded() {
        var states = ConnectionStates()
        for connection in 1...UInt64(ConnectionStates.capacity + 1) {
            states.remember(connection, .authenticated(user: "alice"))
        }
        #expect(states.ntlmCount == ConnectionStates.capacity)
        #expect(states[ntlm: 1] == nil)
        #expect(states.user(on: UInt64(ConnectionStates.capacity + 1)) == "alice")
        for connection in 1...UInt64(ConnectionStates.recentChallengesKept + 1) {
            states.issued(IssuedNTLMChallenge(connection: connection, serverChallenge: []))
        }
        #expect(states.recentNTLMChallenges.map(\.connection) == Array(2...UInt64(ConnectionStates.recentChallengesKept + 1)))
    }

    /// A CHALLENGE sent for NTLM is not answered as Negotiate (their options may differ).
    @Test func schemesDoNotMix() throws {
        var h = Harness(try loadShipped("negotiate.yaml"))
        let challenge = h.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString())
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(challenge.token("NTLM")))
        let mixed = h.send(authorization: "Negotiate " + Data(alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)).base64EncodedString())
        #expect(mixed.verdict == .ntlmNoChallenge)
    }

    /// The loader refuses NTLM names longer than a message can carry.
    @Test func loaderCapsNTLMNames() {
        let found = diagnostics("""
            version: 1
            name: x
            users: [{name: a, password: b}]
            challenges:
              - scheme: NTLM
                domain: \(String(repeating: "D", count: 300))
            """)
        #expect(found.count == 1)
        #expect(found.first?.contains("longer than 256 characters") == true)
    }
}
