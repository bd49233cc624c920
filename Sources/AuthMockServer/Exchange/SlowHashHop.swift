import NIOCore
import NIOPosix

/// The hop of a password check that is slow by design (bcrypt, SHA-crypt with many rounds) off the
/// event loop: it runs on NIO's thread pool, and the future completes on the connection's loop once the
/// engine's memo holds the result, so the engine's answer after it is immediate.
///
/// NIO's pipelining handler holds any next request of the connection until this answer is written, so
/// answers keep their order.
enum SlowHashHop {
    static func run(_ check: @escaping @Sendable () -> Void, on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        NIOThreadPool.singleton.runIfActive(eventLoop: eventLoop, check)
    }
}
