#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Mints and recognises Digest nonces.
///
/// A nonce carries its issue time and the index of the challenge it was issued for, and is signed with a
/// key chosen at start. The signature lets the engine tell a nonce it issued but has since forgotten
/// (evicted, or cleared by a reset: stale, the client may retry) from one it never issued (forged).
struct NonceMinter: Sendable {
    /// HMAC-SHA256 keyed once: each nonce copies it instead of keying a new one.
    private let keyed: HMACKey

    /// What follows the signed part of every nonce (`nonce.size`): base64url letters in a fixed cycle, so
    /// a nonce cut anywhere is a nonce never issued.
    let padding: String

    init(random: inout some RandomNumberGenerator, size: Int = NoncePolicy.minimumSize) {
        keyed = HMACKey(.sha256, key: random.bytes(32))
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        padding = String((0..<max(0, size - NoncePolicy.minimumSize)).map { alphabet[$0 % alphabet.count] })
    }

    private func mac(_ payload: [UInt8]) -> [UInt8] {
        keyed.mac(payload)
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
        return Base64.encode(payload + mac(payload).prefix(12), urlSafe: true) + padding
    }

    /// The characters a nonce of this server has.
    var size: Int { NoncePolicy.minimumSize + padding.utf8.count }

    func decode(_ nonce: String) -> Decoded? {
        var nonce = nonce
        // Over the nonce's bytes in place: every Digest request with credentials comes through here.
        let bytes = nonce.withUTF8 { text -> [UInt8]? in
            guard text.count == size else { return nil }
            let signed = UnsafeBufferPointer(rebasing: text[..<NoncePolicy.minimumSize])
            guard padding.isEmpty || text[NoncePolicy.minimumSize...].elementsEqual(padding.utf8) else { return nil }
            return Self.decodeURLSafe(signed)
        }
        guard let bytes, bytes.count == 29 else { return nil }
        let payload = Array(bytes[0..<17])
        guard constantTimeEquals(mac(payload).prefix(12), bytes[17...]) else { return nil }
        let millis = payload[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        return Decoded(issuedAt: Date(timeIntervalSince1970: Double(millis) / 1000), challengeIndex: Int(payload[8]))
    }

    /// base64url without padding, by bytes (Foundation's string replacing cost a third of a Digest request).
    private static func decodeURLSafe(_ text: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        var standard: [UInt8] = []
        standard.reserveCapacity(text.count + 3)
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): standard.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): standard.append(UInt8(ascii: "/"))
            // Not base64url: stays invalid.
            case UInt8(ascii: "+"), UInt8(ascii: "/"): standard.append(UInt8(ascii: "!"))
            default: standard.append(byte)
            }
        }
        while standard.count % 4 != 0 { standard.append(UInt8(ascii: "=")) }
        return Base64.decodeStrict(standard)
    }
}

/// The nonces the engine remembers, with their use counts and last `nc`, bounded in size.
struct NonceStore: Sendable, Equatable {
    struct Record: Sendable, Equatable {
        var challengeIndex: Int
        var issuedAt: Date
        var uses = 0
        var ncSeen = NCWindow()
        /// How many nonces were issued before this one (since start or reset).
        var serial = 0
        /// Issued as the `nextnonce` of an `Authentication-Info`, not in a challenge.
        var nextnonce = false
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

/// The nc values seen with one nonce, for replay detection as RFC 7616 §3.4 defines it: a replay is an nc
/// value seen twice. Values may arrive out of order — a client's parallel connections deliver nc 4 before
/// nc 3 — so the window remembers the highest nc and which of the `width` below it were seen (the sliding
/// window of IPsec's anti-replay check, RFC 4303 §3.4.3); older values cannot be told from replays.
struct NCWindow: Sendable, Equatable {
    static let width: UInt32 = 64

    enum Admission: Equatable {
        case admitted
        case seen
        case tooOld(highest: UInt32)
    }

    /// 0: none seen yet (nc counts from 1).
    private(set) var highest: UInt32 = 0
    /// Bit i: `highest - i` was seen.
    private var seen: UInt64 = 0

    /// Records `nc` unless it was seen (or is too old to know).
    mutating func admit(_ nc: UInt32) -> Admission {
        if nc > highest {
            let shift = nc - highest
            seen = shift >= Self.width ? 0 : seen << UInt64(shift)
            seen |= 1
            highest = nc
            return .admitted
        }
        let offset = highest - nc
        guard offset < Self.width else { return .tooOld(highest: highest) }
        let bit: UInt64 = 1 << UInt64(offset)
        guard seen & bit == 0 else { return .seen }
        seen |= bit
        return .admitted
    }
}
