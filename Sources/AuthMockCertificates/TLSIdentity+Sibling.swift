import AuthMockCore
import Crypto
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import X509

extension TLSIdentity {
    /// An identity for a second server of the same scenario (the HTTPS proxy), as `request` asks.
    ///
    /// A `ca-signed` request is signed by this identity's issuer, so that its `ca.pem` is this one's: a client
    /// given the scenario's CA trusts both servers. That needs an issuer whose chain leads to `ca.pem` and is
    /// sent whole; when this identity has none (self-signed, signed by an untrusted root, an incomplete chain,
    /// or loaded from files), and for every other kind, the sibling is generated with a CA of its own.
    public func sibling(_ request: IdentityRequest, now: Date = Date()) throws -> TLSIdentity {
        guard request.kind == .caSigned, let signer, let kind, Self.sharesIssuer(kind) else {
            return try TLSIdentity.generate(request, now: now)
        }
        let key = Certificate.PrivateKey(P256.Signing.PrivateKey())
        let template = LeafTemplate(
            hosts: request.hosts, notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(30 * 86400)
        )
        let leaf = try signer.sign(template, key: key)
        let intermediates = try chainPEMs.dropFirst().map { try Certificate(pemEncoded: $0) }
        return try TLSIdentity(
            kind: .caSigned, leaf: leaf, leafKey: key, intermediates: intermediates,
            trust: try Certificate(pemEncoded: trustPEM), signer: signer, template: template
        )
    }

    /// Whether an identity of this kind is signed by the CA in its `ca.pem`, with its chain sent whole.
    static func sharesIssuer(_ kind: IdentityKind) -> Bool {
        switch kind {
        case .selfSigned, .untrustedRoot, .incompleteChain: false
        default: true
        }
    }
}

/// The 4 or 16 bytes of an IPv4 or IPv6 literal, or nil for a name.
func IPAddressBytes(_ text: String) -> [UInt8]? {
    var v4 = in_addr()
    if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
    var v6 = in6_addr()
    if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: v6) { Array($0) } }
    return nil
}

/// The subject (RFC 4514 text) of a DER certificate, e.g. a client's as the TLS stack hands it over.
public func certificateSubject(der: [UInt8]) -> String? {
    (try? Certificate(derEncoded: der))?.subject.description
}
