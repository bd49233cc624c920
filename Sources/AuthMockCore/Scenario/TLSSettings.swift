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

    /// Whether a client that trusts `ca.pem` and checks the host should accept this identity.
    public var isTrustworthy: Bool { self == .caSigned || self == .selfSigned }
}

/// The key type of generated leaves.
public enum KeyType: String, Sendable, CaseIterable, Codable {
    case ecdsaP256 = "ecdsa-p256"
    case rsa2048 = "rsa-2048"
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

    public static let defaultHosts = ["localhost", "127.0.0.1", "::1"]

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
