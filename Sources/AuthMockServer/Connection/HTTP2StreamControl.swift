import NIOCore
import NIOHTTP2

/// The front of an HTTP/2 stream's pipeline, below the HTTP/1 translation: what the exchange handler and
/// the response writer need to do to a stream and its connection that HTTP/1 parts cannot say.
///
/// - ``reset(_:)`` ends the stream with `RST_STREAM` (`HTTP_1_1_REQUIRED` for a connection-bound scheme,
///   `INTERNAL_ERROR` for a body dropped half-way, `PROTOCOL_ERROR` for a header block the HTTP/1
///   translation rejects);
/// - ``resetByClient`` is the client's own `RST_STREAM`, if it sent one;
/// - ``goAway()`` tells the client, on the connection, that no stream after this one will be served (the
///   HTTP/2 form of closing a connection after an answer).
final class HTTP2StreamControl: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    let streamID: HTTP2StreamID
    /// The TCP connection's channel, which carries every stream.
    let connection: any Channel
    /// What the connection's handlers know of streams that ended in an error.
    let failures: HTTP2Failures
    private var context: ChannelHandlerContext?
    /// The error code of the client's RST_STREAM, if it reset the stream.
    private(set) var resetByClient: HTTP2ErrorCode?

    init(streamID: HTTP2StreamID, connection: any Channel, failures: HTTP2Failures) {
        self.streamID = streamID
        self.connection = connection
        self.failures = failures
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    /// The error code the stream was closed with (the client's or the server's), if it was reset.
    private(set) var closedWith: HTTP2ErrorCode?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .rstStream(let code) = unwrapInboundIn(data) { resetByClient = code }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let closed = error as? NIOHTTP2Errors.StreamClosed { closedWith = closed.errorCode }
        context.fireErrorCaught(error)
    }

    /// Ends the stream with an error code instead of (the rest of) a response.
    func reset(_ code: HTTP2ErrorCode) {
        failures.resettingOnPurpose(Int(streamID))
        context?.writeAndFlush(wrapOutboundOut(.rstStream(code)), promise: nil)
    }

    /// `GOAWAY` naming this stream as the last one served: streams the client opened after it are not
    /// processed, and it must open a new connection for them (RFC 9113 §6.8).
    func goAway() {
        let frame = HTTP2Frame(
            streamID: .rootStream, payload: .goAway(lastStreamID: streamID, errorCode: .noError, opaqueData: nil)
        )
        connection.writeAndFlush(frame, promise: nil)
    }
}

/// Reads the first bytes of a plain connection and hands it to HTTP/2 when they are the client preface
/// (`PRI * HTTP/2.0…`, RFC 9113 §3.4: prior knowledge), to HTTP/1.1 otherwise; then leaves, passing on
/// what it read.
final class HTTP2PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private var buffered: ByteBuffer?
    private let choose: (_ http2: Bool, _ context: ChannelHandlerContext) throws -> Void

    /// - Parameter choose: adds the chosen protocol's handlers (after this one).
    init(choose: @escaping (_ http2: Bool, _ context: ChannelHandlerContext) throws -> Void) {
        self.choose = choose
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffered == nil {
            buffered = incoming
        } else {
            buffered!.writeBuffer(&incoming)
        }
        let seen = buffered!.readableBytesView.prefix(Self.preface.count)
        let isPreface = seen.elementsEqual(Self.preface.prefix(seen.count))
        guard !isPreface || seen.count == Self.preface.count else { return }  // a prefix of the preface: read on
        do {
            try choose(isPreface, context)
        } catch {
            context.close(promise: nil)
            return
        }
        let bytes = buffered!
        buffered = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
