#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import X509

/// A root CA that signs the identities of many servers: `authmock check` makes one per run, so that every
/// case whose client is given the CA is given the same one, and a client kept across cases (a browser in a
/// warm process) trusts it once. Each identity is still the case's own: its leaf, its key, its intermediate.
/// Kinds whose trust anchor is not this root keep theirs: a self-signed leaf, and the SHA-1 identity (an RSA
/// root: swift-certificates signs sha1WithRSAEncryption with RSA keys only).
public struct TLSRoot: Sendable, Equatable {
    let signer: Signer

    /// A new P-256 root, valid from a day before `now` for a year, as each identity's own root is.
    public static func generate(now: Date = Date()) throws -> TLSRoot {
        TLSRoot(signer: try Signer.makeRoot(name: "authmock test root", keyType: .ecdsaP256, now: now))
    }

    /// The root certificate, PEM.
    public var certificatePEM: String {
        get throws { try signer.certificate.serializeAsPEM().pemString }
    }

    public static func == (lhs: TLSRoot, rhs: TLSRoot) -> Bool {
        lhs.signer.certificate == rhs.signer.certificate
    }
}
