import AuthMockCore
import AuthMockServer
import Foundation
import NIOCore
import NIOHTTP1
import NIOHTTP2
import NIOPosix
import Testing

/// Many concurrent HTTP/2 streams on few connections (run with the other load tests, by `ci/test`, on
/// their own): every stream answered, each with its own user's page, every stream journaled once.
@Suite(
    .serialized, .timeLimit(.minutes(2)),
    .enabled(if: ProcessInfo.processInfo.environment["AUTHMOCK_LOAD_TESTS"] == "1", "run by ci/test on their own (AUTHMOCK_LOAD_TESTS=1)")
)
struct HTTP2LoadTests {
    /// 8 h2c connections, 500 streams each opened at once (the server allows 100 at a time per connection;
    /// NIO's client queues the rest): 4,000 Basic requests, alice and bob alternating, so that an answer
    /// given to the wrong stream shows as the wrong name.
    @Test func thousandsOfStreamsOnEightConnections() async throws {
        let scenario = try ScenarioLoader.load(yaml: """
            version: 1
            name: h2-load
            users: [{name: alice, password: wonderland}, {name: bob, password: builder}]
            challenges: [{scheme: Basic}]
            resources: [{path: /*, body: "hello {user}\\n"}]
            http2: prior-knowledge
            """, file: "h2-load.yaml", files: .inMemory([:]))
        let connections = 8, streams = 500
        try await withServer(scenario, configuration: ServerConfiguration(port: 0, journalCapacity: connections * streams + 100)) { server in
            let group = MultiThreadedEventLoopGroup.singleton
            var answers: [EventLoopFuture<String>] = []
            var expected: [String] = []
            var channels: [any Channel] = []
            for connection in 0..<connections {
                let channel = try await ClientBootstrap(group: group).connect(host: "127.0.0.1", port: server.port).get()
                channels.append(channel)
                let multiplexer = try await channel.eventLoop.submit {
                    try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .client, connectionConfiguration: .init(), streamConfiguration: .init()
                    ) { $0.eventLoop.makeSucceededVoidFuture() }
                }.get()
                for index in 0..<streams {
                    let user = (connection + index) % 2 == 0 ? ("alice", "wonderland") : ("bob", "builder")
                    let promise = channel.eventLoop.makePromise(of: String.self)
                    let path = "/item/\(connection)/\(index)"
                    let authorization = "Basic " + Data("\(user.0):\(user.1)".utf8).base64EncodedString()
                    try await channel.eventLoop.submit {
                        multiplexer.createStreamChannel(promise: nil) { stream in
                            stream.eventLoop.makeCompletedFuture {
                                try stream.pipeline.syncOperations.addHandlers([
                                    HTTP2FramePayloadToHTTP1ClientCodec(httpProtocol: .http),
                                    StreamFetch(path: path, authorization: authorization, promise: promise),
                                ])
                            }
                        }
                    }.get()
                    answers.append(promise.futureResult)
                    expected.append("hello \(user.0)\n")
                }
            }
            let results = try await EventLoopFuture.whenAllComplete(answers, on: group.next()).get()
            let bodies = results.map { (try? $0.get()) ?? "failed: \($0)" }
            let wrong = zip(bodies, expected).filter { $0 != $1 }
            #expect(wrong.isEmpty, "\(wrong.count) of \(bodies.count) streams got no answer or another's: \(wrong.prefix(3))")
            for channel in channels { try? await channel.close() }
            let entries = server.journal.filter { $0.exchange > 0 }
            #expect(entries.count == connections * streams)
            #expect(Set(entries.map { "\($0.connection)/\($0.stream ?? -1)" }).count == connections * streams, "one entry per stream")
            #expect(Set(entries.map(\.connection)).count == connections)
            #expect(entries.allSatisfy { $0.httpProtocol == "h2" && $0.verdict == .basicOK })
            #expect(Set(entries.compactMap(\.target)).count == connections * streams)
        }
    }
}

/// One request on a stream; the promise gets the body (or fails when the stream ends without an answer).
final class StreamFetch: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private let path: String
    private let authorization: String
    private let promise: EventLoopPromise<String>
    private var body = ""

    init(path: String, authorization: String, promise: EventLoopPromise<String>) {
        self.path = path
        self.authorization = authorization
        self.promise = promise
    }

    func channelActive(context: ChannelHandlerContext) {
        let headers = HTTPHeaders([("host", "127.0.0.1"), ("authorization", authorization)])
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http2, method: .GET, uri: path, headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: break
        case .body(let buffer): body += String(buffer: buffer)
        case .end: promise.succeed(body)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }
}
