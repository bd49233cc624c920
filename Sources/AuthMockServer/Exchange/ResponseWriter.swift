import AuthMockCore
import NIOCore
import NIOHTTP1

/// The only code that writes a response: the engine's answers, the shell's own refusals, the 408 of a
/// header timeout and the CONNECT's 200 (as bytes, below the HTTP codec), and every scenario fault
/// played on an answer (close, disconnect, stall, drop-body, delay).
///
/// It also tells the connection's guard when an answer is out, so that the idle timer starts again.
struct ResponseWriter {
    let connectionGuard: ConnectionGuard
    let registry: ConnectionRegistry
    /// The HTTP/2 stream answered; nil on an HTTP/1.x connection. Over HTTP/2 the connection's faults take
    /// their HTTP/2 forms: `close` is a `GOAWAY` after the answer, `drop-body` an `RST_STREAM` after half
    /// the body, `disconnect` closes the TCP connection.
    var stream: HTTP2StreamControl? = nil

    /// Writes an answer through `context` (a handler whose outbound type is `HTTPServerResponsePart`),
    /// playing the scenario's fault on it if it carries one.
    func write(_ answer: Answer, context: ChannelHandlerContext) {
        if answer.response.streamReset != nil {
            // Only the engine's answer to an HTTP/2 stream carries one.
            if let stream { stream.reset(.http11Required) } else { context.close(promise: nil) }
            return
        }
        guard let fault = answer.response.fault else {
            send(answer, context: context)
            return
        }
        let plain = Answer(
            response: answer.response.withoutFault, request: answer.request, closeAfter: answer.closeAfter
        )
        let channel = context.channel
        switch fault {
        case .close:
            // Framed as if the connection stayed open; the client finds out when it reuses it: whatever it
            // sends next ends the connection unanswered. Closing at once instead would race with a client
            // that sends its next request right away, and verdicts would change from run to run.
            send(plain, context: context, ending: .closeOnReuse)
        case .dropBody:
            send(plain, context: context, ending: .dropBody)
        case .serverError:
            // The engine already made the answer a 500; the fault is only the journal's.
            send(plain, context: context)
        case .disconnect:
            (stream?.connection ?? channel).close(promise: nil)
        case .stall(let seconds):
            // Nothing is written; NIO's pipelining handler holds any later request of this connection.
            registry.markStalled(channel)
            if let seconds {
                context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { channel.close(promise: nil) }
            }
        case .delay(let seconds):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
                let (writer, context) = loopBound.value
                guard context.channel.isActive else { return }
                writer.send(plain, context: context)
            }
        }
    }

    /// The interim `100 Continue` to a request that expects it (see ``InterimResponse``).
    func writeContinue(answering head: HTTPRequestHead, context: ChannelHandlerContext) {
        context.writeAndFlush(
            NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: head.version, status: .continue))),
            promise: nil
        )
    }

    private enum Ending {
        case normal
        /// Keep the connection after the response, but close it when the client sends anything more.
        case closeOnReuse
        /// Send the head and half the body, then close.
        case dropBody
    }

    private func send(_ answer: Answer, context: ChannelHandlerContext, ending: Ending = .normal) {
        let response = answer.response, request = answer.request
        let keepAlive = request.isKeepAlive && !response.closeConnection
        context.write(
            NIOAny(HTTPServerResponsePart.head(Self.head(of: response, answering: request, keepAlive: keepAlive))),
            promise: nil
        )
        let channel = context.channel
        // HEAD, 204 and 304 carry no body (the encoder drops Content-Length for the last two).
        let hasBody =
            request.method != .HEAD && response.status != 204 && response.status != 304 && !response.body.isEmpty
        if ending == .dropBody {
            // The head promised the whole body; half of it comes, then the connection (or stream) ends.
            if hasBody { writeBody(response.body.prefix(response.body.count / 2), context: context) }
            context.flush()
            if let stream { stream.reset(.internalError) } else { channel.close(promise: nil) }
            return
        }
        if hasBody {
            // A chunked body goes out as two chunks, so that clients really reassemble it.
            let half = response.body.count / 2
            let pieces =
                response.chunked ? [response.body.prefix(half), response.body.dropFirst(half)] : [response.body[...]]
            for piece in pieces where !piece.isEmpty { writeBody(piece, context: context) }
        }
        let end = NIOAny(HTTPServerResponsePart.end(nil))
        if let stream {
            // The stream ends with its answer. Closing "the connection" after it (a fault, a certificate
            // rotation) is a GOAWAY: the client opens a new connection for later requests.
            context.writeAndFlush(end, promise: nil)
            if ending == .closeOnReuse || response.closeConnection { stream.goAway() }
            return
        }
        if !keepAlive && answer.closeAfter {
            context.writeAndFlush(end).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(end, promise: nil)
            if ending == .closeOnReuse {
                connectionGuard.responseSentThenCloseOnReuse()
            } else if answer.closeAfter {
                connectionGuard.responseSent()
            }
        }
    }

    private func writeBody(_ bytes: ArraySlice<UInt8>, context: ChannelHandlerContext) {
        context.write(
            NIOAny(HTTPServerResponsePart.body(.byteBuffer(context.channel.allocator.buffer(bytes: bytes)))),
            promise: nil
        )
    }

    /// The status line and fields: the engine's, plus the framing and connection fields HTTP/1.x needs.
    static func head(of response: Response, answering request: HTTPRequestHead, keepAlive: Bool)
        -> HTTPResponseHead
    {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        // The engine's fields seldom name a framing field: then adding one is replacing it, without
        // NIO's case-insensitive scan of every field for each (two of them cost 2.4k instructions a request).
        let framed = response.headers.contains { field in
            HeaderField.framingNames.contains { field.name.equalsIgnoringASCIICase($0) }
        }
        func set(_ name: String, _ value: String) {
            if framed { headers.replaceOrAdd(name: name, value: value) } else { headers.add(name: name, value: value) }
        }
        if response.chunked, request.version != .http1_0 {
            headers.remove(name: "Content-Length")
            set("Transfer-Encoding", "chunked")
        } else {
            set("Content-Length", String(response.body.count))
        }
        if !keepAlive {
            set("Connection", "close")
        } else if request.version == .http1_0 {
            set("Connection", "keep-alive")
        }
        return HTTPResponseHead(
            version: request.version.major == 1 ? request.version : .http1_1,
            status: HTTPResponseStatus(statusCode: response.status, reasonPhrase: Engine.reason(response.status)),
            headers: headers
        )
    }

    // MARK: Below the HTTP codec

    /// A whole response as bytes, closing the connection: for answers the HTTP encoder cannot frame
    /// because its decoder holds only half a request (the 408 of a header timeout).
    static func closingBytes(of response: Response, allocator: ByteBufferAllocator) -> ByteBuffer {
        var head = "HTTP/1.1 \(response.status) \(Engine.reason(response.status))\r\n"
        for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        var buffer = allocator.buffer(capacity: head.utf8.count + response.body.count)
        buffer.writeString(head)
        buffer.writeBytes(response.body)
        return buffer
    }

    /// The answer to a granted CONNECT. A 2xx to CONNECT carries no framing (RFC 9110 §9.3.6), which the
    /// HTTP encoder would add, so it is written as bytes; the tunnel's bytes follow it.
    /// The CONNECT's 200, with the proxy's `Proxy-Authentication-Info` when its Digest answer carries one.
    static func tunnelEstablished(allocator: ByteBufferAllocator, headers: [HeaderField] = []) -> ByteBuffer {
        let fields = headers.map { "\($0.name): \($0.value)\r\n" }.joined()
        return allocator.buffer(string: "HTTP/1.1 200 Connection Established\r\n\(fields)\r\n")
    }
}

extension Response {
    /// The response as written when its fault has been played (or is played around it).
    fileprivate var withoutFault: Response {
        var plain = self
        plain.fault = nil
        return plain
    }
}
