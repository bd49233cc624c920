import NIOCore

extension AuthMockServer {
    /// Puts the origin's handlers for a new plain-HTTP connection on `channel`, as the listener does for a
    /// connection it accepts, but without a listener: the server need not be started. The fuzz target plays
    /// connections this way on an `EmbeddedChannel` (with that channel's loop as the server's
    /// `eventLoopGroup`); their entries go to ``journal`` as any connection's do. Unlike an accepted
    /// connection, it is not counted against `--max-connections`.
    ///
    /// - Parameter id: the connection's number in the journal.
    public func addOriginHandlers(to channel: any Channel, connection id: UInt64) throws {
        try pipelines.configureOrigin(channel, id: id, tls: nil)
    }
}
