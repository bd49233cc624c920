import NIOCore
import NIOHTTP1

/// A connection's HTTP/1.1 request decoder, renewable. NIO's decoder stops parsing after a request that
/// asks to switch protocols — `CONNECT`, or `Upgrade:` with `Connection: upgrade` — and waits for an upgrade
/// handler to take the connection over (it never resumes on its own: swift-nio PR 2570). authmock upgrades
/// nothing but a granted CONNECT, so once such a request is answered a fresh decoder takes over, fed the
/// bytes the spent one holds. RFC 9110 §7.8 lets a server ignore Upgrade; it then goes on speaking
/// HTTP/1.1. (Java's HttpClient sends `Upgrade: h2c` on every plain request: without this, its retry after
/// a 401 on the same connection was never read.)
final class RequestDecoderSlot {
    private(set) var decoder: ByteToMessageHandler<HTTPRequestDecoder>
    private let limits: NIOHTTPDecoderLimitConfiguration

    init(limits: NIOHTTPDecoderLimitConfiguration) {
        self.limits = limits
        self.decoder = Self.make(limits)
    }

    /// Bytes after a request that stopped the decoder belong to the next request (or to a tunnel): the
    /// decoder forwards them when it is removed, never drops them.
    private static func make(_ limits: NIOHTTPDecoderLimitConfiguration) -> ByteToMessageHandler<HTTPRequestDecoder> {
        ByteToMessageHandler(HTTPRequestDecoder(
            leftOverBytesStrategy: .forwardBytes, informationalResponseStrategy: .drop, limitConfiguration: limits
        ))
    }

    /// Whether NIO's decoder stops after this request (llhttp's upgrade flag). A false positive only
    /// renews a decoder that would have gone on anyway.
    static func stopsDecoder(_ head: HTTPRequestHead) -> Bool {
        if head.method == .CONNECT { return true }
        guard head.headers.contains(name: "upgrade") else { return false }
        return head.headers[canonicalForm: "connection"].contains { $0.lowercased() == "upgrade" }
    }

    /// Puts a fresh decoder right after the spent one, then removes the spent one, which forwards the
    /// bytes it holds into the fresh one.
    func renew(context: ChannelHandlerContext) {
        let fresh = Self.make(limits)
        do {
            let sync = context.pipeline.syncOperations
            try sync.addHandler(fresh, position: .after(decoder))
            sync.removeHandler(decoder, promise: nil)
            decoder = fresh
        } catch {
            context.close(promise: nil)
        }
    }
}
