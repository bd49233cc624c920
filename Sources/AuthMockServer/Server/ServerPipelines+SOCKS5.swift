import AuthMockCore
import NIOCore

extension ServerPipelines {
    /// The SOCKS5 listener's connection: one ``SOCKS5Handler`` until the handshake ends; a granted
    /// CONNECT adds an origin connection's handlers behind it (with a new connection id, like a tunnel
    /// through the HTTP proxy) and the handler leaves.
    func configureSOCKS5(_ channel: any Channel, id: UInt64, settings: SOCKS5Settings) throws {
        let record = ConnectionRecord(id: id, isTLS: false)
        record.remote = channel.remoteAddress.map(Self.describe)
        let registry = self.registry
        let handler = SOCKS5Handler(
            settings: settings, record: record, engines: engines, timeout: timeouts.header, origin: origin,
            tunnel: { [self] channel, origin in
                try configureOrigin(channel, id: registry.allocateID(), tls: origin.tls)
            }
        )
        try channel.pipeline.syncOperations.addHandler(handler)
    }
}
