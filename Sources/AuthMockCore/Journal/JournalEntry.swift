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
    /// Server-wide sequence number, from 1, in the order decisions were made.
    public var seq: Int
    /// Wall-clock time of the decision, from the engine's injected clock.
    public var time: Date
    public var connection: UInt64
    /// Index of the exchange on its connection, from 1.
    public var exchange: Int
    public var remote: String?
    /// nil when the request could not be parsed far enough to know it.
    public var method: String?
    public var target: String?
    public var version: String?
    public var headers: [RecordedHeader]
    public var bodyBytes: Int
    /// Lower-case hex SHA-256 of the body, when there was one: tells a body re-sent intact from a changed one.
    public var bodySHA256: String?
    /// The credentials the client presented, as far as they could be read.
    public var credentials: PresentedCredentials?
    public var verdict: Verdict
    /// A sentence for people: what exactly was wrong (or right).
    public var detail: String?
    public var status: Int
    /// The `WWW-Authenticate` values sent, in order.
    public var challenges: [String]?
    /// The connection's TLS facts; nil on plain HTTP.
    public var tls: TLSFacts?
    /// TLS connection entries only: how many HTTP requests arrived on the connection.
    public var requests: Int?
    /// `proxy` for exchanges with authmock's forward proxy, `socks5` for its SOCKS5 listener's handshakes;
    /// absent for the origin.
    public var hop: Hop?
    /// Credentials sent to the wrong party (e.g. `Proxy-Authorization reached the origin`); absent when none.
    public var leaks: [String]?
    /// The scenario's fault played on this answer (`close`, `stall 2s`, …); absent when none.
    public var fault: String?
    /// Exchanges: `http/1.1` (HTTP/1.0 included) or `h2`.
    public var httpProtocol: String?
    /// The HTTP/2 stream the request came on; absent over HTTP/1.x.
    public var stream: Int?
    /// The HTTP/2 stream error sent instead of a response (`HTTP_1_1_REQUIRED`, `REFUSED_STREAM`,
    /// `PROTOCOL_ERROR`); status is then 0.
    public var reset: String?
    /// The HTTP/2 connection error sent in a `GOAWAY` instead of a response (`PROTOCOL_ERROR`,
    /// `FRAME_SIZE_ERROR`, …), after which the connection closed; status is then 0.
    public var goaway: String?
    /// What made the answer hostile on purpose (a raw challenge, a corrupted NTLM CHALLENGE); absent otherwise.
    public var hostile: String?
    /// The names of the scenario's cookies (`set-cookies:`) that the request's `Cookie` brought back, with
    /// the value the server set; absent when none.
    public var cookies: [String]?
    /// SOCKS5 handshakes (`hop: socks5`) only: methods, address type, the reply code.
    public var socks5: SOCKS5Facts?
    /// A request granted without credentials on a connection NTLM or Negotiate authenticated
    /// (`ntlm.connection-authenticated`): the user the connection was authenticated as, whom the request was
    /// served as. Absent otherwise (a request that carried accepted credentials names its user in them).
    public var connectionUser: String?

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

    enum CodingKeys: String, CodingKey {
        case seq, time, connection, exchange, remote, method, target, version, headers
        case bodyBytes = "body_bytes"
        case bodySHA256 = "body_sha256"
        case credentials, verdict, detail, status, challenges, tls, requests, hop, leaks, fault
        case httpProtocol = "protocol"
        case stream, reset, goaway, hostile, cookies, socks5
        case connectionUser = "connection_user"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        let timeText = try container.decode(String.self, forKey: .time)
        guard let parsed = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timeText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: container, debugDescription: "not an ISO 8601 time: \(timeText)"
            )
        }
        time = parsed
        connection = try container.decode(UInt64.self, forKey: .connection)
        exchange = try container.decode(Int.self, forKey: .exchange)
        remote = try container.decodeIfPresent(String.self, forKey: .remote)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        target = try container.decodeIfPresent(String.self, forKey: .target)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        headers = try container.decode([RecordedHeader].self, forKey: .headers)
        bodyBytes = try container.decode(Int.self, forKey: .bodyBytes)
        bodySHA256 = try container.decodeIfPresent(String.self, forKey: .bodySHA256)
        credentials = try container.decodeIfPresent(PresentedCredentials.self, forKey: .credentials)
        verdict = try container.decode(Verdict.self, forKey: .verdict)
        detail = try container.decodeIfPresent(String.self, forKey: .detail)
        status = try container.decode(Int.self, forKey: .status)
        challenges = try container.decodeIfPresent([String].self, forKey: .challenges)
        tls = try container.decodeIfPresent(TLSFacts.self, forKey: .tls)
        requests = try container.decodeIfPresent(Int.self, forKey: .requests)
        hop = try container.decodeIfPresent(Hop.self, forKey: .hop)
        leaks = try container.decodeIfPresent([String].self, forKey: .leaks)
        fault = try container.decodeIfPresent(String.self, forKey: .fault)
        httpProtocol = try container.decodeIfPresent(String.self, forKey: .httpProtocol)
        stream = try container.decodeIfPresent(Int.self, forKey: .stream)
        reset = try container.decodeIfPresent(String.self, forKey: .reset)
        goaway = try container.decodeIfPresent(String.self, forKey: .goaway)
        hostile = try container.decodeIfPresent(String.self, forKey: .hostile)
        cookies = try container.decodeIfPresent([String].self, forKey: .cookies)
        socks5 = try container.decodeIfPresent(SOCKS5Facts.self, forKey: .socks5)
        connectionUser = try container.decodeIfPresent(String.self, forKey: .connectionUser)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(time), forKey: .time)
        try container.encode(connection, forKey: .connection)
        try container.encode(exchange, forKey: .exchange)
        try container.encodeIfPresent(remote, forKey: .remote)
        try container.encodeIfPresent(method, forKey: .method)
        try container.encodeIfPresent(target, forKey: .target)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encode(headers, forKey: .headers)
        try container.encode(bodyBytes, forKey: .bodyBytes)
        try container.encodeIfPresent(bodySHA256, forKey: .bodySHA256)
        try container.encodeIfPresent(credentials, forKey: .credentials)
        try container.encode(verdict, forKey: .verdict)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(challenges, forKey: .challenges)
        try container.encodeIfPresent(tls, forKey: .tls)
        try container.encodeIfPresent(requests, forKey: .requests)
        try container.encodeIfPresent(hop, forKey: .hop)
        try container.encodeIfPresent(leaks, forKey: .leaks)
        try container.encodeIfPresent(fault, forKey: .fault)
        try container.encodeIfPresent(httpProtocol, forKey: .httpProtocol)
        try container.encodeIfPresent(stream, forKey: .stream)
        try container.encodeIfPresent(reset, forKey: .reset)
        try container.encodeIfPresent(goaway, forKey: .goaway)
        try container.encodeIfPresent(hostile, forKey: .hostile)
        try container.encodeIfPresent(cookies, forKey: .cookies)
        try container.encodeIfPresent(socks5, forKey: .socks5)
        try container.encodeIfPresent(connectionUser, forKey: .connectionUser)
    }

    public init(
        seq: Int, time: Date, connection: UInt64, exchange: Int, remote: String?, method: String?, target: String?,
        version: String?, headers: [RecordedHeader], bodyBytes: Int, credentials: PresentedCredentials?,
        verdict: Verdict, detail: String?, status: Int, challenges: [String]?, tls: TLSFacts? = nil,
        requests: Int? = nil, hop: Hop? = nil, leaks: [String]? = nil, bodySHA256: String? = nil
    ) {
        self.seq = seq
        self.time = time
        self.connection = connection
        self.exchange = exchange
        self.remote = remote
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.bodyBytes = bodyBytes
        self.credentials = credentials
        self.verdict = verdict
        self.detail = detail
        self.status = status
        self.challenges = challenges
        self.tls = tls
        self.requests = requests
        self.hop = hop
        self.leaks = leaks
        self.bodySHA256 = bodySHA256
    }

    /// The entry as one line of JSON (the `--journal` file format), without a trailing newline.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
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
