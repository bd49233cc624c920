/// One header field, in the order and case it was sent.
public struct HeaderField: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

extension HeaderField {
    /// The fields the server frames a response with itself (lower case): a scenario may not set them, and the
    /// shell replaces any an answer carries.
    package static let framingNames = ["content-length", "transfer-encoding", "connection"]
}

extension Array where Element == HeaderField {
    /// All values of a field, case-insensitively by name, in order.
    public func values(_ name: String) -> [String] {
        compactMap { $0.name.equalsIgnoringASCIICase(name) ? $0.value : nil }
    }

    public func first(_ name: String) -> String? {
        first { $0.name.equalsIgnoringASCIICase(name) }?.value
    }
}

extension String {
    /// Whether the two are equal but for the case of ASCII letters: how HTTP compares field names and
    /// scheme tokens (RFC 9110 §5.1, §11.1), without the two new strings `lowercased()` would make; the
    /// engine looks up about fourteen fields per request.
    package func equalsIgnoringASCIICase(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        // Native strings (all the engine meets) compare their bytes in place; a zip over the two UTF-8
        // views cost as much as the lowercasing it replaced.
        let compared = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in Self.equalIgnoringASCIICase(left, right) }
        }
        if let compared = compared.flatMap({ $0 }) { return compared }
        return Array(utf8).withUnsafeBufferPointer { left in
            Array(other.utf8).withUnsafeBufferPointer { right in Self.equalIgnoringASCIICase(left, right) }
        }
    }

    /// Two byte runs of the same length.
    private static func equalIgnoringASCIICase(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        for index in 0..<left.count where left[index] != right[index] {
            let folded = left[index] | 0x20
            guard folded == right[index] | 0x20, folded >= UInt8(ascii: "a"), folded <= UInt8(ascii: "z") else {
                return false
            }
        }
        return true
    }
}

/// What the shell knows about the connection a request arrived on.
public struct ConnectionInfo: Sendable, Equatable {
    /// A server-wide counter, starting at 1, one per accepted connection.
    public var id: UInt64
    /// The index of this exchange on its connection, starting at 1 (tells reuse apart).
    public var exchange: Int
    /// The peer's address, e.g. `127.0.0.1:53122`.
    public var remote: String?
    /// What TLS negotiated; nil on a plain connection.
    public var tls: TLSFacts?
    /// The HTTP version the request came in: HTTP/1.1 (or 1.0), or an HTTP/2 stream of the connection.
    public var httpProtocol: HTTPProtocol
    /// The HTTP/2 stream id; nil over HTTP/1.x.
    public var stream: Int?

    public init(
        id: UInt64, exchange: Int, remote: String? = nil, tls: TLSFacts? = nil, httpProtocol: HTTPProtocol = .http1,
        stream: Int? = nil
    ) {
        self.id = id
        self.exchange = exchange
        self.remote = remote
        self.tls = tls
        self.httpProtocol = httpProtocol
        self.stream = stream
    }
}

/// What the TLS handshake of a connection settled, as far as the TLS stack tells.
public struct TLSFacts: Sendable, Equatable, Codable {
    /// `TLSv1.2` or `TLSv1.3`; nil when the handshake did not complete.
    public var version: String?
    /// The ALPN protocol agreed, e.g. `http/1.1`.
    public var alpn: String?
    /// The client certificate's subject (RFC 4514), or nil when the client sent none.
    public var clientCertificate: String?
    /// The cipher suite the server chose, by its IANA name (`TLS_AES_128_GCM_SHA256`).
    public var cipher: String?
    /// The host name the client asked for in its ClientHello (SNI); nil when it sent none (IP literals).
    public var serverName: String?
    /// The alert that ended a failed handshake, by its RFC 8446 name (`unknown_ca`), when one was read.
    public var alert: String?
    /// SHA-256 (hex) of the leaf the server presented on this connection, and its key's RFC 7469 pin:
    /// what a rotation changed, for a verdict that says which certificate the client was shown.
    public var certificateSHA256: String?
    public var pinSHA256: String?

    public init(
        version: String? = nil, alpn: String? = nil, clientCertificate: String? = nil, cipher: String? = nil,
        serverName: String? = nil, alert: String? = nil, certificateSHA256: String? = nil, pinSHA256: String? = nil
    ) {
        self.version = version
        self.alpn = alpn
        self.clientCertificate = clientCertificate
        self.cipher = cipher
        self.serverName = serverName
        self.alert = alert
        self.certificateSHA256 = certificateSHA256
        self.pinSHA256 = pinSHA256
    }

    enum CodingKeys: String, CodingKey {
        case version, alpn, cipher, alert
        case clientCertificate = "client_certificate"
        case serverName = "server_name"
        case certificateSHA256 = "cert_sha256"
        case pinSHA256 = "pin_sha256"
    }
}

/// A complete HTTP request as the engine sees it: no NIO types.
public struct Request: Sendable, Equatable {
    public var method: String
    /// The request-target exactly as sent (origin-form `/path?query` usually).
    public var target: String
    public var version: String
    public var headers: [HeaderField]
    public var body: [UInt8]
    public var connection: ConnectionInfo

    public init(
        method: String, target: String, version: String = "HTTP/1.1", headers: [HeaderField] = [], body: [UInt8] = [],
        connection: ConnectionInfo = ConnectionInfo(id: 1, exchange: 1)
    ) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
        self.body = body
        self.connection = connection
    }

    /// The path of the target, without the query.
    public var path: String {
        // The query starts at the first "?" byte (RFC 3986 §3.4); read as bytes, not as characters, which cost
        // grapheme breaking on every request, and the target itself when it has no query.
        guard let query = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return target }
        return String(target[..<query])
    }

    /// The path a resource is looked up by: the target's path in origin form, and in absolute form too
    /// (`GET http://host:port/secure`), which a server must accept (RFC 9112 §3.2.2) and a client may send
    /// to an origin inside a proxy's tunnel (PHP's `request_fulluri`). Only origin resources use it; the
    /// control plane is reached in origin form only.
    public var resourcePath: String {
        let path = self.path
        // Origin form, nearly always: one byte says so, without lower-casing a prefix of every path.
        guard path.utf8.first != UInt8(ascii: "/") else { return path }
        let lowered = path.prefix(8).lowercased()
        let schemeLength = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
        guard schemeLength > 0 else { return path }
        let rest = path.dropFirst(schemeLength)
        return rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
    }
}

/// The response the shell must write.
public struct Response: Sendable, Equatable {
    public var status: Int
    public var headers: [HeaderField]
    public var body: [UInt8]
    /// The shell closes the connection after writing this response.
    public var closeConnection: Bool
    /// Send the body with `Transfer-Encoding: chunked` instead of `Content-Length`.
    public var chunked = false
    /// A scenario fault the shell plays instead of (or around) writing this response normally.
    public var fault: Fault.Effect?
    /// HTTP/2 only: reset the stream with this error instead of answering (status is then 0).
    public var streamReset: StreamReset?
    /// What makes this answer hostile on purpose (a raw challenge, a corrupted NTLM CHALLENGE), for the journal.
    public var hostile: String?

    public init(status: Int, headers: [HeaderField] = [], body: [UInt8] = [], closeConnection: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.closeConnection = closeConnection
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// An HTTP/2 stream error the server answers with instead of a response (RFC 9113 §7).
public enum StreamReset: String, Sendable, Equatable, Codable {
    /// `HTTP_1_1_REQUIRED` (0xd): the client must retry the request over HTTP/1.1.
    case http11Required = "HTTP_1_1_REQUIRED"
}
