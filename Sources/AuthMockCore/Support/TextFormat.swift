#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The few number formats the reports and notes print, without Foundation's `String(format:)` (which
/// FoundationEssentials lacks): fixed-point through the C library's own printf, so the digits (and the
/// rounding of ties) are exactly those `String(format: "%.3f")` printed; hex and zero padding by hand.
public enum TextFormat {
    /// `value` with `places` digits after the point, as printf's `%.<places>f` in the C locale.
    public static func fixed(_ value: Double, places: Int) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        let written = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.\(places)f", $0) }
        if written >= buffer.count {
            buffer = [CChar](repeating: 0, count: Int(written) + 1)
            _ = withVaList([value]) { vsnprintf(&buffer, buffer.count, "%.\(places)f", $0) }
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Lower-case hex, zero-padded to `width` digits: printf's `%0<width>x`.
    public static func hex(_ value: some BinaryInteger, width: Int) -> String {
        padded(String(value, radix: 16), width: width)
    }

    /// Decimal, zero-padded to `width` digits: printf's `%0<width>d` (for values ≥ 0).
    public static func decimal(_ value: some BinaryInteger, width: Int) -> String {
        padded(String(value), width: width)
    }

    private static func padded(_ digits: String, width: Int) -> String {
        digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
