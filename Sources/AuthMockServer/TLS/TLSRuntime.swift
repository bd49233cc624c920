import AuthMockCertificates
import AuthMockCore
import Foundation
import NIOConcurrencyHelpers
import NIOSSL

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
        case clientCAFile = "client_ca_file"
        case clientCerts = "client_certs"
    }
}

/// The server's TLS identity while it runs: the SSL context for new connections, the files written for
/// clients, and rotation.
final class TLSRuntime: Sendable {
    private struct Current {
        var identity: TLSIdentity
        var context: NIOSSLContext
        var info: TLSInfo
    }

    private let current: NIOLockedValueBox<Current>
    /// Held across a whole rotation (build, write, swap), so two rotations cannot interleave and leave
    /// the files on disk describing another certificate than the one served.
    private let rotation = NIOLock()
    private let clientCertificate: ClientCertificateMode
    let directory: URL
    private let ownsDirectory: Bool

    /// - Parameter directory: where to write the files; nil makes a temporary one, removed by ``close()``.
    init(identity: TLSIdentity, clientCertificate: ClientCertificateMode, directory: URL?) throws {
        if let directory {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.directory = directory
            ownsDirectory = false
        } else {
            self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-certs-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
            ownsDirectory = true
        }
        self.clientCertificate = clientCertificate
        let info = try TLSInfo.write(identity, to: self.directory)
        let context = try Self.makeContext(identity, clientCertificate: clientCertificate)
        current = NIOLockedValueBox(Current(identity: identity, context: context, info: info))
    }

    /// The context for the next connection.
    var context: NIOSSLContext { current.withLockedValue { $0.context } }

    var info: TLSInfo { current.withLockedValue { $0.info } }

    /// Replaces the leaf for new connections and rewrites the files. Runs off the event loop (RSA keys
    /// take a while to make).
    @discardableResult
    func rotate(keepKey: Bool) throws -> TLSInfo {
        try rotation.withLock {
            let identity = try current.withLockedValue { $0.identity }.rotated(keepKey: keepKey)
            let context = try Self.makeContext(identity, clientCertificate: clientCertificate)
            let info = try TLSInfo.write(identity, to: directory)
            current.withLockedValue { $0 = Current(identity: identity, context: context, info: info) }
            return info
        }
    }

    /// Removes the files when the directory was a temporary one.
    func close() {
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    static func makeContext(_ identity: TLSIdentity, clientCertificate: ClientCertificateMode) throws -> NIOSSLContext {
        let chain = try identity.chainPEMs.map { try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem) }
        let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)
        )
        configuration.minimumTLSVersion = .tlsv12
        configuration.maximumTLSVersion = .tlsv13
        configuration.applicationProtocols = ["http/1.1"]
        if clientCertificate != .none, let clientCA = identity.clientCAPEM {
            configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(clientCA.utf8), format: .pem)])
            configuration.sendCANameList = true
            configuration.certificateVerification = clientCertificate == .required ? .noHostnameVerification : .optionalVerification
        }
        return try NIOSSLContext(configuration: configuration)
    }

}

extension TLSInfo {
    /// Writes ca.pem, chain.pem, leaf.pem, key.pem and the client files; returns their description.
    public static func write(_ identity: TLSIdentity, to directory: URL) throws -> TLSInfo {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func save(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try Data(text.utf8).write(to: url, options: .atomic)
            return url.path
        }
        var info = TLSInfo(
            identity: identity.kind?.rawValue, caFile: try save("ca.pem", identity.trustPEM), chainFile: try save("chain.pem", identity.chainPEM),
            leafFile: try save("leaf.pem", identity.leafPEM), keyFile: try save("key.pem", identity.privateKeyPEM),
            pinSHA256: identity.pinSHA256, curlPin: identity.curlPin, fingerprintSHA256: identity.fingerprintSHA256
        )
        if let clientCA = identity.clientCAPEM {
            info.clientCAFile = try save("client-ca.pem", clientCA)
            try FileManager.default.createDirectory(at: directory.appendingPathComponent("clients"), withIntermediateDirectories: true)
            var clients: [String: TLSInfo.ClientFiles] = [:]
            for (index, client) in identity.clients.enumerated() {
                let base = "clients/\(index + 1)-\(Self.fileSafe(client.user))"
                clients[client.user] = TLSInfo.ClientFiles(
                    certFile: try save("\(base).pem", client.certificatePEM), keyFile: try save("\(base).key.pem", client.privateKeyPEM),
                    subject: client.subject
                )
            }
            info.clientCerts = clients
        }
        return info
    }

    private static func fileSafe(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") ? Character($0) : "_" })
    }
}

/// Readable reasons for TLS handshake failures, from what BoringSSL reports.
enum TLSFailure {
    static func describe(_ error: any Error) -> String {
        let raw = String(describing: error)
        let known: [(String, String)] = [
            ("HTTP_REQUEST", "the client sent plain HTTP to the HTTPS port"),
            ("TLSV1_ALERT_UNKNOWN_CA", "the client does not trust the certificate's issuer (alert unknown_ca)"),
            ("SSLV3_ALERT_CERTIFICATE_EXPIRED", "the client found the certificate expired or not yet valid (alert certificate_expired)"),
            ("SSLV3_ALERT_BAD_CERTIFICATE", "the client rejected the certificate (alert bad_certificate)"),
            ("SSLV3_ALERT_CERTIFICATE_UNKNOWN", "the client rejected the certificate (alert certificate_unknown)"),
            ("SSLV3_ALERT_UNSUPPORTED_CERTIFICATE", "the client does not support the certificate (alert unsupported_certificate)"),
            ("TLSV1_ALERT_DECRYPT_ERROR", "the handshake failed to verify (alert decrypt_error)"),
            ("SSLV3_ALERT_HANDSHAKE_FAILURE", "the client and server share no parameters (alert handshake_failure)"),
            ("TLSV1_ALERT_INSUFFICIENT_SECURITY", "the client finds the certificate too weak (alert insufficient_security)"),
            ("PEER_DID_NOT_RETURN_A_CERTIFICATE", "the client sent no certificate, and one is required"),
            ("CERTIFICATE_VERIFY_FAILED", "the client certificate did not verify against the client CA"),
            ("WRONG_VERSION_NUMBER", "the client did not speak TLS 1.2 or 1.3"),
            ("UNSUPPORTED_PROTOCOL", "the client offered only TLS versions the server refuses"),
            ("NO_SHARED_CIPHER", "the client and server share no cipher"),
            // OpenSSL clients refusing a certificate in TLS 1.3 send an alert the server cannot decrypt.
            ("DECRYPTION_FAILED_OR_BAD_RECORD_MAC", "the client aborted the handshake with an alert the server could not read (a TLS 1.3 client refusing the certificate looks like this)"),
        ]
        for (code, text) in known where raw.contains(code) { return "\(text) [\(code)]" }
        if raw.contains("uncleanShutdown") || raw.contains("eof") { return "the client closed the connection during the handshake" }
        // Keep BoringSSL's reason codes, not its source paths.
        let codes = raw.components(separatedBy: "OPENSSL_internal:").dropFirst().map { $0.prefix { $0.isUppercase || $0 == "_" || $0.isNumber } }
        return codes.isEmpty ? "the handshake failed (\(raw.prefix(200)))" : "the handshake failed [\(codes.joined(separator: ", "))]"
    }
}
