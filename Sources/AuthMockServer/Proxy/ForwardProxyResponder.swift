import AuthMockCore
import Logging
import NIOCore
import NIOHTTP1

/// Plays the forward proxy in front of the server's origins, in the manner of async-http-client's
/// `HTTPProxySimulator`: the target is checked (``ProxyRouting``, pure), the proxy's engine decides on
/// its credentials (407 or granted), and a granted request is handed to the origin in-process
/// (absolute-form `GET http://…`) or turns this channel into a tunnel into the origin (`CONNECT`).
/// One per proxy connection: it keeps the connection's current HTTP decoder.
final class ForwardProxyResponder: ExchangeResponder {
    private let engines: LockedEngines
    private let stack: ProxyStack
    private let logger: Logger

    init(engines: LockedEngines, stack: ProxyStack, logger: Logger) {
        self.engines = engines
        self.stack = stack
        self.logger = logger
    }

    func respond(to incoming: ExchangeRequest, writer: ResponseWriter, context: ChannelHandlerContext) {
        let request = incoming.request
        func answer(_ response: Response) {
            writer.write(Answer(response: response, request: incoming.head), context: context)
        }
        // Whatever the answer, unless a tunnel opens, a CONNECT (or an ignored Upgrade) leaves NIO's
        // decoder spent: renew it.
        var tunnelling = false
        defer {
            if RequestDecoderSlot.stopsDecoder(incoming.head), !tunnelling { stack.decoder.renew(context: context) }
        }
        var listener: OriginListener?
        let routing = ProxyRouting.decide(method: request.method, target: request.target) { [stack] port in
            listener = stack.origin(port)
            return listener.map { $0.tls == nil ? .http : .https }
        }
        switch routing {
        case .refuse(let status, let verdict, let detail):
            let exchange = engines.reject(request, connection: request.connection, hop: .proxy, status: status, verdict: verdict, detail: detail, close: false)
            answer(exchange.response)
        case .forward(let target):
            let hop = engines.handleProxy(request)
            guard hop.response.status == 200 else { return answer(hop.response) }
            // A real proxy consumes its own credentials: the origin must not see them from here.
            var forwarded = request
            forwarded.target = target.originForm
            forwarded.headers.removeAll { ["proxy-authorization", "proxy-connection"].contains($0.name.lowercased()) }
            answer(engines.handle(forwarded).response)
        case .tunnel:
            let hop = engines.handleProxy(request)
            guard hop.response.status == 200, let listener else { return answer(hop.response) }
            tunnelling = true
            startTunnel(into: listener, proxyConnection: request.connection.id, context: context)
        }
    }

    /// Answers the CONNECT and plays the origin on this channel: the proxy's HTTP handlers go, the
    /// origin's (TLS included) come, and the decoder's leftover bytes are forwarded into them.
    private func startTunnel(into origin: OriginListener, proxyConnection: UInt64, context: ChannelHandlerContext) {
        let channel = context.channel
        let sync = channel.pipeline.syncOperations
        do {
            // The 200 goes out as bytes from below the decoder: the encoder would frame it.
            sync.removeHandler(stack.pipelining, promise: nil)
            sync.removeHandler(stack.encoder, promise: nil)
            let decoderContext = try sync.context(handler: stack.decoder.decoder)
            decoderContext.writeAndFlush(NIOAny(ResponseWriter.tunnelEstablished(allocator: channel.allocator)), promise: nil)
            try stack.tunnel(channel, origin)
            engines.connectionClosed(proxyConnection)  // the proxy's state for this connection ends here
            // NIO's back-pressure handler re-issues a read it was holding as it goes.
            sync.removeHandler(stack.backPressure, promise: nil)
            sync.removeHandler(context: context, promise: nil)  // the proxy connection's ExchangeHandler
            // Last: removing the decoder forwards the bytes it holds into the origin's handlers.
            sync.removeHandler(stack.decoder.decoder, promise: nil)
            // The pipelining handler may have been holding back a read.
            channel.read()
        } catch {
            logger.debug("tunnel setup failed: \(error)")
            channel.close(promise: nil)
        }
    }
}
