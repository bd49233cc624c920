/// Which side of a forward proxy an engine plays, and which hop a journal entry was decided on: the
/// origin server (401, `WWW-Authenticate`, `Authorization`) or the proxy (407, `Proxy-Authenticate`,
/// `Proxy-Authorization`). The rules are the same; the headers and the status differ. A third hop has no
/// engine: the SOCKS5 listener, whose handshakes (``SOCKS5Session``) carry credentials in RFC 1929's
/// sub-negotiation, not in a header.
///
/// The journal writes `"hop": "proxy"` or `"hop": "socks5"` and leaves the field out for the origin's.
public enum Hop: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case origin
    case proxy
    case socks5

    /// The field that carries this hop's credentials (none for SOCKS5: empty).
    public var credentialsHeader: String {
        switch self {
        case .origin: "Authorization"
        case .proxy: "Proxy-Authorization"
        case .socks5: ""
        }
    }
    /// The field that carries this hop's challenges (none for SOCKS5: empty).
    public var challengeHeader: String {
        switch self {
        case .origin: "WWW-Authenticate"
        case .proxy: "Proxy-Authenticate"
        case .socks5: ""
        }
    }
    /// The status that asks for this hop's credentials (none for SOCKS5: 0).
    public var challengeStatus: Int {
        switch self {
        case .origin: 401
        case .proxy: 407
        case .socks5: 0
        }
    }
    /// The field that follows a successful answer (RFC 7616 §3.5, RFC 9110 §11.6.3 and §11.7.3); none for
    /// SOCKS5: empty.
    public var authenticationInfoHeader: String {
        switch self {
        case .origin: "Authentication-Info"
        case .proxy: "Proxy-Authentication-Info"
        case .socks5: ""
        }
    }
}
