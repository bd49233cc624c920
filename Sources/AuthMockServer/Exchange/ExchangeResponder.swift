import NIOCore

/// What answers the requests an ``ExchangeHandler`` assembles: the origin (``OriginResponder``) or the
/// forward proxy (``ForwardProxyResponder``).
///
/// The exchange handler calls it directly rather than passing the request down the pipeline: a pipeline
/// stage would box every request and every answer in `NIOAny` and add a hop each way on the hot path.
/// It is called on the connection's event loop with the exchange handler's context, and answers through
/// `writer`, at once or later on the same loop.
protocol ExchangeResponder: AnyObject {
    func respond(to incoming: ExchangeRequest, writer: ResponseWriter, context: ChannelHandlerContext)
}
