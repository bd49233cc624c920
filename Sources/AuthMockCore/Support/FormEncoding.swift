/// `application/x-www-form-urlencoded`, as token requests (RFC 6749 Appendix B), Basic client credentials
/// (§2.3.1) and Bearer form bodies (RFC 6750 §2.2) write it: `name=value` pairs joined by `&`, `+` for a
/// space, `%XX` for any other byte, UTF-8 underneath.
///
/// Strict where browsers are lenient: a `%` not followed by two hex digits, or bytes that are not UTF-8,
/// make the whole form unreadable, which the token endpoint answers with `invalid_request`.
enum FormEncoding {
    /// The pairs in order (empty pieces between `&&` skipped; a piece without `=` has an empty value); nil
    /// when an escape is malformed or a name or value is not UTF-8.
    static func decode(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)]? {
        var pairs: [(name: String, value: String)] = []
        for piece in Array(bytes).split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            guard let name = decodeComponent(piece[..<(equals ?? piece.endIndex)]) else { return nil }
            let value = equals.map { decodeComponent(piece[piece.index(after: $0)...]) } ?? ""
            guard let value else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    /// One name or value: `+` is a space, `%XX` a byte; nil when an escape is malformed or the result is not UTF-8.
    static func decodeComponent(_ bytes: some Collection<UInt8>) -> String? {
        PercentEncoding.decode(bytes, plusIsSpace: true)
    }
}
