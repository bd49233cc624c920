import AuthMockCertificates
import AuthMockCore
import NIOCore
import NIOSSL
import NIOTLS

/// Watches a TLS connection's handshake right behind the TLS handler: what it settled (version, ALPN,
/// client certificate) or why it failed, and journals the connection once it closes — one entry per
/// TLS connection, whether or not any request came over it.
final class TLSConnectionObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let record: ConnectionRecord
    private let engines: LockedEngines
    /// Whose connection it is: the origin's, or an HTTPS proxy's.
    private let hop: Hop
    /// The handshake failed on plain HTTP (`tls.plain-http`).
    private var plainHTTP = false

    init(record: ConnectionRecord, engines: LockedEngines, hop: Hop = .origin) {
        self.record = record
        self.engines = engines
        self.hop = hop
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event {
            record.handshake = .completed
            let ssl = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
            let subject = (try? ssl?.peerCertificate?.toDERBytes()).flatMap { certificateSubject(der: $0) }
            record.updateTLSFacts {
                $0.version = ssl?.tlsVersion.map(Self.name)
                $0.alpn = negotiated
                $0.clientCertificate = subject
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard record.handshake != .completed, error is NIOSSLError || error is BoringSSLError else {
            context.fireErrorCaught(error)
            return
        }
        record.handshake = .failed(TLSFailure.describe(error))
        plainHTTP = TLSFailure.isPlainHTTP(error)
        if let alert = TLSFailure.alert(error) { record.updateTLSFacts { $0.alert = alert } }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // The handlers behind this one go first: the HTTP decoder reports a request cut off by the close,
        // and the exchange handler journals it, before this entry counts the connection's requests.
        context.fireChannelInactive()
        let failure: String?
        switch record.handshake {
        case .completed: failure = nil
        case .failed(let reason): failure = reason
        case .pending: failure = "the client closed the connection during the handshake"
        }
        // A connection that only carried control requests (a browser on the live page) is not the client's.
        if failure == nil, record.onlyControl, record.assignedID == nil { return }
        engines.recordTLSConnection(
            record.info, failure: failure, requests: record.exchanges, plainHTTP: plainHTTP && failure != nil, hop: hop
        )
    }

    /// The connection goes idle before its handshake completed: that is why it closes.
    static func idleTimeout(_ record: ConnectionRecord) {
        if record.handshake == .pending {
            record.handshake = .failed("the handshake did not complete within the idle timeout")
        }
    }

    private static func name(_ version: TLSVersion) -> String {
        switch version {
        case .tlsv1: "TLSv1"
        case .tlsv11: "TLSv1.1"
        case .tlsv12: "TLSv1.2"
        case .tlsv13: "TLSv1.3"
        }
    }
}
