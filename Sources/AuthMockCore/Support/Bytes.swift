/// Compares two byte sequences in time that depends only on their lengths, never on where they differ.
///
/// Used for every comparison of a secret or of a value derived from one (passwords, digests), so that a
/// client cannot learn a credential byte by byte from response times.
@inline(never)
public func constantTimeEquals(_ lhs: some Collection<UInt8>, _ rhs: some Collection<UInt8>) -> Bool {
    var difference = UInt(bitPattern: lhs.count ^ rhs.count)
    var left = lhs.makeIterator()
    var right = rhs.makeIterator()
    // Walk the longer of the two so the loop length does not reveal which is shorter.
    for _ in 0..<max(lhs.count, rhs.count) {
        let a = left.next() ?? 0
        let b = right.next() ?? 0
        difference |= UInt(a ^ b)
    }
    return difference == 0
}

private let hexDigits = Array("0123456789abcdef".utf8)

extension Sequence<UInt8> {
    /// Lower-case hexadecimal, as Digest uses for every hash.
    package var hexString: String {
        var chars: [UInt8] = []
        chars.reserveCapacity(underestimatedCount * 2)
        for byte in self {
            chars.append(hexDigits[Int(byte >> 4)])
            chars.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: chars, as: UTF8.self)
    }
}

enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
    private static let decodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, char) in alphabet.enumerated() { table[Int(char)] = UInt8(index) }
        return table
    }()

    /// Standard base64 with padding (RFC 4648 §4), or the URL-safe alphabet without padding (§5).
    static func encode(_ bytes: some Collection<UInt8>, urlSafe: Bool = false) -> String {
        let table = urlSafe ? urlAlphabet : alphabet
        let input = Array(bytes)
        var out: [UInt8] = []
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= input.count {
            let n = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)], table[Int(n >> 6 & 63)], table[Int(n & 63)]]
            index += 3
        }
        let rest = input.count - index
        if rest > 0 {
            var n = UInt32(input[index]) << 16
            if rest == 2 { n |= UInt32(input[index + 1]) << 8 }
            out += [table[Int(n >> 18 & 63)], table[Int(n >> 12 & 63)]]
            if rest == 2 { out.append(table[Int(n >> 6 & 63)]) }
            if !urlSafe { out += Array(repeating: UInt8(ascii: "="), count: 3 - rest) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Strict standard base64: the alphabet of RFC 4648 §4, padded to a multiple of four, no white space,
    /// and no stray bits in the last character. Returns nil for anything else.
    static func decodeStrict(_ text: some Collection<UInt8>) -> [UInt8]? {
        // On the hot path of every Basic request and every Digest nonce: one array in, one out, nothing
        // allocated per group of four.
        let chars = Array(text)
        guard chars.count % 4 == 0 else { return nil }
        let equals = UInt8(ascii: "=")
        // Padding may only end the last group; an '=' anywhere else is not in the alphabet below.
        var padding = 0
        if chars.last == equals { padding = chars.count >= 2 && chars[chars.count - 2] == equals ? 2 : 1 }
        var out: [UInt8] = []
        out.reserveCapacity(chars.count / 4 * 3)
        var index = 0
        while index < chars.count {
            let pad = index + 4 == chars.count ? padding : 0
            var n: UInt32 = 0
            for offset in 0..<4 {
                var value: UInt8 = 0
                if offset < 4 - pad {
                    value = decodeTable[Int(chars[index + offset])]
                    guard value != 0xFF else { return nil }
                }
                n = n << 6 | UInt32(value)
            }
            // Non-canonical encodings (stray bits under the padding) are rejected too.
            if pad == 1, n & 0xFF != 0 { return nil }
            if pad == 2, n & 0xFFFF != 0 { return nil }
            out.append(UInt8(n >> 16 & 0xFF))
            if pad < 2 { out.append(UInt8(n >> 8 & 0xFF)) }
            if pad < 1 { out.append(UInt8(n & 0xFF)) }
            index += 4
        }
        return out
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's OWS), by UTF-8 index: no Character walk.
    func trimmingOWS() -> Substring {
        let isOWS = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !isOWS($0) }), let last = utf8.lastIndex(where: { !isOWS($0) })
        else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
