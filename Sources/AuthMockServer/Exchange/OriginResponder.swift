import AuthMockCore
import Logging
import NIOCore

/// Plays the origin: asks the engine what to answer a request, does what the engine asks of the shell
/// first (a certificate rotation), and hands the answer to the connection's ``ResponseWriter``.
final class OriginResponder: ExchangeResponder {
    /// Carries out the engine's ``ServerAction``s; the future completes when they are done.
    typealias Perform = @Sendable ([ServerAction], any EventLoop) -> EventLoopFuture<Void>

    private let engines: LockedEngines
    /// HTTP/1.1's request decoder, renewed after an ignored Upgrade; nil on an HTTP/2 stream.
    private let decoder: RequestDecoderSlot?
    private let perform: Perform
    private let logger: Logger

    init(engines: LockedEngines, decoder: RequestDecoderSlot?, perform: @escaping Perform, logger: Logger) {
        self.engines = engines
        self.decoder = decoder
        self.perform = perform
        self.logger = logger
    }

    func respond(to incoming: ExchangeRequest, writer: ResponseWriter, context: ChannelHandlerContext) {
        // The origin upgrades nothing: after `Upgrade: h2c` (or a CONNECT sent to it) the connection
        // goes on in HTTP/1.1, read by a fresh decoder.
        if let decoder, RequestDecoderSlot.stopsDecoder(incoming.head) { decoder.renew(context: context) }
        switch engines.plan(incoming.request, hop: .origin) {
        case .answer(let exchange):
            answer(incoming, exchange: exchange, writer: writer, context: context)
        case .verifyFirst(let check):
            let loopBound = NIOLoopBound((self, writer, context), eventLoop: context.eventLoop)
            SlowHashHop.run(check.run, on: context.eventLoop).whenComplete { _ in
                let (responder, writer, context) = loopBound.value
                let exchange = responder.engines.answer(incoming.request, hop: .origin)
                responder.answer(incoming, exchange: exchange, writer: writer, context: context)
            }
        }
    }

    /// Writes the engine's answer once the shell has done what it asked (a response announcing a
    /// rotation goes out only once new connections get the new certificate).
    private func answer(_ incoming: ExchangeRequest, exchange: Exchange, writer: ResponseWriter, context: ChannelHandlerContext) {
        let request = incoming.request
        logger.debug("\(request.method) \(request.target) → \(exchange.response.status) \(exchange.entry?.verdict.rawValue ?? "control")")
        let answer = Answer(response: exchange.response, request: incoming.head)
        if exchange.actions.isEmpty {
            writer.write(answer, context: context)
            return
        }
        let loopBound = NIOLoopBound((writer, context), eventLoop: context.eventLoop)
        perform(exchange.actions, context.eventLoop).whenComplete { _ in
            let (writer, context) = loopBound.value
            writer.write(answer, context: context)
        }
    }
}
