/// Which side of a forward proxy an engine plays, and which hop a journal entry was decided on: the
/// origin server (401, `WWW-Authenticate`, `Authorization`) or the proxy (407, `Proxy-Authenticate`,
/// `Proxy-Authorization`). The rules are the same; the headers and the status differ.
///
/// The journal writes `"hop": "proxy"` for the proxy's entries and leaves the field out for the origin's.
public enum Hop: String, Sendable, Equatable, Hashable, Codable, CaseIterable {
    case origin
    case proxy

    /// The field that carries this hop's credentials.
    public var credentialsHeader: String { self == .proxy ? "Proxy-Authorization" : "Authorization" }
    /// The field that carries this hop's challenges.
    public var challengeHeader: String { self == .proxy ? "Proxy-Authenticate" : "WWW-Authenticate" }
    /// The field that follows a successful answer (RFC 7616 §3.5, RFC 9110 §11.6.3 and §11.7.3).
    public var authenticationInfoHeader: String {
        self == .proxy ? "Proxy-Authentication-Info" : "Authentication-Info"
    }
    /// The status that asks for this hop's credentials.
    public var challengeStatus: Int { self == .proxy ? 407 : 401 }
}
