import Testing
@testable import AuthMockCore

/// MS-NLMP §4.2 test vectors: User "User", domain "Domain", password "Password",
/// server challenge 0123456789abcdef, client challenge aaaaaaaaaaaaaaaa.
struct NTLMCryptoTests {
    static let serverChallenge: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
    static let clientChallenge = [UInt8](repeating: 0xAA, count: 8)

    /// §4.2.2.1.2: NTOWFv1, the MD4 of the password in UTF-16LE.
    @Test func ntowfv1() {
        #expect(NTLMCrypto.ntowfv1(password: "Password").hexString == "a4f49c406510bdcab6824ee7c30fd852")
    }

    /// §4.2.2.2.1: NTLMv1 response.
    @Test func ntlmv1Response() {
        #expect(NTLMCrypto.ntlmv1Response(password: "Password", serverChallenge: Self.serverChallenge).hexString
            == "67c43011f30298a2ad35ece64f16331c44bdbed927841f94")
    }

    /// §4.2.3.2.2: NTLMv1 with extended session security (NTLM2 session response).
    @Test func ntlm2SessionResponse() {
        #expect(NTLMCrypto.ntlm2SessionResponse(password: "Password", serverChallenge: Self.serverChallenge, clientChallenge: Self.clientChallenge).hexString
            == "7537f803ae367128ca458204bde7caf81e97ed2683267232")
    }

    /// §4.2.4.1.1 NTOWFv2, §4.2.4.2.1 LMv2 response, §4.2.4.2.2 NTProofStr over the §4.2.4.1.3 temp.
    @Test func ntlmv2() {
        let key = NTLMCrypto.ntowfv2(password: "Password", user: "User", domain: "Domain")
        #expect(key.hexString == "0c868a403bfd7a93a3001ef22ef02e3f")
        #expect(NTLMCrypto.lmv2Response(ntowfv2: key, serverChallenge: Self.serverChallenge, clientChallenge: Self.clientChallenge).hexString
            == "86c35097ac9cec102554764a57cccc19aaaaaaaaaaaaaaaa")
        let avPairs: [UInt8] = [0x02, 0x00, 0x0C, 0x00] + NTLMCrypto.utf16le("Domain") + [0x01, 0x00, 0x0C, 0x00] + NTLMCrypto.utf16le("Server") + [0, 0, 0, 0]
        let temp: [UInt8] = [0x01, 0x01, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 8) + Self.clientChallenge + [0, 0, 0, 0] + avPairs + [0, 0, 0, 0]
        #expect(NTLMCrypto.ntProofStr(ntowfv2: key, serverChallenge: Self.serverChallenge, blob: temp[...]).hexString
            == "68cd0ab851e51c96aabc927bebef6a1c")
    }
}
