import AuthMockCertificates
import AuthMockCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOTLS

/// Turns HTTP/1.1 request parts into engine ``Request``s and engine ``Response``s back into parts.
///
/// One instance per connection. It owns the connection's exchange counter; everything else it needs
/// to decide comes from the engine. Protocol errors from the decoder (malformed requests, oversized
/// headers) are answered here and journaled through the engine, then the connection is closed,
/// because the decoder cannot resynchronise after them.
///
/// It is also the connection's back-pressure: while the channel is not writable (a client that sends
/// requests without reading the answers), it holds reads, so nothing grows without bound.
final class ExchangeHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private enum State {
        case idle
        case receiving(HTTPRequestHead, tooLarge: Bool)
        /// A protocol error was answered; the connection is closing and further parts are ignored.
        case failed
        /// A request was answered before its body (a challenge instead of 100 Continue): the body, if the
        /// client sends it, is read and dropped, then the connection closes (RFC 9110 §10.1.1).
        case discarding
    }

    private let connectionID: UInt64
    private let core: EngineCore
    private let maxBodySize: Int
    private let logger: Logger
    private let perform: @Sendable ([ServerAction], any EventLoop) -> EventLoopFuture<Void>
    /// Whether this connection runs over TLS, and what its handshake settled.
    private let isTLS: Bool
    private var tlsFacts: TLSFacts?
    private var handshakeCompleted = false
    private var handshakeFailure: String?
    /// Set on the forward proxy's connections.
    private var proxy: ProxyRoute?
    private var state = State.idle
    /// The body of the request being received; kept outside `state` so appending never copies it.
    private var body: [UInt8] = []
    private var readHeld = false
    private var exchanges = 0
    private var remote: String?
    /// The connection's timers (header and idle timeouts), told where the exchange is.
    private let connectionGuard: ConnectionGuard
    private let registry: ConnectionRegistry

    init(
        connectionID: UInt64, core: EngineCore, maxBodySize: Int, tls: Bool,
        perform: @escaping @Sendable ([ServerAction], any EventLoop) -> EventLoopFuture<Void>, logger: Logger,
        connectionGuard: ConnectionGuard, registry: ConnectionRegistry, proxy: ProxyRoute? = nil
    ) {
        self.connectionGuard = connectionGuard
        self.registry = registry
        self.proxy = proxy
        self.connectionID = connectionID
        self.core = core
        self.maxBodySize = maxBodySize
        self.isTLS = tls
        self.perform = perform
        self.logger = logger
    }

    // MARK: TLS

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted(let negotiated) = event {
            handshakeCompleted = true
            let ssl = try? context.pipeline.syncOperations.handler(type: NIOSSLServerHandler.self)
            let version: String? = ssl?.tlsVersion.map {
                switch $0 {
                case .tlsv1: return "TLSv1"
                case .tlsv11: return "TLSv1.1"
                case .tlsv12: return "TLSv1.2"
                case .tlsv13: return "TLSv1.3"
                }
            }
            let subject = (try? ssl?.peerCertificate?.toDERBytes()).flatMap { certificateSubject(der: $0) }
            tlsFacts = TLSFacts(version: version, alpn: negotiated, clientCertificate: subject)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // Nothing about a closed connection may outlive it (an NTLM handshake in progress, for one).
        core.connectionClosed(connectionID)
        if isTLS {
            // One entry per TLS connection: its handshake, and whether any request came over it.
            let failure = handshakeCompleted ? nil : (handshakeFailure ?? "the client closed the connection during the handshake")
            core.recordTLSConnection(connectionInfo, failure: failure, requests: exchanges)
        }
        context.fireChannelInactive()
    }

    func handlerAdded(context: ChannelHandlerContext) {
        remote = context.channel.remoteAddress.map(Self.describe)
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        connectionGuard.onHeaderTimeout = {
            let (handler, context) = loopBound.value
            return handler.headerTimedOut(context: context)
        }
        connectionGuard.onIdleTimeout = {
            let (handler, _) = loopBound.value
            if handler.isTLS, !handler.handshakeCompleted, handler.handshakeFailure == nil {
                handler.handshakeFailure = "the handshake did not complete within the idle timeout"
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        // A CONNECT tunnel replaces this handler: the guard's callbacks must not reach it any more.
        connectionGuard.onHeaderTimeout = nil
        connectionGuard.onIdleTimeout = nil
    }

    /// A request head trickled in for longer than the header timeout: journal a 408 and hand the guard
    /// its bytes (it writes them below the HTTP codec, which has only half a request).
    private func headerTimedOut(context: ChannelHandlerContext) -> ByteBuffer {
        exchanges += 1
        let detail = "the request head did not arrive within the header timeout"
        let exchange = proxy == nil
            ? core.reject(partial: nil, connection: connectionInfo, status: 408, verdict: .headerTimeout, detail: detail)
            : core.rejectProxy(Request(method: "", target: "", connection: connectionInfo), status: 408, verdict: .headerTimeout, detail: detail, close: true)
        state = .failed
        let response = exchange.response
        var head = "HTTP/1.1 408 \(Engine.reason(408))\r\n"
        for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        var buffer = context.channel.allocator.buffer(capacity: head.utf8.count + response.body.count)
        buffer.writeString(head)
        buffer.writeBytes(response.body)
        return buffer
    }

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
            // Answer the interim response (HTTP/1.1 only, RFC 9110 §10.1.1) so clients that wait for it
            // send their body at once, unless the body is already known to be refused.
            if head.version.major == 1, head.version.minor >= 1, !tooLarge, head.headers["expect"].contains(where: { $0.lowercased() == "100-continue" }) {
                var early = makeRequest(head, body: [])
                if proxy == nil, core.challengesBeforeBody(early) {
                    // The challenge instead of 100 Continue: the client need not send a body it must repeat.
                    exchanges += 1
                    early.connection.exchange = exchanges
                    var exchange = core.handle(early)
                    exchange.response.closeConnection = true
                    state = .discarding
                    write(exchange.response, for: head, context: context, closeAfter: false)
                    // The body may still come (and is dropped): the idle timeout watches it.
                    connectionGuard.headReceived()
                    return
                }
                context.writeAndFlush(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
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
            let body = self.body
            self.body = []
            exchanges += 1
            let request = makeRequest(head, body: body)
            if let proxy, !tooLarge {
                handleProxyRequest(request, head: head, route: proxy, context: context)
                return
            }
            if !tooLarge, let slowCheck = core.slowPasswordCheck(request) {
                // A password hash that is slow by design (bcrypt…) and not checked before: check it on NIO's
                // thread pool, then answer from the engine's memo. NIO's pipelining handler holds any next
                // request of this connection until this answer is written, so order is kept.
                let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
                NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { slowCheck() }.whenComplete { _ in
                    let (handler, context) = loopBound.value
                    handler.answer(request, head: head, exchange: handler.core.handle(request), context: context)
                }
                return
            }
            let exchange: Exchange
            if tooLarge, proxy != nil {
                exchange = core.rejectProxy(request, status: 413, verdict: .bodyTooLarge, detail: "the request body exceeds \(maxBodySize) bytes", close: true)
            } else if tooLarge {
                exchange = core.reject(
                    partial: request, connection: connectionInfo, status: 413, verdict: .bodyTooLarge,
                    detail: "the request body exceeds \(maxBodySize) bytes"
                )
            } else {
                exchange = core.handle(request)
            }
            answer(request, head: head, exchange: exchange, context: context)
        case (.end, .discarding):
            state = .failed
            context.close(promise: nil)
        case (.body, _), (.end, _):
            // A body answered early is dropped; parts without a head cannot come from NIO's decoder.
            return
        }
    }

    /// Writes the engine's answer, once the shell has done what it asked (e.g. a new certificate is in place).
    private func answer(_ request: Request, head: HTTPRequestHead, exchange: Exchange, context: ChannelHandlerContext) {
        logger.debug("\(request.method) \(request.target) → \(exchange.response.status) \(exchange.entry?.verdict.rawValue ?? "control")")
        if exchange.actions.isEmpty {
            write(exchange.response, for: head, context: context)
        } else {
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            perform(exchange.actions, context.eventLoop).whenComplete { _ in
                let (handler, context) = loopBound.value
                handler.write(exchange.response, for: head, context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if isTLS, !handshakeCompleted, error is NIOSSLError || error is BoringSSLError {
            handshakeFailure = TLSFailure.describe(error)
            context.close(promise: nil)
            return
        }
        guard let parserError = error as? HTTPParserError else {
            logger.debug("connection error: \(error)")
            context.close(promise: nil)
            return
        }
        if case .failed = state { return }
        if case .discarding = state {
            // The client gave up the body of a request already answered and closed: nothing to journal.
            state = .failed
            context.close(promise: nil)
            return
        }
        let partial: Request?
        if case .receiving(let head, _) = state {
            partial = makeRequest(head, body: [])
        } else {
            partial = nil
        }
        exchanges += 1
        // The connection ended (the client left, or shutdown closed it) in the middle of a request: journal
        // the half request, but write nothing — nobody reads it, and a quiesced pipeline must not be written to.
        if parserError == .invalidEOFState {
            let detail = partial == nil
                ? "the connection closed before the request head was complete"
                : "the connection closed before the request body was complete"
            if proxy != nil {
                _ = core.rejectProxy(partial ?? Request(method: "", target: "", connection: connectionInfo), status: 400, verdict: .malformedRequest, detail: detail)
            } else {
                _ = core.reject(partial: partial, connection: connectionInfo, status: 400, verdict: .malformedRequest, detail: detail)
            }
            state = .failed
            context.close(promise: nil)
            return
        }
        let exchange: Exchange
        if proxy != nil {
            let oversized = parserError == .headerOverflow
            exchange = core.rejectProxy(
                partial ?? Request(method: "", target: "", connection: connectionInfo), status: oversized ? 431 : 400,
                verdict: oversized ? .headersTooLarge : .malformedRequest,
                detail: oversized ? "the request's header fields exceed the server's limit" : "the request is not valid HTTP/1.1 (\(parserError))",
                close: true
            )
        } else if parserError == .headerOverflow {
            exchange = core.reject(
                partial: partial, connection: connectionInfo, status: 431, verdict: .headersTooLarge,
                detail: "the request's header fields exceed the server's limit"
            )
        } else {
            exchange = core.reject(
                partial: partial, connection: connectionInfo, status: 400, verdict: .malformedRequest,
                detail: "the request is not valid HTTP/1.1 (\(parserError))"
            )
        }
        state = .failed
        let head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/")
        write(exchange.response, for: head, context: context)
    }

    // MARK: Forward proxy

    /// A request to the proxy: check the target, ask the proxy's engine, then hand the request to the
    /// origin in-process (absolute-form) or turn this channel into a tunnel to it (CONNECT).
    private func handleProxyRequest(_ request: Request, head: HTTPRequestHead, route: ProxyRoute, context: ChannelHandlerContext) {
        // Whatever the answer, unless a tunnel opens, a CONNECT leaves NIO's decoder spent: renew it.
        var tunnelling = false
        defer {
            if request.method == "CONNECT", !tunnelling { renewDecoder(route: route, context: context) }
        }
        let target: ProxyTarget
        do throws(ProxyTargetError) {
            target = try ProxyTarget.parse(method: request.method, target: request.target)
        } catch {
            let status = error.status == 414 ? 414 : 400
            write(core.rejectProxy(request, status: status, verdict: .proxyBadTarget, detail: error.reason).response, for: head, context: context)
            return
        }
        guard target.isLoopback, let origin = route.origin(target.port) else {
            let detail = target.isLoopback
                ? "\(target.host):\(target.port) is not one of this scenario's origins"
                : "\(target.host):\(target.port) is not a loopback address; authmock's proxy only reaches its own origins"
            write(core.rejectProxy(request, status: 403, verdict: .proxyTargetRefused, detail: detail).response, for: head, context: context)
            return
        }
        if !target.isConnect, origin.tls != nil {
            let detail = "port \(target.port) speaks HTTPS; send CONNECT for it, not an http:// request"
            write(core.rejectProxy(request, status: 400, verdict: .proxyBadTarget, detail: detail).response, for: head, context: context)
            return
        }
        let hop = core.handleProxy(request)
        guard hop.response.status == 200 else {
            write(hop.response, for: head, context: context)
            return
        }
        guard target.isConnect else {
            // A real proxy consumes its own credentials: the origin must not see them from here.
            var forwarded = request
            forwarded.target = target.originForm
            forwarded.headers.removeAll { ["proxy-authorization", "proxy-connection"].contains($0.name.lowercased()) }
            write(core.handle(forwarded).response, for: head, context: context)
            return
        }
        tunnelling = true
        startTunnel(into: origin, route: route, context: context)
    }

    /// Answers the CONNECT and plays the origin on this channel: the proxy's HTTP handlers go, the
    /// origin's (TLS included) come, and the decoder's leftover bytes are forwarded into them.
    private func startTunnel(into origin: OriginListener, route: ProxyRoute, context: ChannelHandlerContext) {
        let channel = context.channel
        let sync = channel.pipeline.syncOperations
        let decoder = proxy?.decoder ?? route.decoder
        do {
            // A 2xx to CONNECT carries no framing (RFC 9110 §9.3.6), which the HTTP encoder would add:
            // remove it and write the status line as bytes, from below the decoder.
            sync.removeHandler(route.pipelining, promise: nil)
            sync.removeHandler(route.encoder, promise: nil)
            let decoderContext = try sync.context(handler: decoder)
            decoderContext.writeAndFlush(NIOAny(channel.allocator.buffer(string: "HTTP/1.1 200 Connection Established\r\n\r\n")), promise: nil)
            try route.tunnel(channel, origin)
            core.connectionClosed(connectionID)  // the proxy's state for this connection ends here
            sync.removeHandler(context: context, promise: nil)
            sync.removeHandler(decoder, promise: nil)
            // The pipelining handler may have been holding back a read.
            channel.read()
        } catch {
            logger.debug("tunnel setup failed: \(error)")
            channel.close(promise: nil)
        }
    }

    /// Puts a fresh decoder right after the spent one, then removes the spent one, which forwards the
    /// bytes it holds (a CONNECT retried with credentials) into the fresh one.
    private func renewDecoder(route: ProxyRoute, context: ChannelHandlerContext) {
        guard var current = proxy else { return }
        let fresh = route.makeDecoder()
        do {
            let sync = context.pipeline.syncOperations
            try sync.addHandler(fresh, position: .after(current.decoder))
            sync.removeHandler(current.decoder, promise: nil)
            current.decoder = fresh
            proxy = current
        } catch {
            context.close(promise: nil)
        }
    }

    // MARK: Back-pressure

    func read(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            context.read()
        } else {
            readHeld = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, readHeld {
            readHeld = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    /// The engine's view of a request: no NIO types.
    private func makeRequest(_ head: HTTPRequestHead, body: [UInt8]) -> Request {
        Request(
            method: head.method.rawValue, target: head.uri, version: "HTTP/\(head.version.major).\(head.version.minor)",
            headers: head.headers.map { HeaderField($0.name, $0.value) }, body: body, connection: connectionInfo
        )
    }

    private var connectionInfo: ConnectionInfo {
        ConnectionInfo(id: connectionID, exchange: exchanges, remote: remote, tls: isTLS ? (tlsFacts ?? TLSFacts()) : nil)
    }

    /// Writes a response, playing the scenario's fault on it if it carries one.
    ///
    /// - Parameter closeAfter: false keeps a `Connection: close` response's connection open until the
    ///   request's body has been read (see ``State/discarding``).
    private func write(_ response: Response, for request: HTTPRequestHead, context: ChannelHandlerContext, closeAfter: Bool = true) {
        guard let fault = response.fault else {
            send(response, for: request, context: context, closeAfter: closeAfter)
            return
        }
        var plain = response
        plain.fault = nil
        let channel = context.channel
        switch fault {
        case .close:
            // Framed as if the connection stayed open; the client finds out when it reuses it: whatever it
            // sends next ends the connection unanswered. Closing at once instead would race with a client
            // that sends its next request right away, and verdicts would change from run to run.
            send(plain, for: request, context: context, closeAfter: closeAfter, ending: .closeOnReuse)
        case .dropBody:
            send(plain, for: request, context: context, closeAfter: closeAfter, ending: .dropBody)
        case .disconnect:
            context.close(promise: nil)
        case .stall(let seconds):
            // Nothing is written; NIO's pipelining handler holds any later request of this connection.
            registry.markStalled(channel)
            if let seconds {
                context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) { channel.close(promise: nil) }
            }
        case .delay(let seconds):
            let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            context.eventLoop.scheduleTask(in: .nanoseconds(Int64(seconds * 1e9))) {
                let (handler, context) = loopBound.value
                guard context.channel.isActive else { return }
                handler.send(plain, for: request, context: context, closeAfter: closeAfter)
            }
        }
    }

    private enum Ending {
        case normal
        /// Keep the connection after the response, but close it when the client sends anything more.
        case closeOnReuse
        /// Send the head and half the body, then close.
        case dropBody
    }

    private func send(
        _ response: Response, for request: HTTPRequestHead, context: ChannelHandlerContext, closeAfter: Bool, ending: Ending = .normal
    ) {
        var headers = HTTPHeaders(response.headers.map { ($0.name, $0.value) })
        if response.chunked, request.version != .http1_0 {
            headers.remove(name: "Content-Length")
            headers.replaceOrAdd(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.replaceOrAdd(name: "Content-Length", value: String(response.body.count))
        }
        let keepAlive = request.isKeepAlive && !response.closeConnection
        if !keepAlive {
            headers.replaceOrAdd(name: "Connection", value: "close")
        } else if request.version == .http1_0 {
            headers.replaceOrAdd(name: "Connection", value: "keep-alive")
        }
        let head = HTTPResponseHead(
            version: request.version.major == 1 ? request.version : .http1_1,
            status: HTTPResponseStatus(statusCode: response.status, reasonPhrase: Engine.reason(response.status)),
            headers: headers
        )
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        let channel = context.channel
        // HEAD, 204 and 304 carry no body (the encoder drops Content-Length for the last two).
        let hasBody = request.method != .HEAD && response.status != 204 && response.status != 304 && !response.body.isEmpty
        if ending == .dropBody {
            // The head promised the whole body; half of it comes, then the connection ends.
            if hasBody {
                let half = response.body.prefix(response.body.count / 2)
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: half)))), promise: nil)
            }
            context.flush()
            channel.close(promise: nil)
            return
        }
        if hasBody {
            // A chunked body goes out as two chunks, so that clients really reassemble it.
            let pieces = response.chunked ? [response.body.prefix(response.body.count / 2), response.body.dropFirst(response.body.count / 2)] : [response.body[...]]
            for piece in pieces where !piece.isEmpty {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: piece)))), promise: nil)
            }
        }
        if !keepAlive && closeAfter {
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if ending == .closeOnReuse {
                connectionGuard.responseSentThenCloseOnReuse()
            } else if closeAfter {
                connectionGuard.responseSent()
            }
        }
    }

    /// `127.0.0.1:40123`, `[::1]:40123`: how the journal names a client.
    static func describe(_ address: SocketAddress) -> String {
        switch address {
        case .v4: return "\(address.ipAddress ?? "?"):\(address.port ?? 0)"
        case .v6: return "[\(address.ipAddress ?? "?")]:\(address.port ?? 0)"
        case .unixDomainSocket: return "unix"
        }
    }
}
