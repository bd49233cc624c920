#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One exchange as the journal records it: what arrived, what the engine made of it, what was sent back.
///
/// Credentials are recorded in full (this is a test tool, and tests need to see them), but every header
/// that carries one is marked with `credential: true` so that reports can mask them.
public struct JournalEntry: Sendable, Equatable, Codable {
    /// The fields, in one box shared by copies until one of them changes (copy on write). An entry has
    /// some thirty fields; it is kept in the ring, handed back with the exchange and sent to every journal
    /// reader, and without the box each copy retained every string and array in it.
    private var box: Box

    /// Server-wide sequence number, from 1, in the order decisions were made.
    public var seq: Int {
        get { box.fields.seq }
        set { update { $0.seq = newValue } }
    }

    /// Wall-clock time of the decision, from the engine's injected clock.
    public var time: Date {
        get { box.fields.time }
        set { update { $0.time = newValue } }
    }

    public var connection: UInt64 {
        get { box.fields.connection }
        set { update { $0.connection = newValue } }
    }

    /// Index of the exchange on its connection, from 1.
    public var exchange: Int {
        get { box.fields.exchange }
        set { update { $0.exchange = newValue } }
    }

    public var remote: String? {
        get { box.fields.remote }
        set { update { $0.remote = newValue } }
    }

    /// nil when the request could not be parsed far enough to know it.
    public var method: String? {
        get { box.fields.method }
        set { update { $0.method = newValue } }
    }

    public var target: String? {
        get { box.fields.target }
        set { update { $0.target = newValue } }
    }

    public var version: String? {
        get { box.fields.version }
        set { update { $0.version = newValue } }
    }

    public var headers: [RecordedHeader] {
        get { box.fields.headers.recorded }
        set { update { $0.headers = RecordedHeaders(newValue) } }
    }

    public var bodyBytes: Int {
        get { box.fields.bodyBytes }
        set { update { $0.bodyBytes = newValue } }
    }

    /// Lower-case hex SHA-256 of the body, when there was one: tells a body re-sent intact from a changed one.
    public var bodySHA256: String? {
        get { box.fields.bodySHA256 }
        set { update { $0.bodySHA256 = newValue } }
    }

    /// The credentials the client presented, as far as they could be read.
    public var credentials: PresentedCredentials? {
        get { box.fields.credentials }
        set { update { $0.credentials = newValue } }
    }

    public var verdict: Verdict {
        get { box.fields.verdict }
        set { update { $0.verdict = newValue } }
    }

    /// A sentence for people: what exactly was wrong (or right).
    public var detail: String? {
        get { box.fields.detail }
        set { update { $0.detail = newValue } }
    }

    public var status: Int {
        get { box.fields.status }
        set { update { $0.status = newValue } }
    }

    /// The `WWW-Authenticate` values sent, in order.
    public var challenges: [String]? {
        get { box.fields.challenges }
        set { update { $0.challenges = newValue } }
    }

    /// The connection's TLS facts; nil on plain HTTP.
    /// The header fields of the answer as the engine decided it (the shell adds `Content-Length`, `Date` and
    /// the framing): at most 32 fields, each cut to 512 bytes, as ``challenges`` are. nil on entries that
    /// answered nothing.
    public var responseHeaders: [HeaderField]? {
        get { box.fields.responseHeaders }
        set { update { $0.responseHeaders = newValue } }
    }

    public var tls: TLSFacts? {
        get { box.fields.tls }
        set { update { $0.tls = newValue } }
    }

    /// TLS connection entries only: how many HTTP requests arrived on the connection.
    public var requests: Int? {
        get { box.fields.requests }
        set { update { $0.requests = newValue } }
    }

    /// `proxy` for exchanges with authmock's forward proxy, `socks5` for its SOCKS5 listener's handshakes;
    /// absent for the origin.
    public var hop: Hop? {
        get { box.fields.hop }
        set { update { $0.hop = newValue } }
    }

    /// Credentials sent to the wrong party (e.g. `Proxy-Authorization reached the origin`); absent when none.
    public var leaks: [String]? {
        get { box.fields.leaks }
        set { update { $0.leaks = newValue } }
    }

    /// The scenario's fault played on this answer (`close`, `stall 2s`, …); absent when none.
    public var fault: String? {
        get { box.fields.fault }
        set { update { $0.fault = newValue } }
    }

    /// Exchanges: `http/1.1` (HTTP/1.0 included) or `h2`.
    public var httpProtocol: String? {
        get { box.fields.httpProtocol }
        set { update { $0.httpProtocol = newValue } }
    }

    /// The HTTP/2 stream the request came on; absent over HTTP/1.x.
    public var stream: Int? {
        get { box.fields.stream }
        set { update { $0.stream = newValue } }
    }

    /// The HTTP/2 stream error sent instead of a response (`HTTP_1_1_REQUIRED`, `REFUSED_STREAM`,
    /// `PROTOCOL_ERROR`); status is then 0.
    public var reset: String? {
        get { box.fields.reset }
        set { update { $0.reset = newValue } }
    }

    /// The HTTP/2 connection error sent in a `GOAWAY` instead of a response (`PROTOCOL_ERROR`,
    /// `FRAME_SIZE_ERROR`, …), after which the connection closed; status is then 0.
    public var goaway: String? {
        get { box.fields.goaway }
        set { update { $0.goaway = newValue } }
    }

    /// What made the answer hostile on purpose (a raw challenge, a corrupted NTLM CHALLENGE); absent otherwise.
    public var hostile: String? {
        get { box.fields.hostile }
        set { update { $0.hostile = newValue } }
    }

    /// The names of the scenario's cookies (`set-cookies:`) that the request's `Cookie` brought back, with
    /// the value the server set; absent when none.
    public var cookies: [String]? {
        get { box.fields.cookies }
        set { update { $0.cookies = newValue } }
    }

    /// SOCKS5 handshakes (`hop: socks5`) only: methods, address type, the reply code.
    public var socks5: SOCKS5Facts? {
        get { box.fields.socks5 }
        set { update { $0.socks5 = newValue } }
    }

    /// A request granted without credentials on a connection NTLM or Negotiate authenticated
    /// (`ntlm.connection-authenticated`): the user the connection was authenticated as, whom the request was
    /// served as. Absent otherwise (a request that carried accepted credentials names its user in them).
    public var connectionUser: String? {
        get { box.fields.connectionUser }
        set { update { $0.connectionUser = newValue } }
    }

    /// Whether this entry is an HTTP exchange (a request and the answer sent), rather than a TLS
    /// connection record or a change to a user. Status 0 without a stream reset or a GOAWAY marks the
    /// latter: nothing was sent.
    public var isExchange: Bool { status != 0 || reset != nil || goaway != nil }

    /// A header's value by name (case-insensitive), the first when there are several.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }

    public struct RecordedHeader: Sendable, Equatable, Codable {
        public var name: String
        public var value: String
        /// true for `Authorization`, `Proxy-Authorization` and `Cookie`.
        public var credential: Bool?

        public init(name: String, value: String, credential: Bool? = nil) {
            self.name = name
            self.value = value
            self.credential = credential
        }
    }

    public static func == (lhs: JournalEntry, rhs: JournalEntry) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public init(from decoder: any Decoder) throws {
        box = Box(try Fields(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        try box.fields.encode(to: encoder)
    }

    public init(
        seq: Int, time: Date, connection: UInt64, exchange: Int, remote: String?, method: String?, target: String?,
        version: String?, headers: [RecordedHeader], bodyBytes: Int, credentials: PresentedCredentials?,
        verdict: Verdict, detail: String?, status: Int, challenges: [String]?, tls: TLSFacts? = nil,
        requests: Int? = nil, hop: Hop? = nil, leaks: [String]? = nil, bodySHA256: String? = nil
    ) {
        box = Box(Fields(
            seq: seq, time: time, connection: connection, exchange: exchange, remote: remote, method: method,
            target: target, version: version, headers: RecordedHeaders(headers), bodyBytes: bodyBytes,
            bodySHA256: bodySHA256, credentials: credentials, verdict: verdict, detail: detail, status: status,
            challenges: challenges, tls: tls, requests: requests, hop: hop, leaks: leaks
        ))
    }

    /// The entry as one line of JSON (the `--journal` file format), without a trailing newline.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// An entry of these fields (the kinds of entries in JournalEntry+Building are built whole, at once).
    init(fields: Fields) {
        box = Box(fields)
    }

    /// Changes the fields in place, in a box of this entry's own: copied first when another entry shares it.
    /// (Assigning through a returned box instead had the optimizer copy all the fields out and back.)
    private mutating func update(_ change: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        change(&box.fields)
    }

    /// Shared only between entries, and only read while shared: a change copies it first (``update(_:)``).
    private final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    /// The stored fields (their meaning is on the properties above), and their JSON.
    struct Fields: Sendable, Equatable, Codable {
        var seq: Int
        var time: Date
        var connection: UInt64
        var exchange: Int
        var remote: String?
        var method: String?
        var target: String?
        var version: String?
        var headers: RecordedHeaders
        var bodyBytes: Int
        var bodySHA256: String?
        var credentials: PresentedCredentials?
        var verdict: Verdict
        var detail: String?
        var status: Int
        var challenges: [String]?
        var responseHeaders: [HeaderField]?
        var tls: TLSFacts?
        var requests: Int?
        var hop: Hop?
        var leaks: [String]?
        var fault: String?
        var httpProtocol: String?
        var stream: Int?
        var reset: String?
        var goaway: String?
        var hostile: String?
        var cookies: [String]?
        var socks5: SOCKS5Facts?
        var connectionUser: String?

        enum CodingKeys: String, CodingKey {
            case seq, time, connection, exchange, remote, method, target, version, headers
            case bodyBytes = "body_bytes"
            case bodySHA256 = "body_sha256"
            case credentials, verdict, detail, status, challenges, tls, requests, hop, leaks, fault
            case httpProtocol = "protocol"
            case stream, reset, goaway, hostile, cookies, socks5
            case connectionUser = "connection_user"
            case responseHeaders = "response_headers"
        }
    }
}

/// The credentials a client presented, as the engine read them.
public struct PresentedCredentials: Sendable, Equatable, Codable {
    /// `Authorization` or `Proxy-Authorization`.
    public var header: String
    public var scheme: String
    /// The user name claimed (for Digest with userhash, the name it resolved to, if any).
    public var user: String?
    /// Basic only: the password as sent.
    public var password: String?
    /// Digest and other parameter-list schemes: every parameter, names lower-cased.
    public var params: [String: String]?

    public init(
        header: String, scheme: String, user: String? = nil, password: String? = nil, params: [String: String]? = nil
    ) {
        self.header = header
        self.scheme = scheme
        self.user = user
        self.password = password
        self.params = params
    }
}
