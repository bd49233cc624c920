import AuthMockCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOSSL
import NIOTLS

/// Builds the handlers of each new connection, in the order a request meets them.
///
/// An origin connection:
/// ```
/// [TLSHelloSniffer → NIOSSLServerHandler           TLS, when the listener has it (the sniffer reads SNI and
///  → TLSConnectionObserver]                        the cipher, then leaves; the observer journals the rest)
/// ConnectionGuard                                  header and idle timeouts, below the HTTP codec
/// HTTP codec + HTTPServerPipelineHandler           NIO's; one request at a time, graceful quiescing
/// BackPressureHandler                              NIO's; holds reads while the client does not read
/// ExchangeHandler (origin) → OriginResponder       parts → Request; the engine's answer → ResponseWriter
/// ```
/// Over HTTP/2 (ALPN `h2`, or the preface on a prior-knowledge listener) the guard counts streams, NIO's
/// HTTP/2 handler follows it between ``HTTP2SentErrorFrames`` and ``HTTP2FailureJournal`` (which journal
/// the streams and connections it ends with an error code), and each stream gets its own
/// ```
/// HTTP2StreamControl                               RST_STREAM and GOAWAY, which HTTP/1 parts cannot say
/// HTTP2FramePayloadToHTTP1ServerCodec              NIO's: the stream as HTTP/1 parts
/// ExchangeHandler (origin) → OriginResponder       as above: one stream, one engine request
/// ```
/// A proxy connection has the same layers without TLS, with a ``ForwardProxyResponder`` in place of the
/// ``OriginResponder``; a granted CONNECT swaps its HTTP layers for an origin connection's (see
/// `ServerPipelines+Proxy.swift`). The responders are called by the exchange handler, not pipeline
/// stages: see ``ExchangeResponder``.
struct ServerPipelines: Sendable {
    let engines: LockedEngines
    let registry: ConnectionRegistry
    let timeouts: ConnectionGuard.Timeouts
    let decoderLimits: NIOHTTPDecoderLimitConfiguration
    let maxBodySize: Int
    /// HTTP/2 on the origin's listeners (and through CONNECT tunnels to them).
    let http2: HTTP2Policy
    let logger: Logger
    let perform: EngineAnswerer.Perform
    /// The origin listening on a port, if it is one of the server's (the proxy's only targets).
    let origin: @Sendable (Int) -> OriginListener?

    /// How every hop's responder turns a request into its answer.
    var answerer: EngineAnswerer { EngineAnswerer(engines: engines, perform: perform, logger: logger) }

    /// Plays the origin on a channel: a new connection, or a CONNECT tunnel through the proxy.
    /// - Parameter id: its number in the journal; nil: the next one, when something about it is journaled.
    func configureOrigin(_ channel: any Channel, id: UInt64?, tls: TLSRuntime?) throws {
        let registry = self.registry
        let record = id.map { ConnectionRecord(id: $0, isTLS: tls != nil) }
            ?? ConnectionRecord(isTLS: tls != nil, nextNumber: registry.allocateID)
        record.remote = channel.remoteAddress.map(Self.describe)
        // TLS first: everything after it sees plain HTTP. The context is read per connection, so a
        // rotation applies to the next connection.
        if let tls {
            let (context, served) = tls.forNewConnection
            record.tlsFacts = TLSFacts(certificateSHA256: served.fingerprintSHA256, pinSHA256: served.pinSHA256)
            try channel.pipeline.syncOperations.addHandlers([
                TLSHelloSniffer(record: record), NIOSSLServerHandler(context: context),
            ])
        }
        try addOriginHandlers(to: channel, record: record)
    }

    /// The origin's handlers behind the TLS handler (if any): everything that sees the connection's
    /// plaintext. Tests add them to an `EmbeddedChannel` to play a TLS connection without a handshake.
    func addOriginHandlers(to channel: any Channel, record: ConnectionRecord) throws {
        let sync = channel.pipeline.syncOperations
        let connectionGuard = ConnectionGuard(timeouts: timeouts)
        if record.isTLS {
            try sync.addHandler(TLSConnectionObserver(record: record, engines: engines))
            connectionGuard.onIdleTimeout = { TLSConnectionObserver.idleTimeout(record) }
        }
        // Below the HTTP codec, above TLS: the guard sees every byte of a request as it arrives.
        try sync.addHandler(connectionGuard)
        switch (http2.mode, record.isTLS) {
        case (.offer, true), (.only, true):
            // The HTTP layers wait for the handshake's ALPN; `only` speaks h2 whatever was agreed.
            let speakH2Anyway = http2.mode == .only
            let loopBound = NIOLoopBound((record, connectionGuard), eventLoop: channel.eventLoop)
            try sync.addHandler(ApplicationProtocolNegotiationHandler { [self] result, channel in
                channel.eventLoop.makeCompletedFuture {
                    let (record, connectionGuard) = loopBound.value
                    let h2 = result == .negotiated("h2") || speakH2Anyway
                    try addHTTPHandlers(h2: h2, to: channel, record: record, connectionGuard: connectionGuard)
                }
            })
        case (.priorKnowledge, false):
            try sync.addHandler(HTTP2PrefaceSniffer { [self] isH2, context in
                try addHTTPHandlers(h2: isH2, to: context.channel, record: record, connectionGuard: connectionGuard)
            })
        default:
            try addHTTP1Handlers(to: channel, record: record, connectionGuard: connectionGuard)
        }
    }

    private func addHTTPHandlers(
        h2: Bool, to channel: any Channel, record: ConnectionRecord, connectionGuard: ConnectionGuard
    ) throws {
        if h2 {
            try addHTTP2Handlers(to: channel, record: record, connectionGuard: connectionGuard)
        } else {
            try addHTTP1Handlers(to: channel, record: record, connectionGuard: connectionGuard)
        }
    }

    /// HTTP/1.1 behind the guard.
    private func addHTTP1Handlers(
        to channel: any Channel, record: ConnectionRecord, connectionGuard: ConnectionGuard
    ) throws {
        let sync = channel.pipeline.syncOperations
        // NIO's server pipeline, with a decoder that can be renewed after an Upgrade it ignored. Pipelining
        // assistance serialises pipelined requests and implements quiescing (ChannelShouldQuiesceEvent) for
        // graceful shutdown. Error handling is ours, so that protocol errors are journaled.
        let decoder = RequestDecoderSlot(limits: decoderLimits)
        try sync.addHandlers([
            HTTPResponseEncoder(configuration: .init()), decoder.decoder, HTTPServerPipelineHandler(),
            NIOHTTPResponseHeadersValidator(),
        ])
        try sync.addHandler(BackPressureHandler())
        let origin = OriginResponder(answerer: answerer, decoder: decoder)
        let handler = exchangeHandler(hop: .origin, record: record, connectionGuard: connectionGuard, responder: origin)
        try sync.addHandler(handler)
    }

    /// HTTP/2 behind the guard: NIO's connection handler, and per stream the control, NIO's translation
    /// to HTTP/1 parts and the exchange handler. Every stream shares the connection's record (its id and
    /// exchange count); its NTLM state ends with the TCP connection, not with a stream.
    private func addHTTP2Handlers(
        to channel: any Channel, record: ConnectionRecord, connectionGuard: ConnectionGuard
    ) throws {
        connectionGuard.becomeMultiplexed()
        let engines = self.engines, closing = NIOLoopBound(record, eventLoop: channel.eventLoop)
        // Only a numbered connection can have state in the engines (control requests leave none).
        channel.closeFuture.whenComplete { _ in closing.value.assignedID.map(engines.connectionClosed) }
        var connection = NIOHTTP2Handler.ConnectionConfiguration()
        connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
            HTTP2Setting(parameter: .maxHeaderListSize, value: decoderLimits.maxHeaderListSize),
        ]
        // NIO's handler between the two that journal what it refuses: the frames it writes below it, the
        // errors it fires above it.
        let failures = HTTP2Failures()
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(HTTP2SentErrorFrames(failures: failures))
        let loopBound = NIOLoopBound((record, connectionGuard, failures), eventLoop: channel.eventLoop)
        _ = try sync.configureHTTP2Pipeline(
            mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
        ) { [self] stream in
            stream.eventLoop.makeCompletedFuture {
                let (record, connectionGuard, failures) = loopBound.value
                try addStreamHandlers(
                    to: stream, connection: channel, record: record, connectionGuard: connectionGuard,
                    failures: failures
                )
            }
        }
        try sync.addHandler(HTTP2FailureJournal(failures: failures, engines: engines, record: record, logger: logger))
    }

    private func addStreamHandlers(
        to stream: any Channel, connection: any Channel, record: ConnectionRecord, connectionGuard: ConnectionGuard,
        failures: HTTP2Failures
    ) throws {
        let streamID = try stream.syncOptions!.getOption(HTTP2StreamChannelOptions.streamID)
        connectionGuard.streamOpened()
        failures.streamOpened(Int(streamID))
        let loopBound = NIOLoopBound((connectionGuard, failures), eventLoop: stream.eventLoop)
        stream.closeFuture.whenComplete { _ in
            let (connectionGuard, failures) = loopBound.value
            failures.streamClosed(Int(streamID))
            connectionGuard.streamClosed()
        }
        let control = HTTP2StreamControl(streamID: streamID, connection: connection, failures: failures)
        let sync = stream.pipeline.syncOperations
        try sync.addHandlers([control, HTTP2FramePayloadToHTTP1ServerCodec()])
        let origin = OriginResponder(answerer: answerer, decoder: nil)
        let handler = exchangeHandler(
            hop: .origin, record: record, connectionGuard: connectionGuard, responder: origin, stream: control
        )
        try sync.addHandler(handler)
    }

    func exchangeHandler(
        hop: Hop, record: ConnectionRecord, connectionGuard: ConnectionGuard, responder: any ExchangeResponder,
        stream: HTTP2StreamControl? = nil
    ) -> ExchangeHandler {
        ExchangeHandler(
            hop: hop, engines: engines, record: record,
            writer: ResponseWriter(connectionGuard: connectionGuard, registry: registry, stream: stream),
            maxBodySize: maxBodySize, logger: logger, responder: responder
        )
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
