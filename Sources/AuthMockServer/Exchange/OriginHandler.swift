import AuthMockCore
import Logging
import NIOCore

/// Plays the origin: asks the engine what to answer a request, does what the engine asks of the shell
/// first (a certificate rotation), and sends the answer back through the ``ExchangeHandler``.
final class OriginHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ExchangeRequest
    typealias OutboundOut = Answer

    /// Carries out the engine's ``ServerAction``s; the future completes when they are done.
    typealias Perform = @Sendable ([ServerAction], any EventLoop) -> EventLoopFuture<Void>

    private let engines: LockedEngines
    private let perform: Perform
    private let logger: Logger

    init(engines: LockedEngines, perform: @escaping Perform, logger: Logger) {
        self.engines = engines
        self.perform = perform
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let incoming = unwrapInboundIn(data)
        guard let slowCheck = engines.slowPasswordCheck(incoming.request) else {
            answer(incoming, exchange: engines.handle(incoming.request), context: context)
            return
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        SlowHashHop.run(slowCheck, on: context.eventLoop).whenComplete { _ in
            let (handler, context) = loopBound.value
            handler.answer(incoming, exchange: handler.engines.handle(incoming.request), context: context)
        }
    }

    /// Writes the engine's answer once the shell has done what it asked (a response announcing a
    /// rotation goes out only once new connections get the new certificate).
    private func answer(_ incoming: ExchangeRequest, exchange: Exchange, context: ChannelHandlerContext) {
        let request = incoming.request
        logger.debug("\(request.method) \(request.target) → \(exchange.response.status) \(exchange.entry?.verdict.rawValue ?? "control")")
        let answer = Answer(response: exchange.response, request: incoming.head)
        if exchange.actions.isEmpty {
            context.writeAndFlush(wrapOutboundOut(answer), promise: nil)
            return
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        perform(exchange.actions, context.eventLoop).whenComplete { _ in
            let (handler, context) = loopBound.value
            context.writeAndFlush(handler.wrapOutboundOut(answer), promise: nil)
        }
    }
}
