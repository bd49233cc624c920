import AuthMockCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Translates between HTTP/1.1 parts and the engine's terms, for an origin or a proxy connection.
///
/// It assembles request parts into an ``ExchangeRequest`` for its ``ExchangeResponder`` (the origin's or
/// the forward proxy's), which answers through the connection's ``ResponseWriter``. What cannot reach that
/// handler it refuses itself, through the engine, so that it is journaled: a body over the limit (413), a
/// request the decoder cannot parse (400, 431), a head that trickles in past the header timeout (408). The
/// decoder cannot resynchronise after those, so the connection closes.
///
/// On an HTTP/2 stream it also journals a stream that ends without being handed over: a header block the
/// HTTP/1 translation rejects (reset with `PROTOCOL_ERROR`), a stream reset by the client, by NIO's HTTP/2
/// handler, or cut by its connection's end before its request was whole.
final class ExchangeHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, tooLarge: Bool)
        /// A request was refused before it was whole; the connection is closing and further parts are ignored.
        case failed
        /// A request was answered before its body (a challenge instead of 100 Continue): the body, if the
        /// client sends it, is read and dropped, then the connection closes (RFC 9110 §10.1.1) — or, with
        /// `before-body: keep-open`, the next request is read.
        case discarding(keepOpen: Bool)
    }

    private let hop: Hop
    private let engines: LockedEngines
    private let record: ConnectionRecord
    private let writer: ResponseWriter
    private let maxBodySize: Int
    private let logger: Logger
    private let responder: any ExchangeResponder
    private var state = State.idle
    /// HTTP/2: the stream's request has been handed over or refused, so it has its journal entry.
    private var journaled = false
    /// The body of the request being received; kept outside `state` so appending never copies it.
    private var body: [UInt8] = []

    init(
        hop: Hop, engines: LockedEngines, record: ConnectionRecord, writer: ResponseWriter, maxBodySize: Int,
        logger: Logger, responder: any ExchangeResponder
    ) {
        self.hop = hop
        self.responder = responder
        self.engines = engines
        self.record = record
        self.writer = writer
        self.maxBodySize = maxBodySize
        self.logger = logger
    }

    private var connectionGuard: ConnectionGuard { writer.connectionGuard }
    /// The HTTP/2 stream this handler serves; nil on an HTTP/1.x connection.
    private var stream: HTTP2StreamControl? { writer.stream }

    func handlerAdded(context: ChannelHandlerContext) {
        // An HTTP/2 connection's guard has no header timer: the HTTP/2 handler bounds a header block.
        guard stream == nil else { return }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        connectionGuard.onHeaderTimeout = {
            let (handler, context) = loopBound.value
            return handler.headerTimedOut(context: context)
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A CONNECT tunnel replaces this handler: the guard's callback must not reach it any more.
        if stream == nil { connectionGuard.onHeaderTimeout = nil }
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Nothing about a closed connection may outlive it (an NTLM handshake in progress, for one). A
        // closed HTTP/2 stream is not its connection: the connection's close ends that state.
        if stream == nil, let id = record.assignedID { engines.connectionClosed(id) }
        if let stream, !journaled, case .receiving(let head, _) = state { streamEndedEarly(stream, head: head) }
        context.fireChannelInactive()
    }

    /// An HTTP/2 stream closed before its request was whole: journal the half request, and why.
    private func streamEndedEarly(_ stream: HTTP2StreamControl, head: HTTPRequestHead) {
        journaled = true
        state = .failed
        let id = Int(stream.streamID)
        let request = makeRequest(head, body: body, connection: connection(starting: true))
        body = []
        if let code = stream.resetByClient {
            let detail = "the client reset stream \(id) with RST_STREAM \(HTTP2Failures.name(code))"
                + " before its request was complete"
            journal(request, reset: nil, verdict: .http2StreamReset, detail: detail)
        } else if let failure = stream.failures.failure(of: id) {
            let name = HTTP2Failures.name(failure.code)
            let detail = "stream \(id) broke HTTP/2 before its request was complete (\(failure.reason)):"
                + " RST_STREAM \(name)"
            journal(request, reset: name, verdict: .http2Malformed, detail: detail)
        } else if let code = stream.closedWith, code != .cancel {
            // NIO's HTTP/2 handler reset the stream, and closes it before it reports why. (CANCEL: a GOAWAY or
            // the connection's end closed it, which is journaled on the connection.)
            let name = HTTP2Failures.name(code)
            let detail = "stream \(id) broke HTTP/2 before its request was complete (a frame against the stream's"
                + " rules, such as a body longer than its content-length): RST_STREAM \(name)"
            journal(request, reset: name, verdict: .http2Malformed, detail: detail)
        } else {
            let detail = "the connection closed before the request on stream \(id) was complete"
            journal(request, reset: nil, verdict: .http2StreamReset, detail: detail)
        }
    }

    /// Journals a stream that ended before its request was whole (status 0), reset with `reset` if it was.
    private func journal(_ request: Request, reset: String?, verdict: Verdict, detail: String) {
        engines.recordHTTP2Failure(
            request, connection: request.connection, reset: reset, goaway: nil, verdict: verdict, detail: detail
        )
    }

    /// The engine's view of the connection, at a new exchange when `starting`.
    private func connection(starting: Bool, control: Bool = false) -> ConnectionInfo {
        var info = starting ? record.startExchange(control: control) : record.info
        if let stream {
            info.httpProtocol = .h2
            info.stream = Int(stream.streamID)
        }
        return info
    }

    // MARK: Inbound: parts → requests

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (unwrapInboundIn(data), state) {
        case (_, .failed):
            return
        case (.head(let head), _):
            connectionGuard.headReceived()
            body = []
            let declared = head.headers["content-length"].first.flatMap(Int.init)
            let tooLarge = (declared ?? 0) > maxBodySize
            state = .receiving(head, tooLarge: tooLarge)
            let interim = InterimResponse.decide(for: head, bodyRefused: tooLarge) {
                guard hop == .origin else { return false }
                let request = makeRequest(head, body: [], connection: connection(starting: false))
                return engines.challengesBeforeBody(request)
            }
            switch interim {
            case .none: break
            case .sendContinue: writer.writeContinue(answering: head, context: context)
            case .challenge: challengeBeforeBody(head, context: context)
            }
        case (.body(var buffer), .receiving(let head, let tooLarge)):
            if !tooLarge, body.count + buffer.readableBytes <= maxBodySize {
                buffer.readWithUnsafeReadableBytes { bytes in
                    body.append(contentsOf: bytes)
                    return bytes.count
                }
            } else {
                body = []
                state = .receiving(head, tooLarge: true)
            }
        case (.end, .receiving(let head, let tooLarge)):
            connectionGuard.requestReceived()
            state = .idle
            journaled = true
            // A control request (the live page polling) does not number its connection; anything else does.
            let control = !tooLarge && ControlPlane.isControl(Self.path(of: head.uri))
            let request = makeRequest(head, body: body, connection: connection(starting: true, control: control))
            body = []
            if tooLarge {
                let detail = "the request body exceeds \(maxBodySize) bytes"
                refuse(
                    request, on: request.connection, answering: head, status: 413, verdict: .bodyTooLarge,
                    detail: detail, context: context
                )
            } else {
                responder.respond(to: ExchangeRequest(request: request, head: head), writer: writer, context: context)
            }
        case (.end, .discarding(let keepOpen)):
            if keepOpen, stream == nil {
                state = .idle
                connectionGuard.responseSent()
                return
            }
            state = .failed
            if stream == nil { context.close(promise: nil) }
        case (.body, _), (.end, _):
            // A body answered early is dropped; parts without a head cannot come from NIO's decoder.
            return
        }
    }

    /// Answers a request expecting 100-continue with the challenge it will get anyway.
    private func challengeBeforeBody(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        // No credentials (or an NTLM NEGOTIATE), so no slow check to plan for: the origin answers at once.
        var exchange = engines.answer(makeRequest(head, body: [], connection: connection(starting: true)), hop: .origin)
        journaled = true
        // HTTP/1.1 cannot leave a body unread and go on, unless it reads it (`before-body: keep-open`); an
        // HTTP/2 stream can.
        let keepOpen = engines.keepsConnectionAfterEarlyChallenge
        if stream == nil, !keepOpen { exchange.response.closeConnection = true }
        state = .discarding(keepOpen: keepOpen)
        writer.write(Answer(response: exchange.response, request: head, closeAfter: false), context: context)
        // The body may still come (and is dropped): the idle timeout watches it.
        connectionGuard.headReceived()
    }

    // MARK: Refusals

    /// Refuses a request before it reaches the responder: journaled, then answered with
    /// `Connection: close`.
    private func refuse(
        _ request: Request?, on connection: ConnectionInfo, answering head: HTTPRequestHead, status: Int,
        verdict: Verdict, detail: String, context: ChannelHandlerContext
    ) {
        let exchange = engines.reject(
            request, connection: connection, hop: hop, status: status, verdict: verdict, detail: detail, close: true
        )
        writer.write(Answer(response: exchange.response, request: head), context: context)
    }

    /// A request head trickled in for longer than the header timeout: journal a 408 and hand the guard
    /// its bytes (it writes them below the HTTP codec, which holds only half a request).
    private func headerTimedOut(context: ChannelHandlerContext) -> ByteBuffer {
        let detail = "the request head did not arrive within the header timeout"
        let exchange = engines.reject(
            nil, connection: connection(starting: true), hop: hop, status: 408, verdict: .headerTimeout, detail: detail,
            close: true
        )
        state = .failed
        return ResponseWriter.closingBytes(of: exchange.response, allocator: context.channel.allocator)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let stream {
            streamError(error, stream: stream, context: context)
            return
        }
        guard let parserError = error as? HTTPParserError else {
            logger.debug("connection error: \(error)")
            context.close(promise: nil)
            return
        }
        let head: HTTPRequestHead?
        switch state {
        case .failed:
            return
        case .discarding:
            // The client gave up the body of a request already answered and closed: nothing to journal.
            state = .failed
            context.close(promise: nil)
            return
        case .receiving(let received, _):
            head = received
        case .idle:
            head = nil
        }
        let connection = connection(starting: true)
        let partial = head.map { makeRequest($0, body: [], connection: connection) }
        switch parserError {
        case .invalidEOFState:
            // The connection ended (the client left, or shutdown closed it) in the middle of a request:
            // journal the half request, but write nothing — nobody reads it, and a quiesced pipeline must
            // not be written to.
            let detail = partial == nil
                ? "the connection closed before the request head was complete"
                : "the connection closed before the request body was complete"
            _ = engines.reject(
                partial, connection: connection, hop: hop, status: 400, verdict: .malformedRequest, detail: detail,
                close: true
            )
            state = .failed
            context.close(promise: nil)
        case .headerOverflow:
            state = .failed
            let detail = "the request's header fields exceed the server's limit"
            refuse(
                partial, on: connection, answering: Self.unparsed, status: 431, verdict: .headersTooLarge,
                detail: detail, context: context
            )
        default:
            state = .failed
            let detail = "the request is not valid HTTP/1.1 (\(parserError))"
            refuse(
                partial, on: connection, answering: Self.unparsed, status: 400, verdict: .malformedRequest,
                detail: detail, context: context
            )
        }
    }

    /// An error on an HTTP/2 stream. A stream NIO's HTTP/2 handler closes with an error code ends in
    /// ``channelInactive(context:)``; anything else before the request was handed over is a header block
    /// the HTTP/1 translation rejects: a malformed request, reset with `PROTOCOL_ERROR` (RFC 9113 §8.1.1).
    private func streamError(_ error: any Error, stream: HTTP2StreamControl, context: ChannelHandlerContext) {
        if error is NIOHTTP2Errors.StreamClosed { return }
        switch state {
        case .idle where !journaled, .receiving:
            var request: Request?
            if case .receiving(let head, _) = state {
                request = makeRequest(head, body: body, connection: connection(starting: true))
            }
            journaled = true
            state = .failed
            body = []
            let id = Int(stream.streamID)
            let detail = "stream \(id) is not a valid HTTP request (\(HTTP2Failures.describe(error))):"
                + " RST_STREAM PROTOCOL_ERROR"
            engines.recordHTTP2Failure(
                request, connection: request?.connection ?? connection(starting: true), reset: "PROTOCOL_ERROR",
                goaway: nil, verdict: .http2Malformed, detail: detail
            )
            stream.reset(.protocolError)
        default:
            logger.debug("stream error: \(error)")
            context.close(promise: nil)
        }
    }

    /// What a refusal of an unparseable request answers as: HTTP/1.1, not HEAD.
    private static let unparsed = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")

    /// The engine's view of a request: no NIO types.
    private func makeRequest(_ head: HTTPRequestHead, body: [UInt8], connection: ConnectionInfo) -> Request {
        Request(
            method: head.method.rawValue, target: head.uri, version: Self.versionText(head.version),
            headers: head.headers.map { HeaderField($0.name, $0.value) }, body: body, connection: connection
        )
    }

    /// The target's path, without its query.
    static func path(of target: String) -> String {
        String(target.prefix { $0 != "?" && $0 != "#" })
    }

    /// `HTTP/1.1`: the two versions nearly every request has are constants, not interpolated per request.
    static func versionText(_ version: HTTPVersion) -> String {
        switch version {
        case .http1_1: "HTTP/1.1"
        case .http1_0: "HTTP/1.0"
        default: "HTTP/\(version.major).\(version.minor)"
        }
    }
}
