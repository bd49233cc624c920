/// The authentication schemes authmock plays, as one type: the token as the RFCs spell it (and as
/// challenges and journals show it), parsing it from a header or a scenario whatever its case, and what
/// the engine must know of each (whether it authenticates a connection rather than a request).
///
/// A scheme is added as one case here, with the type of its options (``SchemeOptions``: how a scenario
/// writes its challenge, how it reads, what it sends, how it verifies), in a file of its own
/// (`Engine+NAME.swift`); the compiler then lists the few `switch`es over ``Challenge`` that must learn it.
public enum AuthScheme: String, Sendable, Hashable, CaseIterable, Codable {
    case basic = "Basic"
    case digest = "Digest"
    case ntlm = "NTLM"
    case negotiate = "Negotiate"
    case bearer = "Bearer"

    /// The scheme a token names, compared as HTTP compares auth-schemes (ASCII case-insensitively,
    /// RFC 9110 §11.1); nil for a scheme authmock does not play.
    public init?(token: some StringProtocol) {
        guard let scheme = Self.allCases.first(where: { String(token).equalsIgnoringASCIICase($0.rawValue) }) else {
            return nil
        }
        self = scheme
    }

    /// The token as the RFCs spell it: `Basic`, `Digest`, `NTLM`, `Negotiate`, `Bearer`.
    public var token: String { rawValue }

    /// Whether it authenticates the TCP connection (NTLM's three messages, Negotiate wrapping NTLM)
    /// rather than each request: HTTP/2 cannot carry it, and the connection keeps the user.
    public var isConnectionBound: Bool {
        switch self {
        case .basic, .digest, .bearer: false
        case .ntlm, .negotiate: true
        }
    }
}

extension AuthScheme {
    /// The type of this scheme's challenge options.
    var options: any SchemeOptions.Type {
        switch self {
        case .basic: BasicChallenge.self
        case .digest: DigestChallenge.self
        case .ntlm, .negotiate: NTLMChallenge.self
        case .bearer: BearerChallenge.self
        }
    }
}
