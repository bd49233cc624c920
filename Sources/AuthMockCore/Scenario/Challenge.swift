/// One challenge a scenario offers.
public enum Challenge: Sendable, Equatable {
    case basic(BasicChallenge)
    case digest(DigestChallenge)
    /// NTLM (MS-NLMP), bound to the connection: NEGOTIATE → CHALLENGE → AUTHENTICATE.
    case ntlm(NTLMChallenge)
    /// Negotiate (RFC 4559) with SPNEGO carrying NTLM; Kerberos is not offered.
    case negotiate(NTLMChallenge)
    /// Bearer (RFC 6750): a token per user, static or issued by the scenario's token endpoint (`oauth:`).
    case bearer(BearerChallenge)
    /// A challenge sent verbatim that authmock never accepts: for testing that clients skip schemes they
    /// do not know (e.g. `Newauth realm="apps", type=1`).
    case custom(String)
    /// A hostile challenge value sent byte for byte, which need not parse and is never accepted: for
    /// testing that clients survive what a malicious server sends (huge, crafted for a backtracking
    /// parser, thousands of fields). The exchanges that carry it are journaled `hostile`.
    case raw(RawChallenge)

    /// A short description for people: `Digest SHA-256 qop=auth`, `Basic charset=UTF-8`.
    public var summary: String {
        switch self {
        case .basic, .digest, .ntlm, .negotiate, .bearer:
            return options!.summary(authScheme!)
        case .custom:
            return "\(scheme) (not accepted)"
        case .raw(let raw):
            return "raw challenge, \(raw.summary)"
        }
    }

    /// Whether authmock can accept credentials for it (custom and raw challenges are only offered).
    public var isAccepted: Bool {
        switch self {
        case .custom, .raw: false
        case .basic, .digest, .ntlm, .negotiate, .bearer: true
        }
    }

    /// The options of the scheme authmock plays for it; nil for custom and raw challenges.
    var options: (any SchemeOptions)? {
        switch self {
        case .basic(let options): options
        case .digest(let options): options
        case .ntlm(let options), .negotiate(let options): options
        case .bearer(let options): options
        case .custom, .raw: nil
        }
    }

    /// The scheme authmock plays for it; nil for custom and raw challenges, which it only offers.
    public var authScheme: AuthScheme? {
        switch self {
        case .basic: .basic
        case .digest: .digest
        case .ntlm: .ntlm
        case .negotiate: .negotiate
        case .bearer: .bearer
        case .custom, .raw: nil
        }
    }

    /// The auth-scheme token as sent.
    public var scheme: String {
        switch self {
        case .basic, .digest, .ntlm, .negotiate, .bearer: return authScheme!.token
        case .custom(let raw): return String(raw.prefix { $0 != " " && $0 != "\t" })
        case .raw(let raw): return String(raw.value.prefix { $0 != " " && $0 != "\t" && $0 != "," })
        }
    }
}

/// A challenge value written in pieces, some repeated: `['Basic realm="', {repeat: "a", times: 40000}, '"']`.
public struct RawChallenge: Sendable, Equatable {
    public enum Piece: Sendable, Equatable {
        case text(String)
        case repeated(String, times: Int)
    }

    public var pieces: [Piece]
    /// How many header fields carry the value (each one whole).
    public var fields: Int

    public init(pieces: [Piece], fields: Int = 1) {
        self.pieces = pieces
        self.fields = fields
    }

    /// The value as sent.
    public var value: String {
        pieces.map { piece in
            switch piece {
            case .text(let text): text
            case .repeated(let text, let times): String(repeating: text, count: times)
            }
        }.joined()
    }

    /// Its size in bytes.
    public var byteCount: Int {
        pieces.reduce(0) { total, piece in
            switch piece {
            case .text(let text): total + text.utf8.count
            case .repeated(let text, let times): total + text.utf8.count * times
            }
        }
    }

    /// The value for people, each piece quoted and repeats counted:
    /// `1 field of 40008 bytes: "Basic realm=\"" + "a" ×40000 + "\""`.
    public var summary: String {
        let shape = pieces.map { piece in
            switch piece {
            case .text(let text): AuthHeader.quote(text)
            case .repeated(let text, let times): "\(AuthHeader.quote(text)) ×\(times)"
            }
        }.joined(separator: " + ")
        return "\(fields) field\(fields == 1 ? "" : "s") of \(byteCount) bytes: \(shape)"
    }
}

public struct BasicChallenge: Sendable, Equatable {
    /// Adds `charset="UTF-8"` (RFC 7617 §2.1): the client must then encode user and password in UTF-8.
    public var charsetUTF8: Bool

    public init(charsetUTF8: Bool = false) {
        self.charsetUTF8 = charsetUTF8
    }
}

public struct BearerChallenge: Sendable, Equatable {
    /// The challenge's `scope` (RFC 6750 §3): the scope a token for this server needs; nil sends none.
    public var scope: String?
    /// Adds `resource_metadata` (RFC 9728 §5.1): the URL of this server's protected resource metadata, which
    /// authmock serves at `/.well-known/oauth-protected-resource`.
    public var resourceMetadata: Bool

    public init(scope: String? = nil, resourceMetadata: Bool = false) {
        self.scope = scope
        self.resourceMetadata = resourceMetadata
    }
}

public struct NTLMChallenge: Sendable, Equatable {
    /// A fixed 8-byte server challenge for reproducible tests; nil draws one per handshake.
    public var serverChallenge: [UInt8]?
    /// Send target info (AV pairs) in the CHALLENGE message; clients use NTLMv2 when it is there.
    public var targetInfo: Bool
    /// Accept NTLMv1 and the NTLM2 session response; false refuses them (`ntlm.v1-refused`).
    public var allowV1: Bool
    /// The NetBIOS domain the server names in its CHALLENGE.
    public var domain: String
    /// The server (computer) name in the target info.
    public var server: String
    /// A named corruption of the CHALLENGE message, for the hostile cases; nil sends a well-formed one.
    public var corruption: NTLMCorruption?

    public init(
        serverChallenge: [UInt8]? = nil, targetInfo: Bool = true, allowV1: Bool = true, domain: String = "AUTHMOCK",
        server: String = "AUTHMOCK-SRV", corruption: NTLMCorruption? = nil
    ) {
        self.serverChallenge = serverChallenge
        self.targetInfo = targetInfo
        self.allowV1 = allowV1
        self.domain = domain
        self.server = server
        self.corruption = corruption
    }
}

/// What a hostile server does to the TargetInfoFields of its NTLM CHALLENGE (the fields curl
/// CVE-2018-16890 read past): a parser that trusts them reads outside the message.
public enum NTLMCorruption: String, Sendable, Equatable, CaseIterable {
    /// The length runs 4,096 bytes past the end of the message; the offset is right.
    case targetInfoPastEnd = "target-info-past-end"
    /// Offset 0xFFFFFFF0 and a length of 0x40: their 32-bit sum wraps to 0x30, inside the message.
    case targetInfoOffsetWraps = "target-info-offset-wraps"
    /// The offset points into the fixed header (at 0), so the target info overlaps the signature.
    case targetInfoInHeader = "target-info-in-header"
}

public struct DigestChallenge: Sendable, Equatable {
    /// The algorithm; nil sends no `algorithm` parameter, which means MD5 (RFC 7616 §3.3).
    public var algorithm: DigestAlgorithm?
    /// The qop values offered; empty means RFC 2069 compatibility (no qop, nc or cnonce).
    public var qop: [DigestQOP]
    public var opaque: Opaque
    /// Offers `userhash=true`; the client may then send `H(username:realm)` instead of the name.
    public var userhash: Bool
    /// Adds `charset=UTF-8`.
    public var charsetUTF8: Bool
    /// What a successful answer adds in `Authentication-Info` (RFC 7616 §3.5); nil sends none.
    public var authenticationInfo: DigestAuthenticationInfo?

    public enum Opaque: Sendable, Equatable {
        case none
        /// A random value chosen when the server starts.
        case generated
        case fixed(String)
    }

    public init(
        algorithm: DigestAlgorithm? = nil,
        qop: [DigestQOP] = [.auth],
        opaque: Opaque = .none,
        userhash: Bool = false,
        charsetUTF8: Bool = false,
        authenticationInfo: DigestAuthenticationInfo? = nil
    ) {
        self.algorithm = algorithm
        self.qop = qop
        self.opaque = opaque
        self.userhash = userhash
        self.charsetUTF8 = charsetUTF8
        self.authenticationInfo = authenticationInfo
    }

    /// The algorithm in effect: MD5 when none is named.
    public var effectiveAlgorithm: DigestAlgorithm { algorithm ?? .md5 }
}

public enum ChallengeStyle: String, Sendable, Equatable, CaseIterable {
    /// One `WWW-Authenticate` field per challenge.
    case separateFields = "separate"
    /// All challenges comma-separated in one `WWW-Authenticate` field.
    case singleField = "combined"
}
