/// Where a request to the forward proxy wants to go: `CONNECT host:port` or `GET http://host:port/path`.
public struct ProxyTarget: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var isConnect: Bool
    /// For absolute-form requests: the origin-form target (`/path?query`) to hand to the origin.
    public var originForm: String

    /// Longest target accepted; longer ones are refused (414).
    public static let maxLength = 4096

    public static func parse(method: String, target: String) throws(ProxyTargetError) -> ProxyTarget {
        guard target.utf8.count <= maxLength else {
            throw ProxyTargetError(
                status: 414, "the request target is \(target.utf8.count) bytes, more than \(maxLength)"
            )
        }
        // Byte by byte: the grammar is ASCII, and a Character would join a combining mark to the
        // delimiter before it ("]\u{301}" is not "]"), so the same host could parse one way and not the other.
        if method == "CONNECT" {
            let (host, port) = try authority(target[...], defaultPort: nil)
            return ProxyTarget(host: host, port: port, isConnect: true, originForm: "")
        }
        if hasPrefixIgnoringASCIICase(target, "https://") {
            throw ProxyTargetError(
                status: 400, "absolute-form https:// targets are not forwarded; use CONNECT for HTTPS"
            )
        }
        guard hasPrefixIgnoringASCIICase(target, "http://") else {
            throw ProxyTargetError(
                status: 400,
                "a proxy request needs absolute-form (http://host/path) or CONNECT, not '\(target.prefix(100))'"
            )
        }
        let rest = target.utf8.dropFirst("http://".utf8.count)
        let authorityEnd = rest.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? rest.endIndex
        let (host, port) = try authority(target[rest.startIndex..<authorityEnd], defaultPort: 80)
        var originForm = String(target[authorityEnd...])
        if originForm.isEmpty || originForm.utf8.first == UInt8(ascii: "?") { originForm = "/" + originForm }
        return ProxyTarget(host: host, port: port, isConnect: false, originForm: originForm)
    }

    /// Whether the host is a loopback name or address: the only places authmock's proxy goes.
    public var isLoopback: Bool {
        let h = host.lowercased()
        if h == "localhost" || h == "::1" { return true }
        let parts = h.split(separator: ".")
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }

    private static func authority(_ text: Substring, defaultPort: Int?) throws(ProxyTargetError) -> (String, Int) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw ProxyTargetError(status: 400, "the target has no host") }
        guard !bytes.contains(UInt8(ascii: "@")) else {
            throw ProxyTargetError(status: 400, "userinfo in the proxy target is not allowed")
        }
        let host: ArraySlice<UInt8>
        var portText: ArraySlice<UInt8>?
        if bytes[0] == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else {
                throw ProxyTargetError(status: 400, "unterminated IPv6 address in '\(text)'")
            }
            host = bytes[1..<close]
            let after = bytes[(close + 1)...]
            if after.first == UInt8(ascii: ":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw ProxyTargetError(status: 400, "bad authority '\(text)'")
            }
        } else if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            host = bytes[..<colon]
            portText = bytes[(colon + 1)...]
        } else {
            host = bytes[...]
        }
        // RFC 3986's host is ASCII (a name beyond ASCII travels as punycode): letters, digits, '.', '-',
        // and ':' for IPv6.
        guard !host.isEmpty, host.allSatisfy(isHostByte) else {
            throw ProxyTargetError(status: 400, "the target has no valid host ('\(text.prefix(100))')")
        }
        let port: Int
        if let portText {
            // `port = *DIGIT` (RFC 3986 §3.2.3): Int(_:) would also take a sign.
            guard portText.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let value = Int(String(decoding: portText, as: UTF8.self)), (1...65535).contains(value)
            else { throw ProxyTargetError(status: 400, "bad port in '\(text.prefix(100))'") }
            port = value
        } else if let defaultPort {
            port = defaultPort
        } else {
            throw ProxyTargetError(status: 400, "CONNECT needs host:port, got '\(text.prefix(100))'")
        }
        return (String(decoding: host, as: UTF8.self), port)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ":"):
            return true
        default:
            return false
        }
    }

    private static func hasPrefixIgnoringASCIICase(_ text: String, _ prefix: String) -> Bool {
        let lowered = text.utf8.prefix(prefix.utf8.count).map {
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) ? $0 | 0x20 : $0
        }
        return lowered.elementsEqual(prefix.utf8)
    }
}

public struct ProxyTargetError: Error, Equatable {
    public var status: Int
    public var reason: String
    init(status: Int, _ reason: String) {
        self.status = status
        self.reason = reason
    }
}
