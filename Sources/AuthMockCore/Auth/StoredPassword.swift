internal import CCrypt
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Synchronization

/// A password the scenario knows only by a one-way hash, as Apache's user files store it.
///
/// - `htpasswd` lines (Basic only: the hash cannot be turned back into the password Digest and NTLM need):
///   bcrypt `$2y$`/`$2b$`/`$2a$`, SHA-512-crypt `$6$`, SHA-256-crypt `$5$`, MD5-crypt `$1$` and DES crypt
///   through libcrypt; Apache's own `$apr1$` (MD5-crypt with another magic) and `{SHA}` (base64 SHA-1),
///   which libcrypt lacks, here.
/// - `htdigest` lines: `H(user:realm:password)` with MD5, which is exactly Digest's `H(A1)` for MD5 and
///   MD5-sess, and lets Basic check a password by hashing it the same way.
public enum StoredPassword: Sendable, Equatable, Hashable {
    /// A crypt(3) string libcrypt verifies.
    case crypt(String)
    /// `$apr1$salt$hash`.
    case apr1(String)
    /// `{SHA}base64`.
    case sha1(String)
    /// An htdigest entry: the realm it was made for and the lower-case hex MD5 of `user:realm:password`.
    case htdigest(realm: String, ha1: String)

    /// The hash as the file holds it (for htdigest: `realm:ha1`).
    var text: String {
        switch self {
        case .crypt(let hash), .apr1(let hash), .sha1(let hash): hash
        case .htdigest(let realm, let ha1): "\(realm):\(ha1)"
        }
    }

    /// Whether checking a password costs many hash rounds (crypt(3) formats, apr1's 1,000 MD5s), so that
    /// results are worth remembering; `{SHA}` and htdigest are one hash.
    var isSlow: Bool {
        switch self {
        case .crypt, .apr1: true
        case .sha1, .htdigest: false
        }
    }

    /// The hash's name, for banners and the ready line: `bcrypt`, `sha512-crypt`, `apr1`, `htdigest`…
    public var scheme: String {
        switch self {
        case .apr1: return "apr1"
        case .sha1: return "sha1"
        case .htdigest: return "htdigest"
        case .crypt(let hash):
            if hash.hasPrefix("$2") { return "bcrypt" }
            if hash.hasPrefix("$6$") { return "sha512-crypt" }
            if hash.hasPrefix("$5$") { return "sha256-crypt" }
            if hash.hasPrefix("$1$") { return "md5-crypt" }
            return "des-crypt"
        }
    }

    /// Reads the hash field of an htpasswd line; nil when it is none of the formats above (plain text
    /// included: Apache accepts that on Windows only).
    public static func htpasswd(_ field: String) -> StoredPassword? {
        let bytes = Array(field.utf8)
        if field.hasPrefix("$apr1$") {
            return Self.md5CryptParts(bytes, magic: "$apr1$") == nil ? nil : .apr1(field)
        }
        if field.hasPrefix("{SHA}") {
            let digest = Data(base64Encoded: String(field.dropFirst(5)))
            return digest?.count == HashFunction.sha1.size ? .sha1(field) : nil
        }
        // bcrypt by its shape: probing it would cost a full bcrypt run per user at load.
        if ["$2y$", "$2b$", "$2a$"].contains(where: field.hasPrefix) {
            let cost = bytes[4..<min(bytes.count, 6)]
            let rest = bytes.dropFirst(7)
            let isDigits = cost.count == 2 && cost.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard bytes.count == 60, isDigits, bytes[6] == UInt8(ascii: "$"),
                (4...31).contains(Int(String(decoding: cost, as: UTF8.self)) ?? 0),
                rest.allSatisfy({ Self.itoa64.contains($0) })
            else { return nil }
            return .crypt(field)
        }
        let cryptPrefixes = ["$5$", "$6$", "$1$"]
        if cryptPrefixes.contains(where: field.hasPrefix) {
            // libcrypt says whether it is well formed: hashing any word with it as the setting must give
            // a hash of the same shape (a bare setting such as `$6$` has no hash part to compare with).
            // The probe runs with the fewest rounds, so that loading never pays a hash's own `rounds=`.
            guard let setting = Self.fewestRounds(field),
                let probe = Self.crypt(Array("probe".utf8), setting: setting), probe.utf8.count == setting.utf8.count,
                let cut = setting.lastIndex(of: "$"), let probeCut = probe.lastIndex(of: "$"),
                setting[..<cut] == probe[..<probeCut]
            else { return nil }
            return .crypt(field)
        }
        // Traditional DES crypt: 2 salt and 11 hash characters from crypt's alphabet.
        // (A 13-character password in clear from that alphabet looks the same: it loads, and never matches.)
        if bytes.count == 13, bytes.allSatisfy({ Self.itoa64.contains($0) }),
            let probe = Self.crypt(Array("probe".utf8), setting: field), probe.utf8.count == 13,
            probe.prefix(2) == field.prefix(2)
        {
            return .crypt(field)
        }
        return nil
    }

    /// A SHA-crypt hash with its `rounds=N` lowered to libcrypt's minimum, 1000: the same shape, probed
    /// in well under a millisecond where N (up to 999,999,999) can take minutes. nil when libcrypt would
    /// refuse N (below 1000, above 999,999,999, or with a leading zero); the hash itself when it names no
    /// rounds.
    static func fewestRounds(_ field: String) -> String? {
        let bytes = Array(field.utf8)
        let tag = Array("rounds=".utf8)
        guard bytes.count > 3, bytes[1] != UInt8(ascii: "1"), bytes[3...].starts(with: tag) else { return field }
        let digitsStart = 3 + tag.count
        let digits = bytes[digitsStart...].prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
        let end = digitsStart + digits.count
        guard end < bytes.count, bytes[end] == UInt8(ascii: "$"), digits.first != UInt8(ascii: "0"), digits.count <= 9,
            let rounds = Int(String(decoding: digits, as: UTF8.self)), rounds >= 1000
        else { return nil }
        return String(decoding: bytes[..<3] + Array("rounds=1000".utf8) + bytes[end...], as: UTF8.self)
    }

    /// Whether `candidate` (the password's bytes as the client sent them) is the stored password.
    /// `user` is needed for htdigest entries, which hash the name in.
    public func verify(_ candidate: [UInt8], user: String) -> Bool {
        let stored: [UInt8]
        let computed: [UInt8]?
        switch self {
        case .sha1(var hash):
            // The most common hash of a bench or a test suite, checked in place: the digest's base64 against
            // the stored text after its `{SHA}` (not secret), without copying either into an array.
            var encoded = Base64.encode(HashFunction.sha1.hash(candidate))
            return hash.withUTF8 { text in
                encoded.withUTF8 { encoded in
                    text.starts(with: Self.shaTag)
                        && constantTimeEquals(UnsafeBufferPointer(rebasing: text[Self.shaTag.count...]), encoded)
                }
            }
        case .crypt(let hash):
            stored = Array(hash.utf8)
            computed = Self.crypt(candidate, setting: hash).map { Array($0.utf8) }
        case .apr1(let hash):
            stored = Array(hash.utf8)
            computed = Self.md5CryptParts(stored, magic: "$apr1$").map {
                Array(Self.md5Crypt(candidate, salt: $0, magic: "$apr1$").utf8)
            }
        case .htdigest(let realm, let ha1):
            stored = Array(ha1.utf8)
            computed = Array(DigestAlgorithm.md5.hash(Array("\(user):\(realm):".utf8) + candidate).utf8)
        }
        guard let computed else { return false }
        return constantTimeEquals(computed, stored)
    }

    private static let shaTag = Array("{SHA}".utf8)

    // MARK: - crypt(3) through libcrypt

    /// `crypt_rn(candidate, setting)`; nil when libcrypt refuses (unknown or malformed setting) or the
    /// password holds a NUL byte, which crypt cannot take.
    static func crypt(_ candidate: [UInt8], setting: String) -> String? {
        guard !candidate.contains(0) else { return nil }
        // `struct crypt_data` is 32 KiB: on the heap, not the stack.
        let size = MemoryLayout<crypt_data>.size
        let data = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<crypt_data>.alignment)
        defer { data.deallocate() }
        data.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let phrase = candidate.map { CChar(bitPattern: $0) } + [0]
        let output: String? = phrase.withUnsafeBufferPointer { phrase in
            setting.withCString { setting in
                crypt_rn(phrase.baseAddress, setting, data, Int32(size)).map { String(cString: $0) }
            }
        }
        // Failures come back as NULL or as a string starting with '*'.
        guard let output, !output.hasPrefix("*") else { return nil }
        return output
    }

    // MARK: - MD5-crypt, for Apache's $apr1$

    static let itoa64 = Array("./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The salt of `magic salt $ hash`, when the rest is well formed (salt 1–8 characters, 22 hash characters).
    static func md5CryptParts(_ hash: [UInt8], magic: String) -> [UInt8]? {
        let rest = hash.dropFirst(magic.utf8.count)
        guard let dollar = rest.firstIndex(of: UInt8(ascii: "$")) else { return nil }
        let salt = Array(rest[..<dollar])
        let encoded = rest[(dollar + 1)...]
        guard (1...8).contains(salt.count), encoded.count == 22, encoded.allSatisfy({ itoa64.contains($0) }) else {
            return nil
        }
        return salt
    }

    /// Poul-Henning Kamp's MD5-crypt, as FreeBSD's `$1$` and APR's `$apr1$` (which differ only in `magic`).
    static func md5Crypt(_ password: [UInt8], salt: [UInt8], magic: String) -> String {
        let magicBytes = Array(magic.utf8)
        // Each MD5 over its parts laid end to end (what updating one context part by part hashes).
        var message = password + magicBytes + salt
        let alternate = HashFunction.md5.hash(password + salt + password)
        var remaining = password.count
        while remaining > 0 {
            message += alternate.prefix(min(remaining, 16))
            remaining -= 16
        }
        var bits = password.count
        while bits != 0 {
            message.append(bits & 1 != 0 ? 0 : password.first ?? 0)
            bits >>= 1
        }
        var final = HashFunction.md5.hash(message)
        for round in 0..<1000 {
            message = round & 1 != 0 ? password : final
            if round % 3 != 0 { message += salt }
            if round % 7 != 0 { message += password }
            message += round & 1 != 0 ? final : password
            final = HashFunction.md5.hash(message)
        }
        var encoded: [UInt8] = []
        func to64(_ value: UInt32, _ count: Int) {
            var value = value
            for _ in 0..<count {
                encoded.append(itoa64[Int(value & 0x3F)])
                value >>= 6
            }
        }
        for (a, b, c) in [(0, 6, 12), (1, 7, 13), (2, 8, 14), (3, 9, 15), (4, 10, 5)] {
            to64(UInt32(final[a]) << 16 | UInt32(final[b]) << 8 | UInt32(final[c]), 4)
        }
        to64(UInt32(final[11]), 2)
        return magic + String(decoding: salt, as: UTF8.self) + "$" + String(decoding: encoded, as: UTF8.self)
    }
}

/// Remembers which (stored hash, candidate) pairs verified, so that a client sending the same Basic
/// credentials on every request pays for bcrypt or SHA-512-crypt once, not per request.
///
/// Only a memo: it never changes an answer, only how long the answer takes. Keys are SHA-256 over the
/// stored hash and the candidate, so the candidate itself is not kept. Bounded: cleared when full.
final class PasswordVerificationMemo: Sendable {
    private let results = Mutex<[[UInt8]: Bool]>([:])
    static let capacity = 4096

    func verify(_ stored: StoredPassword, _ candidate: [UInt8], user: String) -> Bool {
        // One SHA-1 or MD5 costs less than the memo's own SHA-256, lock and lookup.
        guard stored.isSlow else { return stored.verify(candidate, user: user) }
        let key = Self.key(stored, candidate, user: user)
        if let known = results.withLock({ $0[key] }) { return known }
        let result = stored.verify(candidate, user: user)
        results.withLock {
            if $0.count >= Self.capacity { $0.removeAll(keepingCapacity: true) }
            $0[key] = result
        }
        return result
    }

    func isKnown(_ stored: StoredPassword, _ candidate: [UInt8], user: String) -> Bool {
        let key = Self.key(stored, candidate, user: user)
        return results.withLock { $0[key] != nil }
    }

    private static func key(_ stored: StoredPassword, _ candidate: [UInt8], user: String) -> [UInt8] {
        // Built from the hash's own text: string interpolation of the enum went through reflection.
        HashFunction.sha256.hash(Array("\(stored.scheme)\u{0}\(stored.text)\u{0}\(user)\u{0}".utf8) + candidate)
    }
}

extension Engine {
    /// The slow part of answering `request`, to be run off the event loop first: checking Basic
    /// credentials against a crypt(3) hash (bcrypt costs milliseconds to seconds, by design) that was not
    /// checked before. Running it fills the memo, so that ``handle(_:now:random:)`` then answers at once.
    /// nil when there is nothing slow to do. The answer is the same whether or not this runs.
    public func slowPasswordCheck(_ request: Request) -> (@Sendable () -> Void)? {
        // Only what `decide` would pass to `verifyBasic`: a protected resource, one field, scheme Basic, a
        // Basic challenge offered.
        // Most scenarios have no crypt(3) hash at all: say so before touching the request. Changes only
        // ever add clear passwords, so the scenario's users tell.
        guard hasCryptHashes else { return nil }
        let fields = request.headers.values(hop.credentialsHeader)
        guard fields.count == 1, basicChallenge != nil,
            scenario.resource(forPath: request.resourcePath)?.protected == true
        else { return nil }
        let (scheme, token) = Self.schemeAndToken(fields[0])
        guard AuthScheme(token: scheme) == .basic, let decoded = Base64.decodeStrict(token.trimmingOWS().utf8),
            let parts = BasicCredentials(decoded)
        else { return nil }
        let checks = basicHashChecks(parts).filter { !passwordMemo.isKnown($0.stored, $0.candidate, user: $0.user) }
        guard !checks.isEmpty else { return nil }
        let memo = passwordMemo
        return {
            for check in checks { _ = memo.verify(check.stored, check.candidate, user: check.user) }
        }
    }
}
