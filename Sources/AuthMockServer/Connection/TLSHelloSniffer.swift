import AuthMockCore
import NIOCore

/// Sits between the socket and the TLS handler and reads, without changing a byte, the server name of
/// the client's ClientHello and the cipher suite of the server's ServerHello (NIOSSL exposes neither);
/// then leaves the pipeline. Parsing is ``TLSHello``'s, in the pure core.
final class TLSHelloSniffer: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let record: ConnectionRecord
    private var inbound: [UInt8]? = []
    private var outbound: [UInt8]? = []
    private var removed = false

    init(record: ConnectionRecord) {
        self.record = record
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if inbound != nil {
            let buffer = unwrapInboundIn(data)
            inbound!.append(contentsOf: buffer.readableBytesView.prefix(TLSHello.maximumRecord - inbound!.count))
            switch TLSHello.serverName(inClientHello: inbound!) {
            case .needMore where inbound!.count < TLSHello.maximumRecord: break
            case .found(let name): record.updateTLSFacts { $0.serverName = name }; inbound = nil
            default: inbound = nil
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if outbound != nil, case .byteBuffer(let buffer) = unwrapOutboundIn(data) {
            outbound!.append(contentsOf: buffer.readableBytesView.prefix(TLSHello.maximumRecord - outbound!.count))
            switch TLSHello.cipherSuite(inServerHello: outbound!) {
            case .needMore where outbound!.count < TLSHello.maximumRecord: break
            case .found(let cipher): record.updateTLSFacts { $0.cipher = cipher }; outbound = nil
            default: outbound = nil
            }
        }
        context.write(data, promise: promise)
    }

    /// Leaves only after a flush: removed between a write and its flush, the flush would be lost.
    func flush(context: ChannelHandlerContext) {
        context.flush()
        leaveWhenDone(context)
    }

    private func leaveWhenDone(_ context: ChannelHandlerContext) {
        guard inbound == nil, outbound == nil, !removed else { return }
        removed = true
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
