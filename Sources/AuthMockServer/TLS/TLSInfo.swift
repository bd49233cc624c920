#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What clients need to trust and pin the server: file paths and pins. Part of the ready line as `tls`.
///
/// Field names are stable; other projects' tests read them.
public struct TLSInfo: Codable, Sendable, Equatable {
    public var identity: String?
    /// What clients should trust (`ca.pem`).
    public var caFile: String
    /// What the server sends: leaf then intermediates (`chain.pem`).
    public var chainFile: String
    public var leafFile: String
    public var keyFile: String
    /// RFC 7469 `pin-sha256`: base64 of SHA-256 over the leaf's SubjectPublicKeyInfo.
    public var pinSHA256: String
    /// The same pin in curl's `--pinnedpubkey` form, `sha256//BASE64`.
    public var curlPin: String
    /// SHA-256 of the leaf certificate (DER), lower-case hex.
    public var fingerprintSHA256: String
    /// The same certificate pin under the name of the runner's input, `{cert_sha256}` /
    /// `AUTHMOCK_CERT_SHA256` (as `pin_sha256` is `{pin_sha256}`).
    public var certSHA256: String?
    public var clientCAFile: String?
    /// Per user: the client certificate and key files, and the certificate's subject.
    public var clientCerts: [String: ClientFiles]?

    public struct ClientFiles: Codable, Sendable, Equatable {
        public var certFile: String
        public var keyFile: String
        public var subject: String

        enum CodingKeys: String, CodingKey {
            case certFile = "cert_file"
            case keyFile = "key_file"
            case subject
        }
    }

    enum CodingKeys: String, CodingKey {
        case identity
        case caFile = "ca_file"
        case chainFile = "chain_file"
        case leafFile = "leaf_file"
        case keyFile = "key_file"
        case pinSHA256 = "pin_sha256"
        case curlPin = "curl_pin"
        case fingerprintSHA256 = "fingerprint_sha256"
        case certSHA256 = "cert_sha256"
        case clientCAFile = "client_ca_file"
        case clientCerts = "client_certs"
    }
}
