import Testing
import Foundation
@testable import AuthMockCore

/// A client that builds NTLM messages the way MS-NLMP describes, for driving the engine.
struct NTLMClient {
    var user: String
    var password: String
    var domain: String
    var clientChallenge = [UInt8](repeating: 0xAA, count: 8)

    static let negotiateFlags: UInt32 = 0x0000_0001 | 0x0000_0200 | 0x0008_0000 | 0x0000_0004

    func negotiate() -> [UInt8] {
        NTLMMessage.signature + le32(1) + le32(Self.negotiateFlags) + [UInt8](repeating: 0, count: 16)
    }

    /// The server challenge and target info of a CHALLENGE message.
    static func readChallenge(_ message: [UInt8]) -> (challenge: [UInt8], targetInfo: [UInt8]) {
        let length = Int(message[40]) | Int(message[41]) << 8
        let offset = Int(message[44]) | Int(message[45]) << 8
        return (Array(message[24..<32]), Array(message[offset..<offset + length]))
    }

    enum Version { case v2, v1, ntlm2Session }

    func authenticate(serverChallenge: [UInt8], targetInfo: [UInt8], version: Version = .v2) -> [UInt8] {
        var lm: [UInt8]
        var nt: [UInt8]
        var flags: UInt32 = 0x0000_0001 | 0x0000_0200
        switch version {
        case .v2:
            let key = NTLMCrypto.ntowfv2(password: password, user: user, domain: domain)
            let blob: [UInt8] = [1, 1, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0x11, count: 8) + clientChallenge + [0, 0, 0, 0] + targetInfo + [0, 0, 0, 0]
            nt = NTLMCrypto.ntProofStr(ntowfv2: key, serverChallenge: serverChallenge, blob: blob[...]) + blob
            lm = NTLMCrypto.lmv2Response(ntowfv2: key, serverChallenge: serverChallenge, clientChallenge: clientChallenge)
        case .v1:
            nt = NTLMCrypto.ntlmv1Response(password: password, serverChallenge: serverChallenge)
            lm = [UInt8](repeating: 0, count: 24)
        case .ntlm2Session:
            flags |= 0x0008_0000
            nt = NTLMCrypto.ntlm2SessionResponse(password: password, serverChallenge: serverChallenge, clientChallenge: clientChallenge)
            lm = clientChallenge + [UInt8](repeating: 0, count: 16)
        }
        let domainBytes = NTLMCrypto.utf16le(domain), userBytes = NTLMCrypto.utf16le(user), workstation = NTLMCrypto.utf16le("WS")
        var offset = 64
        var header = NTLMMessage.signature + le32(3)
        var payload: [UInt8] = []
        for field in [lm, nt, domainBytes, userBytes, workstation, []] {
            header += le16(UInt16(field.count)) + le16(UInt16(field.count)) + le32(UInt32(offset))
            payload += field
            offset += field.count
        }
        return header + le32(flags) + payload
    }
}

func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }

extension Exchange {
    /// The token of a `WWW-Authenticate: NTLM <token>` or `Negotiate <token>` answer.
    func token(_ scheme: String) -> [UInt8]? {
        response.headers.values("WWW-Authenticate").first { $0.hasPrefix(scheme + " ") }
            .flatMap { Data(base64Encoded: String($0.dropFirst(scheme.count + 1))) }.map(Array.init)
    }
}

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

    /// The three legs on one connection, then requests on that connection need no credentials.
    mutating func handshake(_ h: inout Harness, client: NTLMClient, version: NTLMClient.Version = .v2) throws -> Exchange {
        let challenge = h.send(authorization: "NTLM " + Data(client.negotiate()).base64EncodedString())
        #expect(challenge.status == 401)
        #expect(challenge.verdict == .ntlmNegotiate)
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(challenge.token("NTLM")))
        return h.send(authorization: "NTLM " + Data(client.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo, version: version)).base64EncodedString())
    }

    @Test mutating func ntlmv2Handshake() throws {
        var h = try ntlm()
        let first = h.send()
        #expect(first.response.headers.values("WWW-Authenticate") == ["NTLM"])
        let done = try handshake(&h, client: alice)
        #expect(done.status == 200)
        #expect(done.verdict == .ntlmOK)
        #expect(done.entry?.credentials?.params?["version"] == "NTLMv2")
        #expect(done.entry?.detail == "authenticated as alice with NTLMv2")
        // Bound to the connection: the next request on it needs no credentials, another connection does.
        #expect(h.send().verdict == .ntlmConnectionAuthenticated)
        h.connection = 2
        #expect(h.send().status == 401)
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

    @Test mutating func refusals() throws {
        var h = try ntlm()
        #expect(try handshake(&h, client: NTLMClient(user: "alice", password: "nope", domain: "EXAMPLE")).verdict == .ntlmWrongPassword)
        #expect(try handshake(&h, client: NTLMClient(user: "alice", password: "wonderland", domain: "ELSEWHERE")).verdict == .ntlmWrongDomain)
        #expect(try handshake(&h, client: NTLMClient(user: "mallory", password: "x", domain: "EXAMPLE")).verdict == .ntlmUnknownUser)
        #expect(try handshake(&h, client: alice, version: .v1).verdict == .ntlmV1Refused)
        #expect(try handshake(&h, client: alice, version: .ntlm2Session).verdict == .ntlmV1Refused)
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
        _ = h.engine.change("alice", .setPassword("new"), reason: "test", now: t0)
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
        guard case .response(let token) = try SPNEGO.parse(try #require(first.token("Negotiate"))) else { return }
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(token))
        let done = h.send(authorization: "Negotiate " + Data(alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)).base64EncodedString())
        #expect(done.verdict == .ntlmOK)
    }
}

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

    @Test mutating func resetForgetsAuthenticatedConnections() throws {
        var h = try authenticated()
        h.engine.reset()
        #expect(h.send().status == 401)
        #expect(h.engine.state.ntlmConnections == 0)
    }

    @Test mutating func passwordChangeEndsAuthenticatedConnections() throws {
        var h = try authenticated()
        _ = h.engine.change("alice", .setPassword("new"), reason: "test", now: t0)
        #expect(h.send().status == 401, "a kept-alive connection must authenticate again after the change")
    }

    /// A CHALLENGE sent for NTLM is not answered as Negotiate (their options may differ).
    @Test func schemesDoNotMix() throws {
        var h = Harness(try loadShipped("negotiate.yaml"))
        let challenge = h.send(authorization: "NTLM " + Data(alice.negotiate()).base64EncodedString())
        let (serverChallenge, targetInfo) = NTLMClient.readChallenge(try #require(challenge.token("NTLM")))
        let mixed = h.send(authorization: "Negotiate " + Data(alice.authenticate(serverChallenge: serverChallenge, targetInfo: targetInfo)).base64EncodedString())
        #expect(mixed.verdict == .ntlmNoChallenge)
    }

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

/// wget 1.21 negotiates OEM strings, then sets the UNICODE flag on an AUTHENTICATE whose strings are OEM.
/// The CHALLENGE's encoding decides, as Samba and Windows do (found by the conformance suite).
struct NTLMNegotiatedEncodingTests {
    /// wget's AUTHENTICATE as it reached the server (flags 0x00008201, domain "EXAMPLE" in 7 OEM bytes).
    static let wgetAuthenticate = Data(base64Encoded: "TlRMTVNTUAADAAAAGAAYAEwAAAAYABgAZAAAAAcABwBAAAAABQAFAEcAAAAAAAAATAAAAAAAAAB8AAAAAYIAAEVYQU1QTEVhbGljZUwAvby44kxapotpJku/mga5b4et+CguHOdmXSOxmc6tuQJ2EoYu934oizghaBw1gg==")!

    @Test func oemStringsUnderAUnicodeFlag() throws {
        #expect(throws: NTLMSyntaxError.self) { try NTLMMessage.parse(Array(Self.wgetAuthenticate)) }
        guard case .authenticate(let message) = try NTLMMessage.parse(Array(Self.wgetAuthenticate), unicode: false) else {
            Issue.record("not an AUTHENTICATE")
            return
        }
        #expect(message.domain == "EXAMPLE")
        #expect(message.user == "alice")
        #expect(NTLMMessage.negotiatesUnicode(clientFlags: 0x0000_0202) == false)
        #expect(NTLMMessage.negotiatesUnicode(clientFlags: 0x0000_0201) == true)
    }
}
