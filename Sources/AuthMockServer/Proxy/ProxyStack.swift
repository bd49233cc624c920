import NIOCore
import NIOHTTP1

/// The handlers of a proxy connection that a tunnel replaces, and how to reach and tunnel into origins.
struct ProxyStack {
    var encoder: HTTPResponseEncoder
    /// NIO's decoder stops parsing after any CONNECT (and an ignored Upgrade); a new one takes over when
    /// no tunnel follows.
    var decoder: RequestDecoderSlot
    var pipelining: HTTPServerPipelineHandler
    var backPressure: BackPressureHandler
    /// The origin listening on a port, if it is one of the server's.
    var origin: @Sendable (Int) -> OriginListener?
    /// Plays the origin on a channel whose proxy handlers are on their way out.
    var tunnel: (any Channel, OriginListener) throws -> Void
}
