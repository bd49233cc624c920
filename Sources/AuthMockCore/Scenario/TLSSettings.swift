/// The ways a server's TLS identity can be right or wrong, each wrong in exactly one way.
public enum IdentityKind: String, Sendable, CaseIterable, Codable {
    /// A leaf that signs itself; clients trust it only when given it as their CA.
    case selfSigned = "self-signed"
    /// Root CA (and optionally an intermediate) and a leaf it signed: the correct setup.
    case caSigned = "ca-signed"
    /// Signed by the CA, but its validity ended yesterday.
    case expired
    /// Signed by the CA, but valid only from tomorrow.
    case notYetValid = "not-yet-valid"
    /// Signed by the CA, for names other than the ones served.
    case wrongHost = "wrong-host"
    /// Signed by a CA other than the one written to `ca.pem`.
    case untrustedRoot = "untrusted-root"
    /// Signed by an intermediate that the server does not send.
    case incompleteChain = "incomplete-chain"
    /// An RSA-1024 leaf, which OpenSSL's default security level refuses.
    case weakKey = "weak-key"
    /// A leaf signed with SHA-1 (sha1WithRSAEncryption).
    case sha1Signature = "sha1-signature"
    /// Signed by the CA, its host only in the subject's CN: no subjectAltName, which RFC 6125 §6.4.4 and
    /// the CA/B Baseline Requirements make the only place clients may look.
    case cnOnly = "cn-only"
    /// Signed by the CA, its names only in the subjectAltName: a subject without CN, which every client
    /// that follows RFC 6125 accepts (badssl.com's no-common-name).
    case noCommonName = "no-common-name"

    /// The identity for people, as the judge names what a client was shown.
    public var shownToClients: String {
        switch self {
        case .selfSigned: "a self-signed certificate"
        case .caSigned: "a certificate signed by the given CA"
        case .expired: "a certificate that expired yesterday"
        case .notYetValid: "a certificate valid only from tomorrow"
        case .wrongHost: "a certificate for other names (wrong.host.invalid, 192.0.2.1)"
        case .untrustedRoot: "a certificate signed by a CA other than the given one"
        case .incompleteChain: "a leaf without the intermediate that links it to the given root"
        case .weakKey: "a certificate with an RSA-1024 key"
        case .sha1Signature: "a certificate signed with SHA-1"
        case .cnOnly: "a certificate naming the host only in its subject CN (no subjectAltName)"
        case .noCommonName: "a certificate naming the host only in its subjectAltName (no CN in the subject)"
        }
    }

    /// Whether a client that trusts `ca.pem` and checks the host should accept this identity.
    public var isTrustworthy: Bool { self == .caSigned || self == .selfSigned || self == .noCommonName }
}

/// The key type of generated leaves.
public enum KeyType: String, Sendable, CaseIterable, Codable {
    case ecdsaP256 = "ecdsa-p256"
    case rsa2048 = "rsa-2048"
}

/// A TLS protocol version a scenario can allow (`tls.min-version`, `tls.max-version`).
public enum TLSProtocolVersion: String, Sendable, CaseIterable, Comparable {
    case v1_0 = "1.0"
    case v1_1 = "1.1"
    case v1_2 = "1.2"
    case v1_3 = "1.3"

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Whether the server asks clients for a certificate.
public enum ClientCertificateMode: String, Sendable, CaseIterable {
    case none
    /// Asked for; verified when sent; the connection goes on without one.
    case optional
    /// Asked for; the handshake fails without a valid one.
    case required
}

/// A scenario's `tls:` section: serve HTTPS with a generated identity.
public struct TLSSettings: Sendable, Equatable {
    public var identity: IdentityKind
    public var keyType: KeyType
    /// Names and addresses the certificate is for.
    public var hosts: [String]
    /// Put an intermediate CA between root and leaf.
    public var intermediate: Bool
    public var clientCertificate: ClientCertificateMode
    /// Also listen on plain HTTP (its URL is `http_url` in the ready line).
    public var plainHTTP: Bool
    /// Replace the leaf every N HTTP requests; nil rotates only on `POST /_authmock/tls/rotate`.
    public var rotateAfterRequests: Int?
    /// Whether rotations keep the key (public-key pins still match) or make a new one (both pins break).
    public var rotateKeepsKey: Bool
    /// The oldest and newest protocol versions the server agrees to (1.2 and 1.3 unless a scenario says;
    /// `max-version: "1.1"` makes a server that RFC 8996 tells clients to refuse).
    public var minVersion: TLSProtocolVersion = .v1_2
    public var maxVersion: TLSProtocolVersion = .v1_3

    public static let defaultHosts = ["localhost", "127.0.0.1", "::1"]

    /// What a client meets, for people: "a certificate that expired yesterday, over TLS 1.0–1.1 only".
    public var shownToClients: String {
        var text = identity.shownToClients
        if maxVersion < .v1_2 || minVersion > .v1_2 {
            text += minVersion == maxVersion
                ? ", over TLS \(minVersion.rawValue) only"
                : ", over TLS \(minVersion.rawValue)–\(maxVersion.rawValue) only"
        }
        if clientCertificate != .none { text += ", asking for a client certificate (\(clientCertificate.rawValue))" }
        if let every = rotateAfterRequests {
            text += ", renewed after every \(every == 1 ? "request" : "\(every) requests") "
                + (rotateKeepsKey ? "with the same key" : "with a new key")
        }
        return text
    }

    public init(
        identity: IdentityKind = .caSigned, keyType: KeyType = .ecdsaP256, hosts: [String] = TLSSettings.defaultHosts,
        intermediate: Bool = false, clientCertificate: ClientCertificateMode = .none, plainHTTP: Bool = false,
        rotateAfterRequests: Int? = nil, rotateKeepsKey: Bool = true
    ) {
        self.identity = identity
        self.keyType = keyType
        self.hosts = hosts
        self.intermediate = intermediate
        self.clientCertificate = clientCertificate
        self.plainHTTP = plainHTTP
        self.rotateAfterRequests = rotateAfterRequests
        self.rotateKeepsKey = rotateKeepsKey
    }
}

/// A proxy's `tls:` (`proxy: {tls: true}`): the forward proxy's listener speaks TLS itself (an HTTPS proxy),
/// with a generated identity for `hosts`. Its certificate comes from the scenario's CA when the origin's is
/// signed by it, else from a CA of its own; clients are given it as `{proxy_ca_file}`.
public struct ProxyTLSSettings: Sendable, Equatable {
    public var identity: IdentityKind
    /// The names the proxy's certificate is for: the ones clients reach the proxy by.
    public var hosts: [String]

    public static let defaultHosts = ["localhost", "127.0.0.1"]

    public init(identity: IdentityKind = .caSigned, hosts: [String] = ProxyTLSSettings.defaultHosts) {
        self.identity = identity
        self.hosts = hosts
    }
}
