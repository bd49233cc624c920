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
