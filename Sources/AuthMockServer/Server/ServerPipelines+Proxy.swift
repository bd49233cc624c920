import AuthMockCore
import NIOCore
import NIOHTTP1

extension ServerPipelines {
    /// The forward proxy's connection. Its HTTP handlers are added one by one, so that a granted CONNECT
    /// can take them away and play the origin on the same channel. Its `ConnectionGuard` stays at the head
    /// of a tunnel's pipeline, inert (the CONNECT left it answering, with no deadline); the origin's
    /// handlers bring a guard of their own.
    func configureProxy(_ channel: any Channel, id: UInt64) throws {
        let record = ConnectionRecord(id: id, isTLS: false)
        record.remote = channel.remoteAddress.map(Self.describe)
        let connectionGuard = ConnectionGuard(timeouts: timeouts)
        let registry = self.registry
        let stack = ProxyStack(
            encoder: HTTPResponseEncoder(), decoder: RequestDecoderSlot(limits: decoderLimits),
            pipelining: HTTPServerPipelineHandler(),
            backPressure: BackPressureHandler(), origin: origin,
            tunnel: { [self] channel, origin in
                try configureOrigin(channel, id: registry.allocateID(), tls: origin.tls)
            }
        )
        let proxy = ForwardProxyResponder(answerer: answerer, stack: stack, logger: logger)
        try channel.pipeline.syncOperations.addHandlers([
            connectionGuard, stack.encoder, stack.decoder.decoder, stack.pipelining, stack.backPressure,
            exchangeHandler(hop: .proxy, record: record, connectionGuard: connectionGuard, responder: proxy),
        ])
    }
}
