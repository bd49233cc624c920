internal import CLibCrypto

/// The NTLM computations of MS-NLMP §3.3, over bytes. MD4, DES, MD5 and HMAC-MD5 come from OpenSSL's libcrypto.
enum NTLMCrypto {
    static func md4(_ data: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 16)
        _ = data.withUnsafeBufferPointer { MD4($0.baseAddress, $0.count, &digest) }
        return digest
    }

    static func md5(_ data: [UInt8]) -> [UInt8] {
        HashFunction.md5.hash(data)
    }

    static func hmacMD5(key: [UInt8], _ data: [UInt8]) -> [UInt8] {
        HMACKey.mac(.md5, key: key, data)
    }

    static func utf16le(_ text: String) -> [UInt8] {
        text.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
    }

    /// NTOWFv1: MD4 of the UTF-16LE password.
    static func ntowfv1(password: String) -> [UInt8] {
        md4(utf16le(password))
    }

    /// NTOWFv2: HMAC-MD5(NTOWFv1, UTF-16LE(UPPER(user) + domain)).
    static func ntowfv2(password: String, user: String, domain: String) -> [UInt8] {
        hmacMD5(key: ntowfv1(password: password), utf16le(user.uppercased() + domain))
    }

    /// DES-encrypts one 8-byte block with a 7-byte key (expanded to 8 bytes with parity bits).
    static func des(key7: ArraySlice<UInt8>, _ block: [UInt8]) -> [UInt8] {
        let k = Array(key7)
        var key: [UInt8] = [
            k[0], (k[0] << 7) | (k[1] >> 1), (k[1] << 6) | (k[2] >> 2), (k[2] << 5) | (k[3] >> 3),
            (k[3] << 4) | (k[4] >> 4), (k[4] << 3) | (k[5] >> 5), (k[5] << 2) | (k[6] >> 6), k[6] << 1,
        ]
        for index in key.indices { key[index] &= 0xFE }
        var schedule = DES_key_schedule()
        var output = DES_cblock(0, 0, 0, 0, 0, 0, 0, 0)
        var input = DES_cblock(block[0], block[1], block[2], block[3], block[4], block[5], block[6], block[7])
        var keyBlock = DES_cblock(key[0], key[1], key[2], key[3], key[4], key[5], key[6], key[7])
        DES_set_key_unchecked(&keyBlock, &schedule)
        DES_ecb_encrypt(&input, &output, &schedule, DES_ENCRYPT)
        return withUnsafeBytes(of: output) { Array($0) }
    }

    /// DESL (MS-NLMP §6): the 16-byte key padded to 21, three DES encryptions of the 8-byte data.
    static func desl(key16: [UInt8], _ data: [UInt8]) -> [UInt8] {
        let key = key16 + [UInt8](repeating: 0, count: 5)
        return des(key7: key[0..<7], data) + des(key7: key[7..<14], data) + des(key7: key[14..<21], data)
    }

    /// The NTLMv1 NT response (no extended session security).
    static func ntlmv1Response(password: String, serverChallenge: [UInt8]) -> [UInt8] {
        desl(key16: ntowfv1(password: password), serverChallenge)
    }

    /// The NTLMv1 NT response with extended session security ("NTLM2 session response").
    static func ntlm2SessionResponse(password: String, serverChallenge: [UInt8], clientChallenge: [UInt8]) -> [UInt8] {
        desl(key16: ntowfv1(password: password), Array(md5(serverChallenge + clientChallenge).prefix(8)))
    }

    /// NTProofStr of NTLMv2: HMAC-MD5(NTOWFv2, serverChallenge + temp), where temp is the client's blob.
    static func ntProofStr(ntowfv2: [UInt8], serverChallenge: [UInt8], blob: ArraySlice<UInt8>) -> [UInt8] {
        hmacMD5(key: ntowfv2, serverChallenge + blob)
    }

    /// The LMv2 response: HMAC-MD5(NTOWFv2, serverChallenge + clientChallenge) + clientChallenge.
    static func lmv2Response(ntowfv2: [UInt8], serverChallenge: [UInt8], clientChallenge: [UInt8]) -> [UInt8] {
        hmacMD5(key: ntowfv2, serverChallenge + clientChallenge) + clientChallenge
    }
}
