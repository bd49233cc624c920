import AuthMockCertificates
import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOConcurrencyHelpers
import NIOSSL

#if canImport(Glibc)
import Glibc
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let systemWrite = Darwin.write
#endif

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
    private let versions: ClosedRange<TLSProtocolVersion>
    /// The ALPN protocols offered, in order (`http/1.1`; `h2` first when the scenario has HTTP/2).
    let alpn: [String]
    let directory: URL
    private let ownsDirectory: Bool

    /// - Parameter directory: where to write the files; nil makes a temporary one, removed by ``close()``.
    init(
        identity: TLSIdentity, clientCertificate: ClientCertificateMode,
        versions: ClosedRange<TLSProtocolVersion> = .v1_2 ... .v1_3, alpn: [String] = ["http/1.1"], directory: URL?
    ) throws {
        if let directory {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            self.directory = directory
            ownsDirectory = false
        } else {
            self.directory = ScratchDirectory.unique("authmock-certs")
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
            ownsDirectory = true
        }
        self.clientCertificate = clientCertificate
        self.versions = versions
        self.alpn = alpn
        let info = try TLSInfo.write(identity, to: self.directory)
        let context = try Self.makeContext(
            identity, clientCertificate: clientCertificate, versions: versions, alpn: alpn
        )
        current = NIOLockedValueBox(Current(identity: identity, context: context, info: info))
    }

    /// The context for the next connection.
    var context: NIOSSLContext { current.withLockedValue { $0.context } }

    /// The context for a new connection and what it presents, read together so that a rotation cannot
    /// come between them.
    var forNewConnection: (NIOSSLContext, TLSInfo) { current.withLockedValue { ($0.context, $0.info) } }

    var info: TLSInfo { current.withLockedValue { $0.info } }

    /// The identity served now (an HTTPS proxy's is issued beside it).
    var identity: TLSIdentity { current.withLockedValue { $0.identity } }

    /// Replaces the leaf for new connections and rewrites the files. Runs off the event loop (RSA keys
    /// take a while to make).
    @discardableResult
    func rotate(keepKey: Bool) throws -> TLSInfo {
        try rotation.withLock {
            let identity = try current.withLockedValue { $0.identity }.rotated(keepKey: keepKey)
            let context = try Self.makeContext(
                identity, clientCertificate: clientCertificate, versions: versions, alpn: alpn
            )
            let info = try TLSInfo.write(identity, to: directory)
            current.withLockedValue { $0 = Current(identity: identity, context: context, info: info) }
            return info
        }
    }

    /// Removes the files when the directory was a temporary one.
    func close() {
        if ownsDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    static func makeContext(
        _ identity: TLSIdentity, clientCertificate: ClientCertificateMode, versions: ClosedRange<TLSProtocolVersion>,
        alpn: [String]
    ) throws -> NIOSSLContext {
        let chain = try identity.chainPEMs.map { try NIOSSLCertificate(bytes: Array($0.utf8), format: .pem) }
        let key = try NIOSSLPrivateKey(bytes: Array(identity.privateKeyPEM.utf8), format: .pem)
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key)
        )
        configuration.minimumTLSVersion = versions.lowerBound.nio
        configuration.maximumTLSVersion = versions.upperBound.nio
        configuration.applicationProtocols = alpn
        if clientCertificate != .none, let clientCA = identity.clientCAPEM {
            configuration.trustRoots = .certificates([try NIOSSLCertificate(bytes: Array(clientCA.utf8), format: .pem)])
            configuration.sendCANameList = true
            configuration.certificateVerification =
                clientCertificate == .required ? .noHostnameVerification : .optionalVerification
        }
        return try NIOSSLContext(configuration: configuration)
    }

}

extension TLSProtocolVersion {
    var nio: TLSVersion {
        switch self {
        case .v1_0: .tlsv1
        case .v1_1: .tlsv11
        case .v1_2: .tlsv12
        case .v1_3: .tlsv13
        }
    }
}

extension TLSInfo {
    /// Writes ca.pem, chain.pem, leaf.pem, key.pem and the client files; returns their description.
    public static func write(_ identity: TLSIdentity, to directory: URL) throws -> TLSInfo {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        func save(_ name: String, _ text: String) throws -> String {
            let url = directory.appendingPathComponent(name)
            try replaceFile(url, with: text)
            return url.path
        }
        var info = TLSInfo(
            identity: identity.kind?.rawValue, caFile: try save("ca.pem", identity.trustPEM),
            chainFile: try save("chain.pem", identity.chainPEM), leafFile: try save("leaf.pem", identity.leafPEM),
            keyFile: try save("key.pem", identity.privateKeyPEM), pinSHA256: identity.pinSHA256,
            curlPin: identity.curlPin, fingerprintSHA256: identity.fingerprintSHA256,
            certSHA256: identity.fingerprintSHA256
        )
        if let clientCA = identity.clientCAPEM {
            info.clientCAFile = try save("client-ca.pem", clientCA)
            try FileManager.default.createDirectory(
                at: directory.appendingPathComponent("clients"), withIntermediateDirectories: true
            )
            var clients: [String: TLSInfo.ClientFiles] = [:]
            for (index, client) in identity.clients.enumerated() {
                let base = "clients/\(index + 1)-\(Self.fileSafe(client.user))"
                clients[client.user] = TLSInfo.ClientFiles(
                    certFile: try save("\(base).pem", client.certificatePEM),
                    keyFile: try save("\(base).key.pem", client.privateKeyPEM), subject: client.subject
                )
            }
            info.clientCerts = clients
        }
        return info
    }

    /// Writes the file under a temporary name and renames it over the old one, so that a client reading
    /// it during a rotation sees the old file or the new, never half of one. Plain POSIX calls: Foundation's
    /// `Data.write` syncs every file to disk (0.9 ms of a start with TLS), and these files live no longer
    /// than the server.
    private static func replaceFile(_ url: URL, with text: String) throws {
        let temporary = url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(getpid()).tmp").path
        func failure(_ path: String) -> CocoaError {
            CocoaError(
                .fileWriteUnknown,
                userInfo: [
                    "NSFilePath": path, "NSUnderlyingError": POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
                ]
            )
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure(temporary) }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { systemWrite(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else {
                let error = failure(temporary)
                close(fd)
                unlink(temporary)
                throw error
            }
            bytes = bytes.dropFirst(written)
        }
        guard close(fd) == 0, rename(temporary, url.path) == 0 else {
            let error = failure(url.path)
            unlink(temporary)
            throw error
        }
    }

    private static func fileSafe(_ name: String) -> String {
        String(name.unicodeScalars.map {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
                ? Character($0) : "_"
        })
    }
}
