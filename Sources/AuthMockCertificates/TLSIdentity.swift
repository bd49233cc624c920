import AuthMockCore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import SwiftASN1
import X509
import _CryptoExtras

/// What to generate.
public struct IdentityRequest: Sendable, Equatable {
    public var kind: IdentityKind
    public var keyType: KeyType
    /// DNS names and IP addresses the leaf is for (ignored by `wrong-host`, which uses others).
    public var hosts: [String]
    /// Put an intermediate CA between root and leaf (always for `incomplete-chain`).
    public var intermediate: Bool
    /// Users who get a client certificate, signed by a separate client CA; empty for none.
    public var clientUsers: [String]
    /// The root to sign with instead of a new one (a check run's, see ``TLSRoot``).
    public var root: TLSRoot?

    public static let defaultHosts = ["localhost", "127.0.0.1", "::1"]

    public init(
        kind: IdentityKind = .caSigned, keyType: KeyType = .ecdsaP256, hosts: [String] = IdentityRequest.defaultHosts,
        intermediate: Bool = false, clientUsers: [String] = [], root: TLSRoot? = nil
    ) {
        self.kind = kind
        self.keyType = keyType
        self.hosts = hosts
        self.intermediate = intermediate
        self.clientUsers = clientUsers
        self.root = root
    }
}

/// A client certificate and its key, for one user.
public struct ClientCredential: Sendable, Equatable {
    public var user: String
    public var certificatePEM: String
    public var privateKeyPEM: String
    /// The subject as RFC 4514 text, e.g. `CN=alice,O=authmock`.
    public var subject: String
}

/// A generated (or loaded) server identity: what the server presents and what clients are given.
public struct TLSIdentity: Sendable {
    public var kind: IdentityKind?
    /// What clients should trust (`ca.pem`): the root, the self-signed leaf, or — for
    /// `untrusted-root` — a decoy root that did not sign the leaf.
    public var trustPEM: String
    /// The leaf alone (`leaf.pem`).
    public var leafPEM: String
    /// What the server sends: leaf, then intermediates (`chain.pem`). Without the intermediate for
    /// `incomplete-chain`.
    public var chainPEMs: [String]
    public var privateKeyPEM: String
    /// RFC 7469 pin: base64 of SHA-256 over the leaf's SubjectPublicKeyInfo DER.
    public var pinSHA256: String
    /// SHA-256 of the leaf's DER, lower-case hex.
    public var fingerprintSHA256: String
    public var clientCAPEM: String?
    public var clients: [ClientCredential]

    /// What a rotation needs to sign a new leaf the same way.
    let signer: Signer?
    let leafKey: Certificate.PrivateKey?
    let leafTemplate: LeafTemplate?

    /// The chain as one PEM text.
    public var chainPEM: String { chainPEMs.joined() }

    /// curl's `--pinnedpubkey` form.
    public var curlPin: String { "sha256//\(pinSHA256)" }

    /// Generates an identity. `now` fixes the validity windows (tests pass a fixed time).
    public static func generate(_ request: IdentityRequest, now: Date = Date()) throws -> TLSIdentity {
        let shared = request.kind == .sha1Signature ? nil : request.root?.signer
        let root = try shared ?? Signer.makeRoot(
            name: "authmock test root", keyType: request.kind == .sha1Signature ? .rsa2048 : .ecdsaP256, now: now
        )
        var issuer = root
        var sentIntermediates: [Certificate] = []
        if request.intermediate || request.kind == .incompleteChain {
            // A SHA-1 leaf needs an RSA issuer: swift-certificates signs sha1WithRSAEncryption with RSA keys only.
            issuer = try root.makeIntermediate(
                name: "authmock test intermediate", keyType: request.kind == .sha1Signature ? .rsa2048 : .ecdsaP256,
                now: now
            )
            if request.kind != .incompleteChain { sentIntermediates.append(issuer.certificate) }
        }
        if request.kind == .untrustedRoot {
            issuer = try Signer.makeRoot(name: "authmock untrusted root", keyType: .ecdsaP256, now: now)
        }

        let leafKey = try Self.leafKey(for: request)
        let template = Self.leafTemplate(for: request, now: now)

        let leaf: Certificate
        let signer: Signer?
        if request.kind == .selfSigned {
            leaf = try template.selfSigned(key: leafKey)
            signer = nil
        } else {
            leaf = try issuer.sign(template, key: leafKey)
            signer = issuer
        }

        var identity = try TLSIdentity(
            kind: request.kind, leaf: leaf, leafKey: leafKey, intermediates: sentIntermediates,
            trust: request.kind == .selfSigned ? leaf : root.certificate, signer: signer, template: template
        )
        if !request.clientUsers.isEmpty {
            let clientCA = try Signer.makeRoot(name: "authmock client CA", keyType: .ecdsaP256, now: now)
            identity.clientCAPEM = try clientCA.certificate.serializeAsPEM().pemString
            identity.clients = try request.clientUsers.map { user in
                let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
                let certificate = try clientCA.signClient(user: user, key: key, now: now)
                return ClientCredential(
                    user: user, certificatePEM: try certificate.serializeAsPEM().pemString,
                    privateKeyPEM: try key.serializeAsPEM().pemString, subject: certificate.subject.description
                )
            }
        }
        return identity
    }

    /// The leaf's key: the requested type, or a 1024-bit RSA key for the weak-key identity.
    private static func leafKey(for request: IdentityRequest) throws -> Certificate.PrivateKey {
        switch (request.kind, request.keyType) {
        case (.weakKey, _):
            return Certificate.PrivateKey(try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024)))
        case (_, .rsa2048): return Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        case (_, .ecdsaP256): return Certificate.PrivateKey(P256.Signing.PrivateKey())
        }
    }

    /// The leaf's names, validity and signature: valid for a month, unless the identity is broken on purpose.
    private static func leafTemplate(for request: IdentityRequest, now: Date) -> LeafTemplate {
        var template = LeafTemplate(
            hosts: request.hosts, notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(30 * 86400)
        )
        switch request.kind {
        case .expired:
            template.notBefore = now.addingTimeInterval(-30 * 86400)
            template.notAfter = now.addingTimeInterval(-86400)
        case .notYetValid:
            template.notBefore = now.addingTimeInterval(86400)
            template.notAfter = now.addingTimeInterval(30 * 86400)
        case .wrongHost:
            template.hosts = ["wrong.host.invalid", "192.0.2.1"]
        case .sha1Signature:
            template.signatureAlgorithm = .sha1WithRSAEncryption
        case .cnOnly:
            template.subjectAltNames = false
        case .noCommonName:
            template.commonName = false
        default:
            break
        }
        return template
    }

    /// A new leaf for the same names and issuer: with the same key (public-key pins still match,
    /// certificate pins do not) or a new one (both break).
    public func rotated(keepKey: Bool, now: Date = Date()) throws -> TLSIdentity {
        guard let leafKey, let leafTemplate else { throw TLSIdentityError("a loaded identity cannot be rotated") }
        let key = keepKey ? leafKey : try Self.freshKey(like: leafKey)
        // The same validity window: a rotation must not repair an identity that is broken on purpose.
        let template = leafTemplate
        let leaf = try signer.map { try $0.sign(template, key: key) } ?? template.selfSigned(key: key)
        let intermediates = try chainPEMs.dropFirst().map { try Certificate(pemEncoded: $0) }
        var rotated = try TLSIdentity(
            kind: kind, leaf: leaf, leafKey: key, intermediates: intermediates,
            trust: signer == nil ? leaf : try Certificate(pemEncoded: trustPEM), signer: signer, template: template
        )
        rotated.clientCAPEM = clientCAPEM
        rotated.clients = clients
        return rotated
    }

    /// An identity from the user's own PEM files (`--cert`, `--key`, `--ca`).
    public static func load(chainPEM: String, privateKeyPEM: String, trustPEM: String?) throws -> TLSIdentity {
        let certificates = try PEMDocument.parseMultiple(pemString: chainPEM).map { try Certificate(pemDocument: $0) }
        guard let leaf = certificates.first else { throw TLSIdentityError("the certificate file holds no certificate") }
        let key = try Certificate.PrivateKey(pemEncoded: privateKeyPEM)
        guard key.publicKey == leaf.publicKey else {
            throw TLSIdentityError("the private key does not belong to the first certificate")
        }
        var identity = try TLSIdentity(
            kind: nil, leaf: leaf, leafKey: nil, intermediates: Array(certificates.dropFirst()),
            trust: certificates.last!, signer: nil, template: nil
        )
        identity.privateKeyPEM = privateKeyPEM
        if let trustPEM { identity.trustPEM = trustPEM }
        return identity
    }

    init(
        kind: IdentityKind?, leaf: Certificate, leafKey: Certificate.PrivateKey?, intermediates: [Certificate],
        trust: Certificate, signer: Signer?, template: LeafTemplate?
    ) throws {
        self.kind = kind
        self.leafPEM = try leaf.serializeAsPEM().pemString
        self.chainPEMs = try [leafPEM] + intermediates.map { try $0.serializeAsPEM().pemString }
        self.trustPEM = try trust.serializeAsPEM().pemString
        self.privateKeyPEM = try leafKey?.serializeAsPEM().pemString ?? ""
        self.pinSHA256 = try Self.pin(of: leaf.publicKey)
        var serializer = DER.Serializer()
        try serializer.serialize(leaf)
        self.fingerprintSHA256 = SHA256.hash(data: serializer.serializedBytes).hexString
        self.clientCAPEM = nil
        self.clients = []
        self.signer = signer
        self.leafKey = leafKey
        self.leafTemplate = template
    }

    /// The RFC 7469 `pin-sha256` of a public key.
    public static func pin(of publicKey: Certificate.PublicKey) throws -> String {
        var serializer = DER.Serializer()
        try serializer.serialize(publicKey)
        return Data(SHA256.hash(data: serializer.serializedBytes)).base64EncodedString()
    }

    /// The pin of a key made just now and thrown away: a pin no server presents, for testing that a
    /// client refuses a certificate it trusts when the pin does not match.
    public static func unrelatedPin() throws -> String {
        try pin(of: Certificate.PrivateKey(P256.Signing.PrivateKey()).publicKey)
    }

    /// The SHA-256 (hex) of random bytes: a certificate pin no server presents.
    public static func unrelatedFingerprint() -> String {
        SHA256.hash(data: (0..<32).map { _ in UInt8.random(in: 0...255) }).hexString
    }

    /// A new key of the same type and size (a weak key stays weak).
    private static func freshKey(like key: Certificate.PrivateKey) throws -> Certificate.PrivateKey {
        if P256.Signing.PublicKey(key.publicKey) != nil { return Certificate.PrivateKey(P256.Signing.PrivateKey()) }
        let bits = _RSA.Signing.PublicKey(key.publicKey)?.keySizeInBits ?? 2048
        return Certificate.PrivateKey(try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: bits)))
    }
}

public struct TLSIdentityError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// The leaf's fields other than its key and issuer.
struct LeafTemplate: Sendable {
    var hosts: [String]
    var notBefore: Date
    var notAfter: Date
    var signatureAlgorithm: Certificate.SignatureAlgorithm?
    /// Whether the hosts go in a subjectAltName extension; without it the host is only the subject's CN.
    var subjectAltNames = true
    /// Whether the subject has a CN (the first host); without it the names are only in the subjectAltName.
    var commonName = true

    var subject: DistinguishedName {
        get throws {
            commonName
                ? try DistinguishedName {
                    OrganizationName("authmock")
                    CommonName(hosts.first ?? "localhost")
                }
                : try DistinguishedName { OrganizationName("authmock") }
        }
    }

    func extensions(for key: Certificate.PrivateKey, issuerKey: Certificate.PublicKey?)
        throws -> Certificate.Extensions
    {
        let names: [GeneralName] = hosts.map { host in
            if let ip = IPAddressBytes(host) { return .ipAddress(ASN1OctetString(contentBytes: ip[...])) }
            return .dnsName(host)
        }
        let isRSA = P256.Signing.PublicKey(key.publicKey) == nil
        return try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true, keyEncipherment: isRSA))
            try ExtendedKeyUsage([.serverAuth])
            if subjectAltNames { SubjectAlternativeNames(names) }
            SubjectKeyIdentifier(hash: key.publicKey)
            if let issuerKey {
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: issuerKey).keyIdentifier)
            }
        }
    }

    func selfSigned(key: Certificate.PrivateKey) throws -> Certificate {
        let subject = try self.subject
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey, notValidBefore: notBefore,
            notValidAfter: notAfter, issuer: subject, subject: subject,
            signatureAlgorithm: signatureAlgorithm ?? key.defaultSignatureAlgorithm,
            extensions: try extensions(for: key, issuerKey: nil), issuerPrivateKey: key
        )
    }
}

/// A CA certificate with its key, able to sign leaves, intermediates and client certificates.
struct Signer: Sendable {
    var certificate: Certificate
    var key: Certificate.PrivateKey

    static func makeRoot(name: String, keyType: KeyType, now: Date) throws -> Signer {
        let key: Certificate.PrivateKey
        switch keyType {
        case .ecdsaP256: key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        case .rsa2048: key = Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
        let subject = try DistinguishedName {
            OrganizationName("authmock")
            CommonName(name)
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-86400), notValidAfter: now.addingTimeInterval(365 * 86400),
            issuer: subject, subject: subject, signatureAlgorithm: key.defaultSignatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: key.publicKey)
            },
            issuerPrivateKey: key
        )
        return Signer(certificate: certificate, key: key)
    }

    func makeIntermediate(name: String, keyType: KeyType, now: Date) throws -> Signer {
        let key: Certificate.PrivateKey
        switch keyType {
        case .ecdsaP256: key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        case .rsa2048: key = Certificate.PrivateKey(try _RSA.Signing.PrivateKey(keySize: .bits2048))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-86400), notValidAfter: now.addingTimeInterval(180 * 86400),
            issuer: self.certificate.subject, subject: try DistinguishedName {
                OrganizationName("authmock")
                CommonName(name)
            },
            signatureAlgorithm: self.key.defaultSignatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: key.publicKey)
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: self.key.publicKey).keyIdentifier)
            },
            issuerPrivateKey: self.key
        )
        return Signer(certificate: certificate, key: key)
    }

    func sign(_ template: LeafTemplate, key: Certificate.PrivateKey) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: template.notBefore, notValidAfter: template.notAfter, issuer: certificate.subject,
            subject: try template.subject,
            signatureAlgorithm: template.signatureAlgorithm ?? self.key.defaultSignatureAlgorithm,
            extensions: try template.extensions(for: key, issuerKey: self.key.publicKey), issuerPrivateKey: self.key
        )
    }

    func signClient(user: String, key: Certificate.PrivateKey, now: Date) throws -> Certificate {
        try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: key.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86400),
            issuer: certificate.subject, subject: try DistinguishedName {
                OrganizationName("authmock")
                CommonName(user)
            },
            signatureAlgorithm: self.key.defaultSignatureAlgorithm,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.clientAuth])
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: self.key.publicKey).keyIdentifier)
            },
            issuerPrivateKey: self.key
        )
    }
}

extension Certificate.PrivateKey {
    var defaultSignatureAlgorithm: Certificate.SignatureAlgorithm {
        P256.Signing.PublicKey(publicKey) != nil ? .ecdsaWithSHA256 : .sha256WithRSAEncryption
    }
}
