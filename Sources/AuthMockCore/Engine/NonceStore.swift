internal import Crypto
import Foundation

/// Mints and recognises Digest nonces.
///
/// A nonce carries its issue time and the index of the challenge it was issued for, and is signed with a
/// key chosen at start. The signature lets the engine tell a nonce it issued but has since forgotten
/// (evicted, or cleared by a reset: stale, the client may retry) from one it never issued (forged).
struct NonceMinter: Sendable {
    private let key: SymmetricKey

    init(random: inout some RandomNumberGenerator) {
        key = SymmetricKey(data: random.bytes(32))
    }

    struct Decoded: Equatable {
        var issuedAt: Date
        var challengeIndex: Int
    }

    func mint(at time: Date, challengeIndex: Int, random: inout some RandomNumberGenerator) -> String {
        let millis = UInt64(max(0, time.timeIntervalSince1970 * 1000))
        var payload: [UInt8] = []
        payload.reserveCapacity(29)
        withUnsafeBytes(of: millis.bigEndian) { payload.append(contentsOf: $0) }
        payload.append(UInt8(truncatingIfNeeded: challengeIndex))
        payload += random.bytes(8)
        let mac = HMAC<SHA256>.authenticationCode(for: payload, using: key)
        return Base64.encode(payload + Array(mac).prefix(12), urlSafe: true)
    }

    func decode(_ nonce: String) -> Decoded? {
        guard nonce.utf8.count == 39, let bytes = Self.decodeURLSafe(nonce), bytes.count == 29 else { return nil }
        let payload = Array(bytes[0..<17])
        let mac = Array(HMAC<SHA256>.authenticationCode(for: payload, using: key)).prefix(12)
        guard constantTimeEquals(mac, bytes[17...]) else { return nil }
        let millis = payload[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Decoded(issuedAt: Date(timeIntervalSince1970: Double(millis) / 1000), challengeIndex: Int(payload[8]))
    }

    private static func decodeURLSafe(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Base64.decodeStrict(Substring(standard).utf8)
    }
}

/// The nonces the engine remembers, with their use counts and last `nc`, bounded in size.
struct NonceStore: Sendable, Equatable {
    struct Record: Sendable, Equatable {
        var challengeIndex: Int
        var issuedAt: Date
        var uses = 0
        var lastNC: UInt32 = 0
        /// How many nonces were issued before this one (since start or reset).
        var serial = 0
    }

    let capacity: Int
    private var records: [String: Record] = [:]
    /// Insertion order, as a ring, for oldest-first eviction.
    private var order: [String] = []
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0, "nonce capacity must be positive")
        self.capacity = capacity
    }

    var count: Int { records.count }

    subscript(nonce: String) -> Record? {
        get { records[nonce] }
        set { records[nonce] = newValue }
    }

    mutating func insert(_ nonce: String, _ record: Record) {
        if order.count < capacity {
            order.append(nonce)
        } else {
            records[order[head]] = nil
            order[head] = nonce
            head = (head + 1) % capacity
        }
        records[nonce] = record
    }

    mutating func removeAll() {
        records.removeAll()
        order.removeAll()
        head = 0
    }
}
