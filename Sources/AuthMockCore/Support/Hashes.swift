internal import CLibCrypto

/// Every hash the core computes (Digest's MD5, SHA-256 and SHA-512/256, htpasswd's SHA-1 and MD5-crypt, NTLM's
/// MD5, journal and page fingerprints), and HMAC over them, from OpenSSL's libcrypto: the library NTLM's MD4
/// and DES already came from, and the only one SHA-512/256 (which swift-crypto lacks) came from. One C library
/// for the core's hashing, and no BoringSSL to compile for it: the fuzz targets, which build only the core, were
/// two thirds BoringSSL and swift-crypto (246 of 378 CPU-seconds).
enum HashFunction: Int, Sendable, CaseIterable {
    case md5, sha1, sha256, sha512_256

    /// The algorithm's name in libcrypto's default provider.
    var name: String {
        switch self {
        case .md5: "MD5"
        case .sha1: "SHA1"
        case .sha256: "SHA256"
        case .sha512_256: "SHA512-256"
        }
    }

    /// The digest's length in bytes.
    var size: Int {
        switch self {
        case .md5: 16
        case .sha1: 20
        case .sha256, .sha512_256: 32
        }
    }

    /// Each algorithm fetched once: `EVP_md5()` and its kind fetch it again, under a lock, on every use.
    /// Fetched algorithms are immutable and safe to share between threads.
    nonisolated(unsafe) private static let algorithms: [OpaquePointer] = allCases.map { function in
        // Fails only without the default provider: no hash could be computed then.
        guard let algorithm = EVP_MD_fetch(nil, function.name, nil) else {
            preconditionFailure("libcrypto has no \(function.name)")
        }
        return algorithm
    }

    var algorithm: OpaquePointer { Self.algorithms[rawValue] }

    func hash(_ message: some Collection<UInt8>) -> [UInt8] {
        message.withContiguousStorageIfAvailable(hash) ?? Array(message).withUnsafeBufferPointer(hash)
    }

    /// The hash of `parts` joined by `separator`, without joining them: each part's UTF-8 is hashed in place.
    /// (Digest's `H(HA1:nonce:nc:cnonce:qop:HA2)` built its 200-byte string append by append first.)
    func hash(joining parts: [String], separator: UInt8) -> [UInt8] {
        digest { update in
            var separator = separator
            for (index, part) in parts.enumerated() {
                if index > 0 { update(&separator, 1) }
                var part = part
                part.withUTF8 { update($0.baseAddress, $0.count) }
            }
        }
    }

    private func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> [UInt8] {
        digest { update in update(bytes.baseAddress, bytes.count) }
    }

    /// The digest of what `feed` hands its `update`, in order.
    ///
    /// MD5, SHA-1 and SHA-256 hash on a context on the stack through their low-level functions, which cannot
    /// fail; EVP allocates one and dispatches through the provider on every call. (Not the one-shot
    /// SHA256(): OpenSSL 3 implements it as EVP_Q_digest, which fetches the algorithm by name each time.)
    /// SHA-512/256 has no low-level function: EVP, with the algorithm fetched once.
    private func digest(_ feed: ((UnsafeRawPointer?, Int) -> Void) -> Void) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: size) { digest, initialized in
            switch self {
            case .md5:
                var context = MD5_CTX()
                MD5_Init(&context)
                feed { MD5_Update(&context, $0, $1) }
                MD5_Final(digest.baseAddress, &context)
            case .sha1:
                var context = SHA_CTX()
                SHA1_Init(&context)
                feed { SHA1_Update(&context, $0, $1) }
                SHA1_Final(digest.baseAddress, &context)
            case .sha256:
                var context = SHA256_CTX()
                SHA256_Init(&context)
                feed { SHA256_Update(&context, $0, $1) }
                SHA256_Final(digest.baseAddress, &context)
            case .sha512_256:
                let context = EVP_MD_CTX_new()
                defer { EVP_MD_CTX_free(context) }
                var length: UInt32 = 0
                var done = EVP_DigestInit_ex(context, algorithm, nil) == 1
                feed { done = done && EVP_DigestUpdate(context, $0, $1) == 1 }
                done = done && EVP_DigestFinal_ex(context, digest.baseAddress, &length) == 1
                // Fails only without memory: no answer could be right then.
                precondition(done && Int(length) == size, "libcrypto's \(name) failed")
            }
            initialized = size
        }
    }
}

/// HMAC (RFC 2104) with its key set once: each MAC starts from a copy of the keyed state, as a nonce minter
/// signing and checking every Digest nonce wants. HMAC-SHA-256 keeps the two keyed SHA-256 states itself (a
/// MAC is then three compressions on stack copies; EVP_MAC's copy, update, final and free of a provider
/// context cost 10k instructions a nonce); HMAC-MD5 (NTLMv2) is libcrypto's EVP_MAC. Both are pinned by the
/// RFC 2202 and RFC 4231 vectors in PrimitiveTests, the long-key case included.
final class HMACKey: @unchecked Sendable {
    /// Keyed once in `init` and never changed after: `mac` only copies it (a struct copy, or
    /// `EVP_MAC_CTX_dup`, which reads its source), so sharing it between threads is safe.
    private enum Keyed {
        case sha256(inner: SHA256_CTX, outer: SHA256_CTX)
        case mac(OpaquePointer)
    }

    private let keyed: Keyed
    private let size: Int

    init(_ function: HashFunction, key: [UInt8]) {
        size = function.size
        if function == .sha256 {
            keyed = Self.sha256States(key: key)
        } else {
            keyed = .mac(Self.evpMAC(function, key: key))
        }
    }

    deinit { if case .mac(let context) = keyed { EVP_MAC_CTX_free(context) } }

    /// RFC 2104 §2: the key (hashed first when longer than the 64-byte block) padded with zeros, XORed with
    /// 0x36 for the inner hash and 0x5c for the outer one; each hash is started on its block now.
    private static func sha256States(key: [UInt8]) -> Keyed {
        var block = key.count > 64 ? HashFunction.sha256.hash(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        var inner = SHA256_CTX(), outer = SHA256_CTX()
        SHA256_Init(&inner)
        SHA256_Init(&outer)
        SHA256_Update(&inner, block.map { $0 ^ 0x36 }, 64)
        SHA256_Update(&outer, block.map { $0 ^ 0x5c }, 64)
        return .sha256(inner: inner, outer: outer)
    }

    private static func evpMAC(_ function: HashFunction, key: [UInt8]) -> OpaquePointer {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { preconditionFailure("libcrypto has no HMAC") }
        defer { EVP_MAC_free(mac) }
        guard let context = EVP_MAC_CTX_new(mac) else { preconditionFailure("libcrypto could not allocate an HMAC") }
        let keyedOK = function.name.withCString { name in
            var parameters = [
                OSSL_PARAM_construct_utf8_string("digest", UnsafeMutablePointer(mutating: name), 0),
                OSSL_PARAM_construct_end(),
            ]
            return key.withUnsafeBufferPointer { EVP_MAC_init(context, $0.baseAddress, $0.count, &parameters) }
        }
        precondition(keyedOK == 1, "libcrypto could not key HMAC-\(function.name)")
        return context
    }

    /// One call: key, message, MAC.
    static func mac(_ function: HashFunction, key: [UInt8], _ message: some Collection<UInt8>) -> [UInt8] {
        HMACKey(function, key: key).mac(message)
    }

    func mac(_ message: some Collection<UInt8>) -> [UInt8] {
        switch keyed {
        case .sha256(var inner, var outer):
            let innerHash = message.withContiguousStorageIfAvailable { bytes in
                Self.finish(&inner, bytes.baseAddress, bytes.count)
            } ?? Array(message).withUnsafeBufferPointer { Self.finish(&inner, $0.baseAddress, $0.count) }
            return Self.finish(&outer, innerHash, innerHash.count)
        case .mac(let keyed):
            return evpMAC(keyed, message)
        }
    }

    private static func finish(_ state: inout SHA256_CTX, _ bytes: UnsafeRawPointer?, _ count: Int) -> [UInt8] {
        SHA256_Update(&state, bytes, count)
        return [UInt8](unsafeUninitializedCapacity: 32) { digest, initialized in
            SHA256_Final(digest.baseAddress, &state)
            initialized = 32
        }
    }

    private func evpMAC(_ keyed: OpaquePointer, _ message: some Collection<UInt8>) -> [UInt8] {
        guard let context = EVP_MAC_CTX_dup(keyed) else { preconditionFailure("libcrypto could not copy an HMAC") }
        defer { EVP_MAC_CTX_free(context) }
        let bytes = Array(message)
        var code = [UInt8](repeating: 0, count: size)
        var length = 0
        let done = bytes.withUnsafeBufferPointer { EVP_MAC_update(context, $0.baseAddress, $0.count) } == 1
            && EVP_MAC_final(context, &code, &length, size) == 1
        precondition(done && length == size, "libcrypto's HMAC failed")
        return code
    }
}
