import AuthMockCore
import Logging
import NIOCore

/// The one way every hop turns a request into an answer: the engines' plan, the slow password check off
/// the event loop when the plan asks for one (``SlowHashHop``), the exchange, what the exchange asks of the
/// shell (its ``ServerAction``s, a certificate rotation), and only then the answer.
///
/// The origin's responder writes what the origin decides (``answer(_:hop:writer:context:)``). The proxy's
/// decides on its own hop first (``decide(_:hop:on:)``), then writes the proxy's answer, answers the
/// forwarded request through the origin's hop, or opens a tunnel. Either way a response that announces a
/// rotation goes out only once new connections get the new certificate, and NIO's pipelining handler holds
/// the connection's next request until the answer is written, so answers keep their order.
struct EngineAnswerer: Sendable {
    /// Carries out the engine's ``ServerAction``s; the future completes when they are done.
    typealias Perform = @Sendable ([ServerAction], any EventLoop) -> EventLoopFuture<Void>

    /// A decided exchange: at hand, or on its way (a slow check, the shell's actions).
    enum Decided {
        /// Neither a slow check nor an action: the exchange, within the call that decided it.
        case now(Exchange)
        /// Completes on the connection's event loop, once the check ran and the actions are done; it
        /// never fails (a check that could not hop runs in the engine, an action that failed is logged).
        case later(EventLoopFuture<Exchange>)

        /// Hands the exchange to `body` on `eventLoop`: within this call when it is at hand.
        func whenReady(on eventLoop: any EventLoop, _ body: @escaping (Exchange) -> Void) {
            switch self {
            case .now(let exchange):
                body(exchange)
            case .later(let future):
                let loopBound = NIOLoopBound(body, eventLoop: eventLoop)
                future.whenSuccess { loopBound.value($0) }
            }
        }
    }

    let engines: LockedEngines
    let perform: Perform
    let logger: Logger

    /// Decides `request` on `hop`, asking the engines once (see ``EnginePair/Plan``).
    func decide(_ request: Request, hop: Hop, on eventLoop: any EventLoop) -> Decided {
        switch engines.plan(request, hop: hop) {
        case .answer(let exchange):
            log(exchange, request)
            guard !exchange.actions.isEmpty else { return .now(exchange) }
            return .later(performing(exchange, on: eventLoop))
        case .verifyFirst(let check):
            // A pool that is not running fails the hop; the engine then checks on the loop, as it must.
            let checked = SlowHashHop.run(check.run, on: eventLoop).recover { _ in }
            return .later(checked.flatMap { [self] in
                let exchange = engines.answer(request, hop: hop)
                log(exchange, request)
                return performing(exchange, on: eventLoop)
            })
        }
    }

    /// Decides `incoming` on `hop` and writes the answer through the connection's writer.
    /// - Parameter adding: header fields another hop adds to the answer (the forward proxy's
    ///   `Proxy-Authentication-Info` on the origin's answer).
    func answer(
        _ incoming: ExchangeRequest, hop: Hop, writer: ResponseWriter, context: ChannelHandlerContext,
        adding: [HeaderField] = []
    ) {
        switch decide(incoming.request, hop: hop, on: context.eventLoop) {
        case .now(var exchange):
            exchange.response.headers += adding
            writer.write(Answer(response: exchange.response, request: incoming.head), context: context)
        case .later(let future):
            // Spelled out rather than `whenReady`: the common answer allocates no closure.
            let loopBound = NIOLoopBound((writer, context), eventLoop: context.eventLoop)
            future.whenSuccess { exchange in
                let (writer, context) = loopBound.value
                var response = exchange.response
                response.headers += adding
                writer.write(Answer(response: response, request: incoming.head), context: context)
            }
        }
    }

    /// The exchange once the shell has done what it asks.
    private func performing(_ exchange: Exchange, on eventLoop: any EventLoop) -> EventLoopFuture<Exchange> {
        guard !exchange.actions.isEmpty else { return eventLoop.makeSucceededFuture(exchange) }
        return perform(exchange.actions, eventLoop).recover { _ in }.map { exchange }
    }

    private func log(_ exchange: Exchange, _ request: Request) {
        let outcome = exchange.entry?.verdict.rawValue ?? "control"
        logger.debug("\(request.method) \(request.target) → \(exchange.response.status) \(outcome)")
    }
}
