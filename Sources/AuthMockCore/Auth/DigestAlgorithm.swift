import Synchronization

/// The Digest algorithms of RFC 7616 §3.2 (and RFC 2617's MD5 and MD5-sess).
public enum DigestAlgorithm: String, Sendable, CaseIterable, Codable {
    case md5 = "MD5"
    case md5Sess = "MD5-sess"
    case sha256 = "SHA-256"
    case sha256Sess = "SHA-256-sess"
    case sha512_256 = "SHA-512-256"
    case sha512_256Sess = "SHA-512-256-sess"

    /// The token as it appears in a challenge.
    public var token: String { rawValue }

    /// Looks an algorithm up by its token, case-insensitively as RFC 7616 §3.3 asks.
    public init?(token: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.equalsIgnoringASCIICase(token) }) else { return nil }
        self = match
    }

    /// Whether A1 includes the nonce and cnonce (the `-sess` variants).
    public var isSession: Bool {
        switch self {
        case .md5Sess, .sha256Sess, .sha512_256Sess: return true
        case .md5, .sha256, .sha512_256: return false
        }
    }

    /// `H(data)` in lower-case hex.
    public func hash(_ data: some Collection<UInt8>) -> String {
        switch self {
        case .md5, .md5Sess: return HashFunction.md5.hash(data).hexString
        case .sha256, .sha256Sess: return HashFunction.sha256.hash(data).hexString
        case .sha512_256, .sha512_256Sess: return HashFunction.sha512_256.hash(data).hexString
        }
    }

    /// `H(text)`: the UTF-8 of a native string is hashed in place, not copied into an array first.
    public func hash(_ text: String) -> String { hash(text.utf8) }

    /// `H(parts joined by ":")`, without joining them (see ``HashFunction/hash(joining:separator:)``).
    func hash(joining parts: [String]) -> String {
        let function: HashFunction =
            switch self {
            case .md5, .md5Sess: .md5
            case .sha256, .sha256Sess: .sha256
            case .sha512_256, .sha512_256Sess: .sha512_256
            }
        return function.hash(joining: parts, separator: UInt8(ascii: ":")).hexString
    }
}

/// The quality-of-protection values of RFC 7616 §3.3.
public enum DigestQOP: String, Sendable, CaseIterable, Codable {
    case auth
    case authInt = "auth-int"
}

/// The inputs of one Digest response computation (RFC 7616 §3.4.1–3.4.3).
public struct DigestInputs: Sendable {
    public var algorithm: DigestAlgorithm
    public var username: String
    public var realm: String
    public var password: String
    public var method: String
    public var uri: String
    public var nonce: String
    /// nil for RFC 2069 compatibility (no qop): then nc and cnonce are not used.
    public var qop: DigestQOP?
    public var nc: String
    public var cnonce: String
    public var body: [UInt8]
    /// `H(username:realm:password)` as an htdigest file stores it (MD5), used instead of the password.
    public var storedHA1: String?

    public init(
        algorithm: DigestAlgorithm, username: String, realm: String, password: String, method: String, uri: String,
        nonce: String, qop: DigestQOP?, nc: String = "", cnonce: String = "", body: [UInt8] = []
    ) {
        self.algorithm = algorithm
        self.username = username
        self.realm = realm
        self.password = password
        self.method = method
        self.uri = uri
        self.nonce = nonce
        self.qop = qop
        self.nc = nc
        self.cnonce = cnonce
        self.body = body
    }

    /// Takes `user`'s secret: the password, or the stored HA1 of an htdigest entry, which only MD5 and
    /// MD5-sess can use (with any other algorithm nothing matches, as nothing should).
    public mutating func use(_ user: User) {
        password = user.password
        storedHA1 = nil
        if case .htdigest(_, let ha1)? = user.stored {
            storedHA1 = algorithm == .md5 || algorithm == .md5Sess ? ha1 : "\u{0}no-ha1-for-\(algorithm.token)"
        } else if user.stored != nil {
            // An htpasswd hash cannot make H(A1): no response can match.
            storedHA1 = "\u{0}no-ha1-from-htpasswd"
        }
    }

    /// `H(A1)`, with the session variant folding in nonce and cnonce.
    public var ha1: String {
        let base = storedHA1 ?? algorithm.hash("\(username):\(realm):\(password)")
        return algorithm.isSession ? algorithm.hash("\(base):\(nonce):\(cnonce)") : base
    }

    /// `H(A2)`; `auth-int` covers the hash of the body.
    public var ha2: String {
        if qop == .authInt {
            return algorithm.hash(joining: [method, uri, algorithm.hash(body)])
        }
        return algorithm.hash(joining: [method, uri])
    }

    /// The `response` value the client must send.
    public var response: String {
        if let qop {
            return algorithm.hash(joining: [ha1, nonce, nc, cnonce, qop.rawValue, ha2])
        }
        return algorithm.hash(joining: [ha1, nonce, ha2])
    }
}

extension DigestAlgorithm {
    /// The userhash of RFC 7616 §3.4.4: `H(unq(username) ":" unq(realm))`.
    public func userhash(username: String, realm: String) -> String {
        hash("\(username):\(realm)")
    }
}

/// `H(username:realm:password)` by algorithm, user, realm and password: the part of a Digest response
/// that changes only when the password does (or the client names another realm), hashed once instead of on
/// every request. Keyed by the password itself, so a changed password is a new key and nothing needs
/// forgetting; the scenario's own passwords only, never a client's input. Bounded: cleared when full.
final class DigestBaseMemo: Sendable {
    private struct Key: Hashable {
        var algorithm: DigestAlgorithm
        var username: String
        var realm: String
        var password: String
    }

    private let bases = Mutex<[Key: String]>([:])
    static let capacity = 4096

    /// What ``DigestInputs/ha1`` hashes when no stored HA1 replaces it.
    func base(of inputs: DigestInputs) -> String {
        let key = Key(
            algorithm: inputs.algorithm, username: inputs.username, realm: inputs.realm, password: inputs.password
        )
        if let known = bases.withLock({ $0[key] }) { return known }
        let base = inputs.algorithm.hash("\(inputs.username):\(inputs.realm):\(inputs.password)")
        bases.withLock {
            if $0.count >= Self.capacity { $0.removeAll(keepingCapacity: true) }
            $0[key] = base
        }
        return base
    }
}
