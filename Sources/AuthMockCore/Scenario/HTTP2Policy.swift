/// Whether the origin speaks HTTP/2, and what it does with schemes that authenticate a connection.
///
/// ```yaml
/// http2: offer                  # off (default) | offer | only | prior-knowledge
/// # or
/// http2:
///   mode: offer
///   connection-auth: allow      # reset (default) | allow
/// ```
///
/// Each HTTP/2 stream is one request to the engine; the journal records the protocol and the stream id.
/// NTLM and Negotiate authenticate a connection, which HTTP/2 multiplexes: by default the server refuses
/// them on an HTTP/2 stream with `RST_STREAM` `HTTP_1_1_REQUIRED` (RFC 9113 §7), as IIS does,
/// and the client is expected to retry over HTTP/1.1.
public struct HTTP2Policy: Sendable, Equatable {
    public enum Mode: String, Sendable, Equatable, CaseIterable {
        /// HTTP/1.1 only (ALPN `http/1.1`).
        case off
        /// TLS: ALPN offers `h2` and `http/1.1`; the client chooses.
        case offer
        /// TLS: ALPN offers only `h2`; the connection speaks HTTP/2 whatever the client offered.
        case only
        /// Plain HTTP: a connection that opens with the HTTP/2 preface speaks h2 (RFC 9113 §3.3), any
        /// other speaks HTTP/1.1.
        case priorKnowledge = "prior-knowledge"
    }

    /// What the server does with NTLM or Negotiate on an HTTP/2 stream.
    public enum ConnectionAuth: String, Sendable, Equatable, CaseIterable {
        /// The stream is reset with `HTTP_1_1_REQUIRED` before any challenge or credential is read.
        case reset
        /// The scheme runs as over HTTP/1.1, bound to the TCP connection every stream shares.
        case allow
    }

    public var mode: Mode
    public var connectionAuth: ConnectionAuth

    public init(mode: Mode = .off, connectionAuth: ConnectionAuth = .reset) {
        self.mode = mode
        self.connectionAuth = connectionAuth
    }

    /// The ALPN protocols a TLS listener offers, in the server's order of preference: what it speaks, but
    /// for prior knowledge, which is not negotiated (and not TLS).
    public var alpn: [String] { mode == .priorKnowledge ? ["http/1.1"] : protocols }

    /// What the ready line and banner say the origin speaks.
    public var protocols: [String] {
        switch mode {
        case .off: ["http/1.1"]
        case .offer: ["h2", "http/1.1"]
        case .only: ["h2"]
        case .priorKnowledge: ["h2c", "http/1.1"]
        }
    }
}

/// The HTTP version a request arrived in, as the journal names it.
public enum HTTPProtocol: String, Sendable, Equatable, Codable {
    case http1 = "http/1.1"
    case h2
}
