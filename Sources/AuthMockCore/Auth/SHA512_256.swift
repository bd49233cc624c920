internal import CLibCrypto

/// SHA-512/256 (FIPS 180-4 §5.3.6.2), which RFC 7616 names for Digest's `SHA-512-256` algorithm, from OpenSSL's
/// libcrypto (which NTLM's MD4 and DES already come from).
///
/// swift-crypto offers SHA-512 but not this variant, which differs in its initial hash value and is
/// truncated to 256 bits.
enum SHA512_256 {
    static func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        let data = Array(message)
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let done = data.withUnsafeBytes { bytes in
            EVP_Digest(bytes.baseAddress, bytes.count, &digest, &length, EVP_sha512_256(), nil)
        }
        // Fails only without memory or without the default provider: no answer could be right then.
        precondition(done == 1 && length == 32, "libcrypto's SHA-512/256 failed")
        return digest
    }
}
