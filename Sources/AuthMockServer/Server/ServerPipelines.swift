import AuthMockCore
import Logging
import NIOCore
import NIOHTTP1
import NIOSSL

/// Builds the handlers of each new connection, in the order a request meets them.
///
/// An origin connection:
/// ```
/// [TLSHelloSniffer → NIOSSLServerHandler           TLS, when the listener has it (the sniffer reads SNI and
///  → TLSConnectionObserver]                        the cipher, then leaves; the observer journals the rest)
/// ConnectionGuard                                  header and idle timeouts, below the HTTP codec
/// HTTP codec + HTTPServerPipelineHandler           NIO's; one request at a time, graceful quiescing
/// BackPressureHandler                              holds reads while the client does not read
/// ExchangeHandler (origin) → OriginResponder       parts → Request; the engine's answer → ResponseWriter
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
    let logger: Logger
    let perform: OriginResponder.Perform
    /// The origin listening on a port, if it is one of the server's (the proxy's only targets).
    let origin: @Sendable (Int) -> OriginListener?

    /// Plays the origin on a channel: a new connection, or a CONNECT tunnel through the proxy.
    func configureOrigin(_ channel: any Channel, id: UInt64, tls: TLSRuntime?) throws {
        let record = ConnectionRecord(id: id, isTLS: tls != nil)
        record.remote = channel.remoteAddress.map(Self.describe)
        // TLS first: everything after it sees plain HTTP. The context is read per connection, so a
        // rotation applies to the next connection.
        if let tls {
            let (context, served) = tls.forNewConnection
            record.tlsFacts = TLSFacts(certificateSHA256: served.fingerprintSHA256, pinSHA256: served.pinSHA256)
            try channel.pipeline.syncOperations.addHandlers([TLSHelloSniffer(record: record), NIOSSLServerHandler(context: context)])
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
        // NIO's server pipeline, with a decoder that can be renewed after an Upgrade it ignored. Pipelining
        // assistance serialises pipelined requests and implements quiescing (ChannelShouldQuiesceEvent) for
        // graceful shutdown. Error handling is ours, so that protocol errors are journaled.
        let decoder = RequestDecoderSlot(limits: decoderLimits)
        try sync.addHandlers([HTTPResponseEncoder(configuration: .init()), decoder.decoder, HTTPServerPipelineHandler(), NIOHTTPResponseHeadersValidator()])
        try sync.addHandler(BackPressureHandler())
        let origin = OriginResponder(engines: engines, decoder: decoder, perform: perform, logger: logger)
        try sync.addHandler(exchangeHandler(role: .origin, record: record, connectionGuard: connectionGuard, responder: origin))
    }

    func exchangeHandler(
        role: Engine.Role, record: ConnectionRecord, connectionGuard: ConnectionGuard, responder: any ExchangeResponder
    ) -> ExchangeHandler {
        ExchangeHandler(
            role: role, engines: engines, record: record, writer: ResponseWriter(connectionGuard: connectionGuard, registry: registry),
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
