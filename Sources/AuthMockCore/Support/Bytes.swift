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
        let bytes = Array(self)
        // Written straight into the string's storage: no array of digits in between (a Digest 200 makes five).
        return String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (i, byte) in bytes.enumerated() {
                out[2 * i] = hexDigits[Int(byte >> 4)]
                out[2 * i + 1] = hexDigits[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
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
        let whole = input.count / 3, rest = input.count % 3
        let length = whole * 4 + (rest == 0 ? 0 : urlSafe ? rest + 1 : 4)
        // Written straight into the string's storage (every Digest challenge's nonce is encoded here).
        return String(unsafeUninitializedCapacity: length) { out in
            var at = 0
            func put(_ n: UInt32, _ shift: UInt32) {
                out[at] = table[Int(n >> shift & 63)]
                at += 1
            }
            for group in 0..<whole {
                let i = group * 3
                let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
                put(n, 18)
                put(n, 12)
                put(n, 6)
                put(n, 0)
            }
            if rest > 0 {
                let i = whole * 3
                var n = UInt32(input[i]) << 16
                if rest == 2 { n |= UInt32(input[i + 1]) << 8 }
                put(n, 18)
                put(n, 12)
                if rest == 2 { put(n, 6) }
                if !urlSafe {
                    for _ in rest..<3 {
                        out[at] = UInt8(ascii: "=")
                        at += 1
                    }
                }
            }
            return at
        }
    }

    /// Strict standard base64: the alphabet of RFC 4648 §4, padded to a multiple of four, no white space,
    /// and no stray bits in the last character. Returns nil for anything else.
    static func decodeStrict(_ text: some Collection<UInt8>) -> [UInt8]? {
        // On the hot path of every Basic request and every Digest nonce: the text read in place when its storage
        // is contiguous (a native string's UTF-8 is), the table through a pointer, the bytes written straight
        // into the result; copying the text into an array went element by element for a substring's UTF-8.
        if let decoded = text.withContiguousStorageIfAvailable({ decodeStrict(bytes: $0) }) { return decoded }
        return Array(text).withUnsafeBufferPointer { decodeStrict(bytes: $0) }
    }

    private static func decodeStrict(bytes chars: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard chars.count % 4 == 0 else { return nil }
        let equals = UInt8(ascii: "=")
        // Padding may only end the last group; an '=' anywhere else is not in the alphabet below.
        var padding = 0
        if chars.last == equals { padding = chars.count >= 2 && chars[chars.count - 2] == equals ? 2 : 1 }
        let length = chars.count / 4 * 3 - padding
        return decodeTable.withUnsafeBufferPointer { table -> [UInt8]? in
            var valid = true
            let out = [UInt8](unsafeUninitializedCapacity: length) { out, written in
                var index = 0
                while index < chars.count {
                    let pad = index + 4 == chars.count ? padding : 0
                    var n: UInt32 = 0
                    for offset in 0..<4 {
                        var value: UInt8 = 0
                        if offset < 4 - pad {
                            value = table[Int(chars[index + offset])]
                            guard value != 0xFF else {
                                valid = false
                                return
                            }
                        }
                        n = n << 6 | UInt32(value)
                    }
                    // Non-canonical encodings (stray bits under the padding) are rejected too.
                    if pad == 1 && n & 0xFF != 0 || pad == 2 && n & 0xFFFF != 0 {
                        valid = false
                        return
                    }
                    out[written] = UInt8(n >> 16 & 0xFF)
                    written += 1
                    if pad < 2 {
                        out[written] = UInt8(n >> 8 & 0xFF)
                        written += 1
                    }
                    if pad < 1 {
                        out[written] = UInt8(n & 0xFF)
                        written += 1
                    }
                    index += 4
                }
            }
            return valid ? out : nil
        }
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
