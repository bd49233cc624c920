import AuthMockCore
import NIOCore

/// The SOCKS5 listener's connection: feeds the bytes to the pure ``SOCKS5Session``, writes its replies,
/// journals how the handshake ended, and after a granted CONNECT plays the target origin on the same
/// channel, as a CONNECT tunnel through the HTTP proxy does (``ProxyStack``): the origin's handlers (TLS
/// included) come behind this one, the bytes the client sent after its request are handed to them, and
/// this handler leaves. Nothing here blocks: the session is pure and the journal is delivered under the
/// engines' lock like any decision.
final class SOCKS5Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var session: SOCKS5Session
    private let record: ConnectionRecord
    private let engines: LockedEngines
    private let origin: @Sendable (Int) -> OriginListener?
    /// Plays the origin on this channel once the CONNECT is granted.
    private let tunnel: (any Channel, OriginListener) throws -> Void
    private let timeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(
        settings: SOCKS5Settings, record: ConnectionRecord, engines: LockedEngines, timeout: TimeAmount,
        origin: @escaping @Sendable (Int) -> OriginListener?,
        tunnel: @escaping (any Channel, OriginListener) throws -> Void
    ) {
        session = SOCKS5Session(settings: settings)
        self.record = record
        self.engines = engines
        self.timeout = timeout
        self.origin = origin
        self.tunnel = tunnel
    }

    func handlerAdded(context: ChannelHandlerContext) {
        // A handshake that does not arrive whole within the header timeout is journaled and closed.
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) {
            let (handler, context) = loopBound.value
            handler.timedOut(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !session.isDone else { return }
        let buffer = unwrapInboundIn(data)
        let origin = self.origin
        let step = session.receive(buffer.readableBytesView) { target in origin(target.port) != nil }
        var written: EventLoopFuture<Void>?
        if !step.reply.isEmpty {
            written = context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: step.reply)))
        }
        if let outcome = step.outcome { journal(outcome) }
        switch step.action {
        case .wait:
            break
        case .close:
            deadline?.cancel()
            // Once the failure code is out (or could not be written): the client reads it before the close.
            let channel = context.channel
            if let written {
                written.whenComplete { _ in channel.close(promise: nil) }
            } else {
                channel.close(promise: nil)
            }
        case .tunnel(let target, let leftover):
            deadline?.cancel()
            startTunnel(to: target, leftover: leftover, context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        if let outcome = session.closed() { journal(outcome) }
        context.fireChannelInactive()
    }

    /// Shutdown: a handshake still under way is journaled and closed; the server waits for no client here.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else { return context.fireUserInboundEventTriggered(event) }
        deadline?.cancel()
        if let outcome = session.serverClosed() { journal(outcome) }
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func timedOut(context: ChannelHandlerContext) {
        let seconds = Double(timeout.nanoseconds) / 1_000_000_000
        if let outcome = session.timedOut(after: seconds) { journal(outcome) }
        context.close(promise: nil)
    }

    private func journal(_ outcome: SOCKS5Outcome) {
        engines.recordSOCKS5(outcome, connection: ConnectionInfo(id: record.id, exchange: 1, remote: record.remote))
    }

    /// The origin's handlers behind this one, the leftover bytes into them, and this handler out.
    private func startTunnel(to target: SOCKS5Target, leftover: [UInt8], context: ChannelHandlerContext) {
        guard let listener = origin(target.port) else {
            context.close(promise: nil)
            return
        }
        do {
            try tunnel(context.channel, listener)
            if !leftover.isEmpty {
                context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: leftover)))
            }
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        } catch {
            context.close(promise: nil)
        }
    }
}
