import AuthMockCore
import NIOCore

/// Plays the origin: answers each request through the hop every answer takes (``EngineAnswerer``), which
/// does what the engine asks of the shell (a certificate rotation) before the answer is written.
final class OriginResponder: ExchangeResponder {
    private let answerer: EngineAnswerer
    /// HTTP/1.1's request decoder, renewed after an ignored Upgrade; nil on an HTTP/2 stream.
    private let decoder: RequestDecoderSlot?

    init(answerer: EngineAnswerer, decoder: RequestDecoderSlot?) {
        self.answerer = answerer
        self.decoder = decoder
    }

    func respond(to incoming: ExchangeRequest, writer: ResponseWriter, context: ChannelHandlerContext) {
        // The origin upgrades nothing: after `Upgrade: h2c` (or a CONNECT sent to it) the connection
        // goes on in HTTP/1.1, read by a fresh decoder.
        if let decoder, RequestDecoderSlot.stopsDecoder(incoming.head) { decoder.renew(context: context) }
        answerer.answer(incoming, hop: .origin, writer: writer, context: context)
    }
}
