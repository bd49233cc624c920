import Testing
import Foundation
@testable import AuthMockCore

struct NTLMEngineTests {
    let alice = NTLMClient(user: "alice", password: "wonderland", domain: "EXAMPLE")

    func ntlm(_ adjust: (inout NTLMChallenge) -> Void = { _ in }) throws -> Harness {
        var scenario = try loadShipped("ntlm.yaml")
        if case .ntlm(var options) = scenario.challenges[0] {
            adjust(&options)
            scenario.challenges[0] = .ntlm(options)
        }
        return Harness(scenario)
    }

    /// NEGOTIATE, then AUTHENTICATE with the server challenge of the CHALLENGE it got back.
    mutating func handshake(_ h: inout Harness, client: NTLMClient, version: NTLMClient.Version = .v2) throws -> Exchange {
        let challenge = h.send(authorization: "NTLM " + Data(client.negotiate()).base64EncodedString())
        #expect(challenge.status == 401)
        #expect(challenge.verdict == .ntlmNegotiate)
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(challenge.token("NTLM")))
        return h.send(authorization: "NTLM " + Data(client.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo, version: version)).base64EncodedString())
    }

    /// The three legs on one connection, then requests on that connection need no credentials.
    @Test mutating func ntlmv2Handshake() throws {
        var h = try ntlm()
        let first = h.send()
        #expect(first.response.headers.values("WWW-Authenticate") == ["NTLM"])
        let done = try handshake(&h, client: alice)
        #expect(done.status == 200)
        #expect(done.verdict == .ntlmOK)
        #expect(done.entry?.credentials?.params?["version"] == "NTLMv2")
        #expect(done.entry?.detail == "authenticated as alice with NTLMv2")
        #expect(done.entry?.connectionUser == nil, "accepted credentials name their user themselves")
        // Bound to the connection: the next request on it needs no credentials, another connection does.
        let riding = h.send()
        #expect(riding.verdict == .ntlmConnectionAuthenticated)
        // The journal says whom it was served as, though it carried no credentials.
        #expect(riding.entry?.connectionUser == "alice")
        #expect(riding.entry?.jsonLine().contains("\"connection_user\":\"alice\"") == true)
        h.connection = 2
        let other = h.send()
        #expect(other.status == 401 && other.entry?.connectionUser == nil)
    }

    /// The CHALLENGE carries the fixed server challenge, the domain and target info (with a timestamp).
    @Test func challengeMessage() throws {
        var h = try ntlm()
        let message = try #require(h.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString()).token("NTLM"))
        #expect(Array(message[0..<8]) == NTLMMessage.signature)
        let (challenge, info) = NTLMClient.readChallenge(message)
        #expect(challenge == [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF])
        #expect(info.count > 30)
        let infoText = String(decoding: stride(from: 0, to: info.count - 1, by: 2).map { UInt16(info[$0]) | UInt16(info[$0 + 1]) << 8 }, as: UTF16.self)
        #expect(infoText.contains("EXAMPLE"))
        #expect(infoText.contains("FILESERVER"))
    }

    /// SIGN and SEAL a NEGOTIATE asks for come back in the CHALLENGE (MS-NLMP §3.2.5.1.1); gss-ntlmssp
    /// (curl's Negotiate) refuses a CHALLENGE without them. Not asked for, they are not granted.
    @Test(arguments: [(UInt32(0x0000_0030), UInt32(0x30)), (0, 0), (0x0000_0010, 0x10)])
    func signAndSealAreEchoed(asked: UInt32, granted: UInt32) throws {
        var h = try ntlm()
        let negotiate = Array("NTLMSSP".utf8) + [0, 1, 0, 0, 0] + le32(0x0000_0201 | asked) + [UInt8](repeating: 0, count: 16)
        let message = try #require(h.send(authorization: "NTLM " + Data(negotiate).base64EncodedString()).token("NTLM"))
        let flags = (0..<4).reduce(UInt32(0)) { $0 | UInt32(message[20 + $1]) << (8 * $1) }
        #expect(flags & 0x30 == granted)
    }

    /// Each named corruption of the CHALLENGE's TargetInfoFields, and the journal saying what was sent.
    @Test(arguments: NTLMCorruption.allCases)
    func corruptedChallenge(corruption: NTLMCorruption) throws {
        var h = try ntlm { $0.corruption = corruption }
        let exchange = h.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString())
        let message = try #require(exchange.token("NTLM"))
        let length = Int(message[40]) | Int(message[41]) << 8
        let offset = (0..<4).reduce(0) { $0 | Int(message[44 + $1]) << (8 * $1) }
        switch corruption {
        case .targetInfoPastEnd: #expect(offset < message.count && offset + length == message.count + 4096)
        case .targetInfoOffsetWraps: #expect(offset == 0xFFFF_FFF0 && UInt32(truncatingIfNeeded: offset + length) == 0x30)
        case .targetInfoInHeader: #expect(offset == 0 && length > 30)
        }
        #expect(exchange.entry?.hostile == "NTLM CHALLENGE \(corruption.rawValue): TargetInfoFields length \(length) at offset \(offset), in a \(message.count)-byte message")
        #expect(exchange.entry?.verdict == .ntlmNegotiate)
        // A well-formed CHALLENGE is not hostile.
        var plain = try ntlm()
        #expect(plain.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString()).entry?.hostile == nil)
    }

    /// A wrong password, domain or user, and NTLMv1 (or its NTLM2 session response) where only v2 is
    /// accepted: each refused with its own verdict.
    @Test(arguments: [
        ("alice", "nope", "EXAMPLE", NTLMClient.Version.v2, Verdict.ntlmWrongPassword),
        ("alice", "wonderland", "ELSEWHERE", .v2, .ntlmWrongDomain),
        ("mallory", "x", "EXAMPLE", .v2, .ntlmUnknownUser),
        ("alice", "wonderland", "EXAMPLE", .v1, .ntlmV1Refused),
        ("alice", "wonderland", "EXAMPLE", .ntlm2Session, .ntlmV1Refused),
    ])
    mutating func refusals(user: String, password: String, domain: String, version: NTLMClient.Version, verdict: Verdict) throws {
        var h = try ntlm()
        #expect(try handshake(&h, client: NTLMClient(user: user, password: password, domain: domain), version: version).verdict == verdict)
    }

    /// Where v1 is allowed, NTLMv1 and the NTLM2 session response both verify (and wrong ones do not).
    @Test mutating func ntlmv1WhenAllowed() throws {
        var h = try ntlm { $0.allowV1 = true }
        let v1 = try handshake(&h, client: alice, version: .v1)
        #expect(v1.verdict == .ntlmOK)
        #expect(v1.entry?.detail?.hasSuffix("NTLMv1") == true)
        h.connection = 2
        #expect(try handshake(&h, client: alice, version: .ntlm2Session).entry?.detail?.hasSuffix("NTLM2 session response") == true)
        h.connection = 3
        #expect(try handshake(&h, client: NTLMClient(user: "alice", password: "no", domain: "EXAMPLE"), version: .v1).verdict == .ntlmWrongPassword)
    }

    /// An AUTHENTICATE on another connection than its CHALLENGE fails, and says which; closing a
    /// connection mid-handshake leaves nothing behind.
    @Test func connectionBinding() throws {
        var h = try ntlm()
        let message = try #require(h.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString()).token("NTLM"))
        #expect(h.engine.state.ntlmConnections == 1)
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(message)
        h.connection = 2
        let moved = h.send(authorization: "NTLM " + Data(alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)).base64EncodedString())
        #expect(moved.verdict == .ntlmConnectionChanged)
        #expect(moved.entry?.detail?.contains("connection 1") == true)
        h.engine.connectionClosed(1)
        #expect(h.engine.state.ntlmConnections == 0)
        h.connection = 3
        let orphan = h.send(authorization: "NTLM " + Data(alice.authenticate(serverChallenge: [1, 2, 3, 4, 5, 6, 7, 8], targetInfo: targetInfo)).base64EncodedString())
        #expect(orphan.verdict == .ntlmNoChallenge)
    }

    /// After a password change the old NTLM password is credential.stale-password.
    @Test mutating func stalePassword() throws {
        var h = try ntlm()
        h.changeUser("alice", .setPassword("new"))
        #expect(try handshake(&h, client: alice).verdict == .credentialStalePassword)
        h.connection = 2
        #expect(try handshake(&h, client: NTLMClient(user: "alice", password: "new", domain: "EXAMPLE")).verdict == .ntlmOK)
    }

    /// Forged lengths and offsets, truncations, a wrong signature, a CHALLENGE from the client: 400.
    @Test(arguments: [
        ("TlRMTVNTUAADAAAA", "at least 64 bytes"), ("TlRMTVNTUA==", "shorter than"),
        ("AAAAAAAAAAAAAAAAAAAA", "signature"),
        ("!!!notbase64", "not valid base64"),
    ])
    func malformedTokens(token: String, reason: String) throws {
        var h = try ntlm()
        let answer = h.send(authorization: "NTLM " + token)
        #expect(answer.status == 400)
        #expect(answer.verdict == .ntlmMalformed)
        #expect(answer.entry?.detail?.contains(reason) == true)
    }

    /// An AUTHENTICATE whose NT response offset points past the end gets 400 saying so, and a CHALLENGE sent by
    /// the client is refused as a message that comes from the server.
    @Test func forgedOffsetsAre400() throws {
        var h = try ntlm()
        var message = alice.authenticate(serverChallenge: [UInt8](repeating: 1, count: 8), targetInfo: [])
        message[24] = 0xFF; message[25] = 0xFF  // NtChallengeResponse offset far past the end
        message[26] = 0xFF; message[27] = 0x7F
        let forged = h.send(authorization: "NTLM " + Data(message).base64EncodedString())
        #expect(forged.status == 400)
        #expect(forged.entry?.detail?.contains("points outside the message") == true)
        var type2 = NTLMMessage.signature + le32(2) + [UInt8](repeating: 0, count: 40)
        type2[9] = 0
        #expect(h.send(authorization: "NTLM " + Data(type2).base64EncodedString()).entry?.detail?.contains("comes from the server") == true)
    }

    /// Thousands of seeded mutations of valid messages: every answer is a clean 400, 401 or 200.
    @Test func mutatedMessagesNeverCrash() throws {
        var h = try ntlm()
        var random = SplitMix64(seed: 99)
        let valid = [alice.negotiate(), alice.authenticate(serverChallenge: [UInt8](repeating: 1, count: 8), targetInfo: [1, 0, 4, 0, 0x41, 0, 0x42, 0])]
        for round in 0..<3000 {
            var message = valid[round % 2]
            for _ in 0..<Int(random.next() % 6 + 1) {
                let index = Int(random.next() % UInt64(message.count))
                switch random.next() % 3 {
                case 0: message[index] = UInt8(truncatingIfNeeded: random.next())
                case 1: message = Array(message.prefix(index))
                default: message.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
                }
                if message.isEmpty { message = [0] }
            }
            let status = h.send(authorization: "NTLM " + Data(message).base64EncodedString()).status
            #expect([200, 400, 401].contains(status))
        }
    }

    // MARK: Negotiate

    func negotiate() throws -> Harness { Harness(try loadShipped("negotiate.yaml")) }

    /// SPNEGO around NTLM: NegTokenInit(NTLM, NEGOTIATE) → NegTokenResp(CHALLENGE) → NegTokenResp(AUTHENTICATE).
    @Test func negotiateWithNTLM() throws {
        var h = try negotiate()
        #expect(h.send().response.headers.values("WWW-Authenticate") == ["Negotiate", "NTLM"])
        let initial = SPNEGO.initial(mechTypes: [SPNEGO.ntlmOID], mechToken: alice.negotiate())
        let first = h.send(authorization: "Negotiate " + Data(initial).base64EncodedString())
        #expect(first.verdict == .ntlmNegotiate)
        guard case .response(let challengeToken) = try SPNEGO.parse(try #require(first.token("Negotiate"))) else {
            Issue.record("expected a NegTokenResp")
            return
        }
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(challengeToken))
        let answer = SPNEGO.tlv(0xA1, SPNEGO.tlv(0x30, SPNEGO.tlv(0xA2, SPNEGO.tlv(0x04, alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)))))
        let done = h.send(authorization: "Negotiate " + Data(answer).base64EncodedString())
        #expect(done.status == 200)
        #expect(done.verdict == .ntlmOK)
        #expect(done.entry?.credentials?.scheme == "Negotiate")
        // The final NegTokenResp says accept-completed.
        let final = try #require(done.token("Negotiate"))
        #expect(final == SPNEGO.response(.acceptCompleted, supportedMech: nil, token: nil))
    }

    /// Kerberos only: rejected as a server without Kerberos would; Kerberos first with NTLM listed: asked for NTLM.
    @Test func negotiateWithKerberos() throws {
        var h = try negotiate()
        let kerberosOnly = SPNEGO.initial(mechTypes: [SPNEGO.kerberosOIDs[0]], mechToken: [0x60, 0x00])
        let rejected = h.send(authorization: "Negotiate " + Data(kerberosOnly).base64EncodedString())
        #expect(rejected.status == 401)
        #expect(rejected.verdict == .negotiateKerberosUnsupported)
        #expect(rejected.token("Negotiate") == SPNEGO.response(.reject, supportedMech: nil, token: nil))
        let preferring = SPNEGO.initial(mechTypes: [SPNEGO.kerberosOIDs[1], SPNEGO.ntlmOID], mechToken: [0x60, 0x00])
        let asked = h.send(authorization: "Negotiate " + Data(preferring).base64EncodedString())
        #expect(asked.token("Negotiate") == SPNEGO.response(.acceptIncomplete, supportedMech: SPNEGO.ntlmOID, token: nil))
        #expect(h.send(authorization: "Negotiate " + Data([0xA1, 0x05, 0x30]).base64EncodedString()).status == 400)
    }

    /// A raw NTLMSSP token inside Negotiate (some clients do this) works too.
    @Test mutating func rawNTLMInsideNegotiate() throws {
        var h = try negotiate()
        let first = h.send(authorization: "Negotiate " + Data(alice.negotiate()).base64EncodedString())
        let parsed = try SPNEGO.parse(try #require(first.token("Negotiate")))
        guard case .response(let token) = parsed else {
            Issue.record("the server's Negotiate answer is not an SPNEGO response: \(parsed)")
            return
        }
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(token))
        let done = h.send(authorization: "Negotiate " + Data(alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)).base64EncodedString())
        #expect(done.verdict == .ntlmOK)
    }
}
