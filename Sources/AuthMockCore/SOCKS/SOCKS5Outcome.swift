#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What one call of ``SOCKS5Session`` gives the shell.
public struct SOCKS5Step: Sendable, Equatable {
    /// Bytes to write to the client, in order (may be empty).
    public var reply: [UInt8]
    public var action: Action
    /// Set once the handshake ended, either way: what to journal.
    public var outcome: SOCKS5Outcome?

    public enum Action: Sendable, Equatable {
        /// Keep reading.
        case wait
        /// Close the connection once the reply is written.
        case close
        /// The CONNECT was granted: play the target origin on this connection, starting with `leftover`,
        /// the bytes the client sent after its request.
        case tunnel(SOCKS5Target, leftover: [UInt8])
    }
}

/// How a SOCKS5 handshake ended: what the journal records of it.
public struct SOCKS5Outcome: Sendable, Equatable {
    public var verdict: Verdict
    public var detail: String
    public var facts: SOCKS5Facts
    /// The RFC 1929 username and password, when the client sent them.
    public var user: String?
    public var password: String?
    /// Where the CONNECT asked to go, when the request was read.
    public var target: SOCKS5Target?
    /// The scenario's fault, when one was played.
    public var fault: SOCKS5Fault?
}

/// The SOCKS5 facts of a journal entry (`"socks5": {…}`), as far as the handshake got.
public struct SOCKS5Facts: Sendable, Equatable, Codable {
    /// The greeting's version byte (5; 4 from a SOCKS4 client).
    public var version: Int?
    /// The methods the client offered, in its order (`none`, `gssapi`, `username-password`, or hex).
    public var methods: [String]?
    /// The method the server selected.
    public var method: String?
    /// RFC 1929's status byte as sent: 0 for success.
    public var authStatus: Int?
    /// `connect`, `bind`, `udp-associate`, or the command's hex value.
    public var command: String?
    /// How the client named the target: `domain` (ATYP 3: the proxy resolves, as with `socks5h://`), `ipv4`
    /// or `ipv6` (the client resolved the name itself).
    public var address: String?
    /// The REP byte of the reply to the request: 0 granted, 2 not allowed, 7 command, 8 address type…
    public var reply: Int?

    public init() {}

    enum CodingKeys: String, CodingKey {
        case version, methods, method, command, address, reply
        case authStatus = "auth_status"
    }
}

/// Where a SOCKS5 request asks to go, as the client named it.
public struct SOCKS5Target: Sendable, Equatable {
    public enum AddressType: String, Sendable, Equatable, CaseIterable {
        case ipv4
        case domain
        case ipv6
    }

    public var host: String
    public var port: Int
    public var addressType: AddressType

    public init(host: String, port: Int, addressType: AddressType) {
        self.host = host
        self.port = port
        self.addressType = addressType
    }

    /// The address as the request carries it (ATYP 1, 3 with its length byte, or 4); nil for an empty name
    /// or an unknown type.
    init?(type: UInt8, address: ArraySlice<UInt8>, port high: UInt8, _ low: UInt8) {
        port = Int(high) << 8 | Int(low)
        switch type {
        case 0x01:
            host = address.map(String.init).joined(separator: ".")
            addressType = .ipv4
        case 0x04:
            host = Self.ipv6Text(Array(address))
            addressType = .ipv6
        case 0x03:
            guard address.count > 1 else { return nil }
            host = String(decoding: address.dropFirst(), as: UTF8.self)
            addressType = .domain
        default:
            return nil
        }
    }

    /// `host:port`, or `[v6]:port`.
    public var authority: String { addressType == .ipv6 ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether the target is a loopback name or address: the only places the listener goes.
    public var isLoopback: Bool {
        ProxyTarget(host: host, port: port, isConnect: true, originForm: "").isLoopback
    }

    /// RFC 5952 text: lower-case hex, the longest run of two or more zero groups as `::`.
    static func ipv6Text(_ bytes: [UInt8]) -> String {
        let groups = stride(from: 0, to: 16, by: 2).map { Int(bytes[$0]) << 8 | Int(bytes[$0 + 1]) }
        var best = (start: -1, length: 0)
        var index = 0
        while index < 8 {
            guard groups[index] == 0 else {
                index += 1
                continue
            }
            let start = index
            while index < 8, groups[index] == 0 { index += 1 }
            if index - start > best.length { best = (start, index - start) }
        }
        let text = groups.map { String($0, radix: 16) }
        guard best.length >= 2 else { return text.joined(separator: ":") }
        let head = text[..<best.start].joined(separator: ":")
        let tail = text[(best.start + best.length)...].joined(separator: ":")
        return head + "::" + tail
    }
}

extension JournalEntry {
    /// A SOCKS5 handshake as the journal keeps it: hop `socks5`, status 0 (nothing HTTP was answered), the
    /// request as `CONNECT host:port` when it was read, the RFC 1929 credentials, and the facts.
    public init(socks5 outcome: SOCKS5Outcome, connection: ConnectionInfo, time: Date) {
        let credentials = outcome.user.map {
            PresentedCredentials(header: "", scheme: "username-password", user: $0, password: outcome.password)
        }
        self.init(
            seq: 0, time: time, connection: connection.id, exchange: max(connection.exchange, 1),
            remote: connection.remote, method: outcome.target.map { _ in Self.socks5Method(outcome.facts.command) },
            target: outcome.target?.authority, version: "SOCKS5", headers: [], bodyBytes: 0,
            credentials: credentials, verdict: outcome.verdict, detail: outcome.detail, status: 0, challenges: nil,
            hop: .socks5
        )
        socks5 = outcome.facts
        fault = outcome.fault?.rawValue
    }

    /// The journal's method for a SOCKS5 command: CONNECT, BIND, UDP ASSOCIATE, or the command's hex value.
    static func socks5Method(_ command: String?) -> String {
        switch command {
        case "connect", nil: "CONNECT"
        case "bind": "BIND"
        case "udp-associate": "UDP ASSOCIATE"
        case let other?: other
        }
    }
}
