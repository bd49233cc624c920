// The floor under authmock's cost per request: a SwiftNIO server that does nothing but answer every
// request with the 200 authmock sends a Basic user (the same status line, fields and 14-byte body),
// through the handlers authmock's pipeline shares with it, on one event loop. No engine, no journal, no
// guard, no back-pressure handler. `ci/bench profile` runs it under callgrind beside authmock: the
// difference is what authmock itself costs, and this figure is what it cannot go below while it speaks
// HTTP through NIO.
//
//   authmock-nio-floor --ready-file PATH
//       HTTP/1.1 on 127.0.0.1, a free port: NIO's response encoder, request decoder, pipelining handler
//       and response-headers validator (configureHTTPServerPipeline), as authmock's plain listener.
//   authmock-nio-floor --ready-file PATH --h2 CHAIN.pem KEY.pem
//       HTTP/2 over TLS (ALPN h2) with that certificate: NIOSSL, NIOHTTP2's server pipeline and a child
//       channel per stream with NIO's HTTP/1 translation, as authmock's HTTPS listener with `http2: offer`.
//
// Writes {"url": …} to PATH. SIGTERM or SIGINT shuts it down cleanly (so that callgrind writes its profile).
import Dispatch
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Answers every request's end with the fixed 200; closes when the request did not keep the connection.
final class AnswerOK: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private var head: HTTPRequestHead?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let requestHead):
            head = requestHead
        case .body:
            break
        case .end:
            guard let request = head else { return }
            head = nil
            let keepAlive = request.isKeepAlive
            var headers = HTTPHeaders([
                ("Content-Type", "text/plain; charset=utf-8"), ("X-Authmock-Verdict", "basic.ok"),
            ])
            headers.replaceOrAdd(name: "Content-Length", value: "14")
            // As authmock frames it: HTTP/1.0 (ab's) keeps the connection only when the answer says so.
            if !keepAlive {
                headers.replaceOrAdd(name: "Connection", value: "close")
            } else if request.version == .http1_0 {
                headers.replaceOrAdd(name: "Connection", value: "keep-alive")
            }
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: request.version, status: .ok, headers: headers))),
                promise: nil
            )
            context.write(
                wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: "Hello, alice!\n")))),
                promise: nil
            )
            if keepAlive {
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            } else {
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}

var readyFile: String?
var tls: NIOSSLContext?
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--ready-file", let path = arguments.popFirst() {
        readyFile = path
    } else if argument == "--h2", let chain = arguments.popFirst(), let key = arguments.popFirst() {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(chain).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
        )
        configuration.applicationProtocols = ["h2"]
        tls = try NIOSSLContext(configuration: configuration)
    } else {
        FileHandleless.fail("usage: authmock-nio-floor --ready-file PATH [--h2 CHAIN.pem KEY.pem]")
    }
}

/// HTTP/2 behind TLS: each stream a child channel translated to HTTP/1 parts for the same handler.
func configureH2(_ channel: any Channel, tls: NIOSSLContext) throws {
    let sync = channel.pipeline.syncOperations
    try sync.addHandler(NIOSSLServerHandler(context: tls))
    var connection = NIOHTTP2Handler.ConnectionConfiguration()
    connection.initialSettings = [HTTP2Setting(parameter: .maxConcurrentStreams, value: 100)]  // authmock's
    _ = try sync.configureHTTP2Pipeline(
        mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
    ) { stream in
        stream.eventLoop.makeCompletedFuture {
            try stream.pipeline.syncOperations.addHandlers([HTTP2FramePayloadToHTTP1ServerCodec(), AnswerOK()])
        }
    }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let channel = try ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
    .childChannelInitializer { [tls] channel in
        channel.eventLoop.makeCompletedFuture {
            if let tls {
                try configureH2(channel, tls: tls)
            } else {
                try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: false)
                try channel.pipeline.syncOperations.addHandler(AnswerOK())
            }
        }
    }
    .bind(host: "127.0.0.1", port: 0)
    .wait()

let port = channel.localAddress?.port ?? 0
let scheme = tls == nil ? "http" : "https"
let ready = "{\"url\": \"\(scheme)://127.0.0.1:\(port)/\", \"port\": \(port)}\n"
if let readyFile {
    FileHandleless.save(ready, to: readyFile)
} else {
    print(ready, terminator: "")
}

// Stop on SIGTERM or SIGINT: close the listener, and the program returns from `closeFuture.wait()`.
signal(SIGTERM, SIG_IGN)
signal(SIGINT, SIG_IGN)
let signalQueue = DispatchQueue(label: "signals")
let sources = [SIGTERM, SIGINT].map { number in
    let source = DispatchSource.makeSignalSource(signal: number, queue: signalQueue)
    // @Sendable: not isolated to the main actor, whose check would trap on the signal queue.
    source.setEventHandler { @Sendable in channel.close(promise: nil) }
    source.resume()
    return source
}
try channel.closeFuture.wait()
try group.syncShutdownGracefully()
_ = sources

/// Writing a small file and failing, without Foundation (the floor links only NIO).
enum FileHandleless {
    /// Whole or not at all: written beside `path`, then renamed onto it, so a reader never sees half.
    static func save(_ text: String, to path: String) {
        let partial = path + ".partial"
        guard let file = fopen(partial, "w") else { fail("cannot write \(partial)") }
        fputs(text, file)
        guard fclose(file) == 0, rename(partial, path) == 0 else { fail("cannot write \(path)") }
    }

    static func fail(_ message: String) -> Never {
        let line = Array((message + "\n").utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        exit(2)
    }
}
