import AuthMockCore
import NIOCore
import NIOHTTP1
import NIOSSL

extension ServerPipelines {
    /// The forward proxy's connection. Its HTTP handlers are added one by one, so that a granted CONNECT
    /// can take them away and play the origin on the same channel. Its `ConnectionGuard` stays at the head
    /// of a tunnel's pipeline, inert (the CONNECT left it answering, with no deadline); the origin's
    /// handlers bring a guard of their own.
    ///
    /// An HTTPS proxy (`tls`) puts the origin's TLS handlers first, with the proxy's identity: the sniffer,
    /// NIO's TLS handler and the observer that journals the connection as the proxy's (`tls.*`, hop proxy).
    /// A tunnel then runs inside that TLS, an HTTPS origin's TLS inside it.
    func configureProxy(_ channel: any Channel, id: UInt64, tls: TLSRuntime? = nil) throws {
        let record = ConnectionRecord(id: id, isTLS: tls != nil)
        record.remote = channel.remoteAddress.map(Self.describe)
        let connectionGuard = ConnectionGuard(timeouts: timeouts)
        if let tls {
            let (context, served) = tls.forNewConnection
            record.tlsFacts = TLSFacts(certificateSHA256: served.fingerprintSHA256, pinSHA256: served.pinSHA256)
            try channel.pipeline.syncOperations.addHandlers([
                TLSHelloSniffer(record: record), NIOSSLServerHandler(context: context),
                TLSConnectionObserver(record: record, engines: engines, hop: .proxy),
            ])
            connectionGuard.onIdleTimeout = { TLSConnectionObserver.idleTimeout(record) }
        }
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
