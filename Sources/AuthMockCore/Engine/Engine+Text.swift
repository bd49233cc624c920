#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text of answers: plain bodies, reason phrases, `{user}` and `{name}` templates, scheme names.
extension Engine {
    /// A `text/plain` answer.
    static func plain(status: Int, _ text: String, close: Bool = false) -> Response {
        Response(
            status: status, headers: [HeaderField("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8),
            closeConnection: close
        )
    }

    /// A credentials field split into its scheme and what follows it: Basic's token68, or NTLM's and
    /// Negotiate's base64 token (Digest's parameters are parsed from the whole field).
    static func schemeAndToken(_ field: String) -> (scheme: String, token: Substring) {
        let scheme = leadingTokenRange(field)
        return (String(field[scheme]), field[scheme.upperBound...])
    }

    /// The auth-scheme at the start of a header value; empty when it does not start with a token.
    package static func leadingToken(_ text: String) -> String {
        String(text[leadingTokenRange(text)])
    }

    /// Where the leading token is, after spaces and tabs, cut to 64 bytes. By UTF-8 index: a token's
    /// characters are ASCII, so its bounds are characters' too, and cutting by bytes is cutting by
    /// characters without walking grapheme clusters.
    private static func leadingTokenRange(_ text: String) -> Range<String.Index> {
        let utf8 = text.utf8
        let start = utf8.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? utf8.endIndex
        let end = utf8[start...].firstIndex { !AuthHeader.isTokenChar($0) } ?? utf8.endIndex
        return start..<(utf8.index(start, offsetBy: 64, limitedBy: end) ?? end)
    }

    /// A body template with `{user}` replaced, as bytes (on the hot path: no Foundation bridging).
    static func render(_ template: String, user: String) -> [UInt8] {
        // Over the template's bytes by offset: walking the UTF-8 view by its own indices cost 2.8k instructions a 200.
        var template = template
        return template.withUTF8 { text in
            var bytes: [UInt8] = []
            bytes.reserveCapacity(text.count + user.utf8.count)
            var copied = 0, at = 0
            while at < text.count {
                if text[at] == UInt8(ascii: "{"), text.count - at >= userPlaceholder.count,
                    userPlaceholder.indices.allSatisfy({ text[at + $0] == userPlaceholder[$0] })
                {
                    bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied..<at]))
                    bytes.append(contentsOf: user.utf8)
                    at += userPlaceholder.count
                    copied = at
                } else {
                    at += 1
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: text[copied...]))
            return bytes
        }
    }

    private static let userPlaceholder = Array("{user}".utf8)

    /// Replaces `{name}` by `values[name]`; unknown names stay as they are.
    static func fill(_ text: String, _ values: [String: String]) -> String {
        var result = text
        for (name, value) in values { result = result.replacing("{\(name)}", with: value) }
        return result
    }

    /// Reason phrases for the statuses authmock sends.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 407: return "Proxy Authentication Required"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        default: return "Status \(status)"
        }
    }
}
