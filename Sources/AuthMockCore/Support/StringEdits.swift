/// The few string edits the code used from Foundation's NSString bridge, which FoundationEssentials lacks.
/// They work on Unicode scalars, as Foundation's did.
extension StringProtocol {
    /// Without leading and trailing blanks: what `trimmingCharacters(in: .whitespaces)` removed (the
    /// space separators, Unicode category Zs, and tab).
    public func trimmingBlanks() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without leading and trailing white space and newlines: what
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` removed (categories Z*, U+000A–U+000D, U+0085).
    public func trimmingWhitespace() -> String {
        trimming { scalar in
            switch scalar.properties.generalCategory {
            case .spaceSeparator, .lineSeparator, .paragraphSeparator: return true
            default: return scalar == "\t" || (0x0A...0x0D).contains(scalar.value) || scalar.value == 0x85
            }
        }
    }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }),
            let last = scalars.lastIndex(where: { !isTrimmed($0) })
        else { return "" }
        return String(String.UnicodeScalarView(scalars[first...last]))
    }
}

/// Percent-encoding of URL parts (`addingPercentEncoding(withAllowedCharacters:)` and
/// `removingPercentEncoding`, which FoundationEssentials does not offer in that form).
public enum PercentEncoding {
    /// Every UTF-8 byte of a scalar that `isAllowed` refuses becomes `%XX` (upper-case hex).
    public static func encode(_ text: String, allowing isAllowed: (Unicode.Scalar) -> Bool) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if isAllowed(scalar) {
                result.unicodeScalars.append(scalar)
            } else {
                for byte in String(scalar).utf8 {
                    result += "%" + String(byte >> 4, radix: 16, uppercase: true)
                        + String(byte & 0x0F, radix: 16, uppercase: true)
                }
            }
        }
        return result
    }

    /// RFC 3986 §2.3's unreserved characters: ASCII letters and digits, `-`, `.`, `_` and `~`.
    public static func isUnreserved(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (isAlphanumeric(scalar) || "-._~".unicodeScalars.contains(scalar))
    }

    /// An ASCII letter or digit.
    public static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    /// `%XX` sequences decoded; nil when one is malformed or the bytes are not UTF-8.
    public static func decode(_ text: String) -> String? {
        decode(text.utf8, plusIsSpace: false)
    }

    /// `%XX` sequences decoded, and with `plusIsSpace` (form encoding) `+` as a space; nil when an escape is
    /// malformed or the bytes are not UTF-8.
    static func decode(_ encoded: some Collection<UInt8>, plusIsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var iterator = encoded.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
