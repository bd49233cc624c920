import AuthMockCore
import Logging
import NIOCore
import NIOHTTP1

/// Plays the forward proxy in front of the server's origins, in the manner of async-http-client's
/// `HTTPProxySimulator`: the target is checked (``ProxyRouting``, pure), the proxy's engine decides on
/// its credentials (407 or granted), and a granted request is handed to the origin in-process
/// (absolute-form `GET http://…`) or turns this channel into a tunnel into the origin (`CONNECT`).
/// Both hops' decisions take the way every answer takes (``EngineAnswerer``): slow password checks off the
/// loop, and the engine's actions (a certificate rotation asked of the origin) done before the answer.
/// One per proxy connection: it keeps the connection's current HTTP decoder.
final class ForwardProxyResponder: ExchangeResponder {
    private let answerer: EngineAnswerer
    private let stack: ProxyStack
    private let logger: Logger

    init(answerer: EngineAnswerer, stack: ProxyStack, logger: Logger) {
        self.answerer = answerer
        self.stack = stack
        self.logger = logger
    }

    private var engines: LockedEngines { answerer.engines }

    func respond(to incoming: ExchangeRequest, writer: ResponseWriter, context: ChannelHandlerContext) {
        let request = incoming.request
        var listener: OriginListener?
        let routing = ProxyRouting.decide(method: request.method, target: request.target) { [stack] port in
            listener = stack.origin(port)
            return listener.map { $0.tls == nil ? .http : .https }
        }
        switch routing {
        case .refuse(let status, let verdict, let detail):
            let exchange = engines.reject(
                request, connection: request.connection, hop: .proxy, status: status, verdict: verdict, detail: detail,
                close: false
            )
            answer(incoming, exchange.response, writer: writer, context: context)
        case .forward(let target):
            let forwarded = Self.forwarded(incoming, to: target.originForm)
            decideOnProxy(incoming, context: context) { [self] proxy in
                guard proxy.status == 200 else { return answer(incoming, proxy, writer: writer, context: context) }
                answerer.answer(
                    forwarded, hop: .origin, writer: writer, context: context, adding: Self.authenticationInfo(proxy)
                )
                renewSpentDecoder(after: incoming, context: context)
            }
        case .tunnel:
            let origin = listener
            decideOnProxy(incoming, context: context) { [self] proxy in
                guard proxy.status == 200, let origin else {
                    return answer(incoming, proxy, writer: writer, context: context)
                }
                startTunnel(
                    into: origin, proxyConnection: request.connection.id, headers: Self.authenticationInfo(proxy),
                    context: context
                )
            }
        }
    }

    /// The proxy's engine decides on the request's credentials, the way every hop decides
    /// (``EngineAnswerer``), and hands its answer (407, or 200 for granted) to `then`.
    private func decideOnProxy(
        _ incoming: ExchangeRequest, context: ChannelHandlerContext, then: @escaping (Response) -> Void
    ) {
        let decided = answerer.decide(incoming.request, hop: .proxy, on: context.eventLoop)
        decided.whenReady(on: context.eventLoop) { then($0.response) }
    }

    /// What the proxy's granted answer tells the client about its own authentication (Digest's
    /// `Proxy-Authentication-Info`), which goes out on the origin's answer or the CONNECT's 200.
    private static func authenticationInfo(_ proxy: Response) -> [HeaderField] {
        proxy.headers.filter { $0.name.equalsIgnoringASCIICase(Hop.proxy.authenticationInfoHeader) }
    }

    /// The request as the origin gets it: in origin-form, and without the proxy's own credentials, which a
    /// real proxy consumes.
    private static func forwarded(_ incoming: ExchangeRequest, to originForm: String) -> ExchangeRequest {
        var forwarded = incoming
        forwarded.request.target = originForm
        let consumed = ["proxy-authorization", "proxy-connection"]
        forwarded.request.headers.removeAll { consumed.contains($0.name.lowercased()) }
        return forwarded
    }

    /// Writes the proxy's own answer (no tunnel follows).
    private func answer(
        _ incoming: ExchangeRequest, _ response: Response, writer: ResponseWriter, context: ChannelHandlerContext
    ) {
        writer.write(Answer(response: response, request: incoming.head), context: context)
        renewSpentDecoder(after: incoming, context: context)
    }

    /// Unless a tunnel opens, a CONNECT (or an ignored Upgrade) leaves NIO's decoder spent: renew it.
    private func renewSpentDecoder(after incoming: ExchangeRequest, context: ChannelHandlerContext) {
        if RequestDecoderSlot.stopsDecoder(incoming.head) { stack.decoder.renew(context: context) }
    }

    /// Answers the CONNECT and plays the origin on this channel: the proxy's HTTP handlers go, the
    /// origin's (TLS included) come, and the decoder's leftover bytes are forwarded into them.
    private func startTunnel(
        into origin: OriginListener, proxyConnection: UInt64, headers: [HeaderField], context: ChannelHandlerContext
    ) {
        let channel = context.channel
        let sync = channel.pipeline.syncOperations
        do {
            // The 200 goes out as bytes from below the decoder: the encoder would frame it.
            sync.removeHandler(stack.pipelining, promise: nil)
            sync.removeHandler(stack.encoder, promise: nil)
            let decoderContext = try sync.context(handler: stack.decoder.decoder)
            let established = ResponseWriter.tunnelEstablished(allocator: channel.allocator, headers: headers)
            decoderContext.writeAndFlush(NIOAny(established), promise: nil)
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
