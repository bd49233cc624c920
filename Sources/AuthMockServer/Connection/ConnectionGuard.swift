import NIOCore

/// Keeps slow and idle clients from holding a connection forever (slowloris): it sits below the HTTP
/// codec (above TLS), sees every byte that arrives, and runs one timer per connection.
///
/// - While the server waits for a request, the connection may stay silent for `idleTimeout` (this also
///   bounds a TLS handshake that never completes: no bytes come through until it does).
/// - Once the first byte of a request head arrives, the whole head must arrive within `headerTimeout`,
///   however slowly it trickles in; otherwise the client gets a 408 and the connection closes.
/// - While a body arrives, each read must follow the last within `idleTimeout`.
/// - While the server answers (a slow hash, a scenario's stall or delay), no timer runs.
///
/// The ``ExchangeHandler`` tells the guard when a request's head and body are in, the ``ResponseWriter``
/// when the answer is out.
///
/// An HTTP/2 connection multiplexes its requests, so the guard of one (``becomeMultiplexed()``) counts
/// open streams instead: the idle timer runs while none is open, the header timer never (the HTTP/2
/// handler bounds a request's header block), and a shutdown's quiescing closes the connection once its
/// last stream is done. The timer is one scheduled task
/// whose deadline moves: re-arming on the hot path only writes a number.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    struct Timeouts: Sendable, Equatable {
        var header: TimeAmount
        var idle: TimeAmount
    }

    private enum Phase {
        /// Between requests (or before the first): idle timer.
        case awaitingRequest
        /// Bytes of a request head have arrived; the head is not complete: header timer.
        case receivingHead
        /// The head is complete and a body may follow: idle timer, renewed by each read.
        case receivingBody
        /// The server's turn: no timer.
        case answering
    }

    private let timeouts: Timeouts
    private var phase = Phase.awaitingRequest
    private var deadline: NIODeadline?
    private var timer: Scheduled<Void>?
    private var scheduledAt: NIODeadline?
    private var context: ChannelHandlerContext?
    /// Called when a request head did not complete in time; returns the bytes of the 408 to send (the
    /// exchange handler journals it). Nil closes without an answer.
    var onHeaderTimeout: (() -> ByteBuffer?)?
    /// Called before an idle connection is closed.
    var onIdleTimeout: (() -> Void)?
    /// Set by a scenario's `close` fault: the next bytes the client sends end the connection unread.
    private var closeOnNextRequest = false
    /// HTTP/2: the connection's streams are counted, not its requests.
    private(set) var multiplexed = false
    private var openStreams = 0
    /// HTTP/2, shutting down: close when the last open stream closes.
    private var closeWhenNoStreams = false

    init(timeouts: Timeouts) {
        self.timeouts = timeouts
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if context.channel.isActive { arm(timeouts.idle) }
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(timeouts.idle)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if multiplexed {
            if openStreams == 0 { arm(timeouts.idle) }
            context.fireChannelRead(data)
            return
        }
        if closeOnNextRequest {
            context.close(promise: nil)
            return
        }
        switch phase {
        case .awaitingRequest:
            phase = .receivingHead
            arm(timeouts.header)
        case .receivingBody:
            arm(timeouts.idle)
        case .receivingHead, .answering:
            break
        }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // NIO's HTTP/1.1 pipelining handler quiesces an HTTP/1.1 connection; an HTTP/2 one is closed here
        // once its streams are answered.
        if multiplexed, event is ChannelShouldQuiesceEvent {
            closeWhenNoStreams = true
            if openStreams == 0 { context.close(promise: nil) }
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    // MARK: HTTP/2

    /// The connection speaks HTTP/2 from now on.
    func becomeMultiplexed() {
        multiplexed = true
        phase = .awaitingRequest
        arm(timeouts.idle)
    }

    func streamOpened() {
        openStreams += 1
        disarm()
    }

    func streamClosed() {
        openStreams -= 1
        guard openStreams == 0 else { return }
        if closeWhenNoStreams {
            context?.close(promise: nil)
        } else {
            arm(timeouts.idle)
        }
    }

    // MARK: What the exchange handler reports (HTTP/1.x; over HTTP/2 the streams count)

    /// The request head is complete.
    func headReceived() {
        guard !multiplexed else { return }
        phase = .receivingBody
        arm(timeouts.idle)
    }

    /// The request is complete: the server's turn.
    func requestReceived() {
        guard !multiplexed else { return }
        phase = .answering
        disarm()
    }

    /// The answer is written: wait for the next request.
    func responseSent() {
        guard !multiplexed else { return }
        phase = .awaitingRequest
        arm(timeouts.idle)
    }

    /// The answer is written, and the connection must die when the client tries to reuse it.
    func responseSentThenCloseOnReuse() {
        responseSent()
        closeOnNextRequest = true
    }

    // MARK: The timer

    private func arm(_ timeout: TimeAmount) {
        let when = NIODeadline.now() + timeout
        deadline = when
        guard let context else { return }
        if timer != nil {
            // A later deadline waits for the scheduled task to fire and re-schedule; only an earlier
            // one (the header timeout after the idle one) needs a new task.
            guard let scheduledAt, when < scheduledAt else { return }
            timer?.cancel()
        }
        schedule(at: when, on: context.eventLoop)
    }

    private func disarm() {
        deadline = nil
    }

    /// No deadline and no scheduled task: the connection is gone.
    private func stop() {
        disarm()
        timer?.cancel()
        timer = nil
        scheduledAt = nil
    }

    private func schedule(at when: NIODeadline, on eventLoop: any EventLoop) {
        let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
        scheduledAt = when
        timer = eventLoop.scheduleTask(deadline: when) { loopBound.value.fire() }
    }

    private func fire() {
        timer = nil
        scheduledAt = nil
        guard let deadline, let context else { return }
        if deadline > .now() {
            // The deadline moved since this task was scheduled: wait for the new one.
            schedule(at: deadline, on: context.eventLoop)
            return
        }
        self.deadline = nil
        if !multiplexed, phase == .receivingHead, let bytes = onHeaderTimeout?() {
            phase = .answering
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(bytes)).whenComplete { _ in channel.close(promise: nil) }
        } else {
            onIdleTimeout?()
            context.close(promise: nil)
        }
    }
}
