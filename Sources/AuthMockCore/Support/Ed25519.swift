internal import CLibCrypto

/// An Ed25519 signing key (RFC 8032) through libcrypto: what signs the token endpoint's JWT access tokens
/// (JWS `EdDSA`, RFC 8037).
///
/// Chosen over ES256 and RS256 because both its key and its signatures are deterministic: the key is 32 bytes
/// of the engine's random source, and the same message always has the same signature, so a seeded engine
/// issues the same tokens every run, as it does its nonces. Read-only once made; libcrypto's EVP_PKEY may be
/// used from several threads for signing.
final class Ed25519Key: @unchecked Sendable {
    /// The 32-byte public key, as a JWK's `x` carries it (base64url).
    let publicKey: [UInt8]
    private let key: OpaquePointer

    /// The key whose private part is `seed` (32 bytes); nil when libcrypto refuses it.
    init?(seed: [UInt8]) {
        guard seed.count == 32,
            let key = seed.withUnsafeBufferPointer({
                EVP_PKEY_new_raw_private_key(Self.ed25519, nil, $0.baseAddress, 32)
            })
        else { return nil }
        var length = 32
        var publicKey = [UInt8](repeating: 0, count: 32)
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == 32 else {
            EVP_PKEY_free(key)
            return nil
        }
        self.key = key
        self.publicKey = publicKey
    }

    deinit { EVP_PKEY_free(key) }

    /// The 64-byte signature of `message` (Ed25519 hashes the message itself: no digest is named).
    func sign(_ message: [UInt8]) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("libcrypto could not allocate a context") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else {
            preconditionFailure("libcrypto refused an Ed25519 key it made")
        }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        let signed = message.withUnsafeBufferPointer {
            EVP_DigestSign(context, &signature, &length, $0.baseAddress, $0.count)
        }
        precondition(signed == 1 && length == 64, "libcrypto could not sign with Ed25519")
        return signature
    }

    /// `EVP_PKEY_ED25519` (`NID_ED25519`).
    private static let ed25519: Int32 = 1087
}
