import AuthMockCore
import AuthMockServer
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import Testing

/// Many clients at once over loopback, bounded in count and time: every request answered, every
/// exchange journaled, no state mixed up between connections or left behind.
///
/// They saturate both cores for seconds, which would starve the timing of other suites running beside
/// them: `ci/test` runs them in a process of their own (`AUTHMOCK_LOAD_TESTS=1 swift test --filter LoadTests`).
@Suite(
    .serialized, .timeLimit(.minutes(2)),
    .enabled(if: ProcessInfo.processInfo.environment["AUTHMOCK_LOAD_TESTS"] == "1", "run by ci/test on their own (AUTHMOCK_LOAD_TESTS=1)")
)
struct LoadTests {
    static let scenario = Scenario(
        name: "load", users: [User(name: "alice", password: "wonderland")],
        challenges: [.digest(DigestChallenge(algorithm: .sha256, qop: [.auth]))]
    )

    /// Raises this process's descriptor limit towards `wanted` (the hard limit too, where the process may:
    /// as root); returns the soft limit it got.
    static func raiseDescriptorLimit(to wanted: Int) -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if Int(limit.rlim_max) < wanted {
            var raised = limit
            raised.rlim_max = rlim_t(wanted)
            raised.rlim_cur = rlim_t(wanted)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { return wanted }
        }
        limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(limit.rlim_cur)
    }

    /// 10,000 keep-alive connections open at the same time, each doing its own Digest handshake: a
    /// challenge, then two authenticated requests on its nonce (nc 1 and 2). Client and server share this
    /// process, so it needs two descriptors a connection: the test raises its limit, and where the system
    /// forbids that (not root, a low hard limit) it holds as many as fit and says so.
    @Test func thousandsOfConcurrentDigestConnections() async throws {
        let wanted = 10_000
        let limit = Self.raiseDescriptorLimit(to: 2 * wanted + 1_000)
        let count = min(wanted, (limit - 1_000) / 2)
        if count < wanted { print("LoadTests: the descriptor limit (\(limit)) holds \(count) connections, not \(wanted)") }
        let configuration = ServerConfiguration(port: 0, journalCapacity: 3 * count + 10, maxConnections: count + 10)
        try await withServer(Self.scenario, configuration: configuration) { server in
            let group = MultiThreadedEventLoopGroup.singleton
            var conversations: [EventLoopFuture<DigestConversation.Result>] = []
            var channels: [any Channel] = []
            // Connect in batches, so the accept queue never overflows; every conversation runs as soon
            // as its connection is up, and all connections stay open until the end.
            for batch in stride(from: 0, to: count, by: 250) {
                var connecting: [EventLoopFuture<any Channel>] = []
                for _ in batch..<min(batch + 250, count) {
                    let conversation = group.next().makePromise(of: DigestConversation.Result.self)
                    conversations.append(conversation.futureResult)
                    // A minute to connect, not NIO's 10 s: with CI's other jobs on the two cores, a SYN the
                    // full accept queue dropped is retried after 1, 3 and 7 s.
                    let bootstrap = ClientBootstrap(group: group).connectTimeout(.seconds(60)).channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture {
                            try channel.pipeline.syncOperations.addHTTPClientHandlers()
                            try channel.pipeline.syncOperations.addHandler(DigestConversation(done: conversation))
                        }
                    }
                    connecting.append(bootstrap.connect(host: "127.0.0.1", port: server.port))
                }
                for future in connecting { channels.append(try await future.get()) }
            }
            var results: [DigestConversation.Result] = []
            for future in conversations { results.append(try await future.get()) }

            #expect(server.stateSizes.openConnections == count, "all connections were open at once")
            #expect(results.allSatisfy { $0.statuses == [401, 200, 200] }, "\(results.filter { $0.statuses != [401, 200, 200] }.prefix(3))")
            #expect(Set(results.map(\.nonce)).count == count, "each connection got its own nonce")

            // The journal is complete, and on every connection the nonce used is the one issued there.
            let journal = server.journal
            #expect(journal.count == 3 * count)
            let byRemote = Dictionary(grouping: journal, by: { $0.remote ?? "" })
            var mixedUp = 0
            for result in results {
                let entries = byRemote["127.0.0.1:\(result.localPort)"] ?? []
                let issued = entries.first?.challenges?.first.flatMap { try? AuthHeader.parseChallenges($0).first?[parameter: "nonce"] }
                let used = entries.dropFirst().map { $0.credentials?.params?["nonce"] }
                if entries.count != 3 || issued != result.nonce || used != [result.nonce, result.nonce] { mixedUp += 1 }
            }
            #expect(mixedUp == 0)

            for channel in channels { try? await channel.close() }
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            while server.stateSizes.openConnections > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
            #expect(server.stateSizes.openConnections == 0)
        }
    }

    /// 1,000 slowloris connections trickle a request head, a header line every 200 ms, never ending it.
    /// A well-behaved client's Digest exchange beside them is answered at once (well before the header
    /// timeout, 3 s here, would free anything), and the slow ones each get their 408 once that timeout
    /// passes, however often they send. Connection limit: 1,100; timeouts: header 3 s, idle 30 s.
    @Test func slowlorisDoesNotHoldUpAWellBehavedClient() async throws {
        let slow = 1_000
        let configuration = ServerConfiguration(
            port: 0, journalCapacity: slow + 100, headerTimeout: .seconds(3), idleTimeout: .seconds(30), maxConnections: slow + 100
        )
        try await withServer(Self.scenario, configuration: configuration) { server in
            let group = MultiThreadedEventLoopGroup.singleton
            func converse() async throws -> (DigestConversation.Result, Duration) {
                let done = group.next().makePromise(of: DigestConversation.Result.self)
                let start = ContinuousClock.now
                let channel = try await ClientBootstrap(group: group).channelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        try channel.pipeline.syncOperations.addHandler(DigestConversation(done: done))
                    }
                }.connect(host: "127.0.0.1", port: server.port).get()
                let result = try await done.futureResult.get()
                let took = ContinuousClock.now - start
                try? await channel.close()
                return (result, took)
            }
            let (alone, aloneTook) = try await converse()
            #expect(alone.statuses == [401, 200, 200])

            var trickling: [any Channel] = []
            for batch in stride(from: 0, to: slow, by: 250) {
                var connecting: [EventLoopFuture<any Channel>] = []
                for _ in batch..<min(batch + 250, slow) {
                    connecting.append(ClientBootstrap(group: group).channelInitializer { channel in
                        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(Trickle()) }
                    }.connect(host: "127.0.0.1", port: server.port))
                }
                for future in connecting { trickling.append(try await future.get()) }
            }
            try await Task.sleep(for: .milliseconds(500))
            #expect(server.stateSizes.openConnections == slow, "every slow connection is held open, trickling")

            let (beside, besideTook) = try await converse()
            print("LoadTests: a Digest exchange took \(aloneTook) alone and \(besideTook) beside \(slow) slowloris connections")
            #expect(beside.statuses == [401, 200, 200])
            #expect(besideTook < .seconds(2), "answered while the slow heads were still trickling: \(besideTook)")

            // The header timeout ends every slow head, trickling or not: a 408 each, journaled.
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            while server.stateSizes.openConnections > 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
            #expect(server.stateSizes.openConnections == 0)
            #expect(server.journal.filter { $0.verdict == .headerTimeout }.count == slow)
            for channel in trickling { try? await channel.close() }
        }
    }

    /// Shutdown while 64 keep-alive clients send as fast as they can: no client sees a response cut off,
    /// every response a client received is in the journal file, and the file holds every entry.
    @Test func shutdownUnderLoadFinishesResponsesAndFlushesTheJournal() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-load-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let journalPath = directory.appendingPathComponent("journal.jsonl").path
        let scenario = Scenario(name: "load-basic", users: [User(name: "alice", password: "wonderland")], challenges: [.basic(BasicChallenge())])
        let server = AuthMockServer(scenario: scenario, configuration: ServerConfiguration(port: 0, journalCapacity: 1_000_000, journalPath: journalPath))
        try await server.start()

        let group = MultiThreadedEventLoopGroup.singleton
        let tally = KeepAliveLoop.Counter()
        let clients = 64
        var closed: [EventLoopFuture<Void>] = []
        for _ in 0..<clients {
            let channel = try await ClientBootstrap(group: group).channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(KeepAliveLoop(tally: tally))
                }
            }.connect(host: "127.0.0.1", port: server.port).get()
            closed.append(channel.closeFuture)
        }
        // Let the load build up, then stop in the middle of it.
        let warm = ContinuousClock.now.advanced(by: .seconds(5))
        while tally.value.withLock({ $0.complete }) < 2000, ContinuousClock.now < warm { try await Task.sleep(for: .milliseconds(10)) }
        let start = ContinuousClock.now
        try await server.shutdown()
        let shutdownTook = ContinuousClock.now - start
        for future in closed { try? await future.get() }

        let final = tally.value.withLock { $0 }
        #expect(final.complete >= 2000)
        #expect(final.cutOff == 0, "no response was cut off by the shutdown")
        #expect(shutdownTook < .seconds(5))
        let lines = try String(contentsOfFile: journalPath, encoding: .utf8).split(separator: "\n")
        let answered = lines.filter { $0.contains("\"status\":200") }.count
        #expect(answered == final.complete, "every response received is journaled, and only those")
        #expect(lines.count == server.journal.count, "the file holds every entry the server made")
    }
}

/// One connection's Digest conversation: GET → 401, then two GETs answering its nonce (nc 1 and 2).
final class DigestConversation: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    struct Result: Sendable, CustomStringConvertible {
        var statuses: [Int] = []
        var nonce = ""
        var localPort = 0
        var description: String { "\(statuses) on :\(localPort)" }
    }

    private let done: EventLoopPromise<Result>
    private var result = Result()
    private var challenge: AuthHeaderValue?
    private var finished = false

    init(done: EventLoopPromise<Result>) {
        self.done = done
    }

    func channelActive(context: ChannelHandlerContext) {
        result.localPort = context.channel.localAddress?.port ?? 0
        send(context: context, authorization: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            result.statuses.append(Int(head.status.code))
            if let value = head.headers["WWW-Authenticate"].first {
                challenge = try? AuthHeader.parseChallenges(value).first
                result.nonce = challenge?[parameter: "nonce"] ?? ""
            }
        case .body:
            break
        case .end:
            guard result.statuses.count < 3, let challenge else { return finish(context: context) }
            send(context: context, authorization: Self.authorization(challenge, nc: result.statuses.count))
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(context: context)
        context.fireChannelInactive()
    }

    /// A connection that never became active (its connect failed) is never inactive either: the promise is
    /// completed here, so the test reports what was missing instead of NIO trapping on a leaked promise.
    func handlerRemoved(context: ChannelHandlerContext) {
        finish(context: context)
    }

    private func finish(context: ChannelHandlerContext) {
        guard !finished else { return }
        finished = true
        done.succeed(result)
    }

    private func send(context: ChannelHandlerContext, authorization: String?) {
        var headers = HTTPHeaders([("Host", "127.0.0.1")])
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    static func authorization(_ challenge: AuthHeaderValue, nc: Int) -> String {
        let realm = challenge[parameter: "realm"] ?? ""
        let nonce = challenge[parameter: "nonce"] ?? ""
        let ncText = String(format: "%08x", nc)
        let inputs = DigestInputs(
            algorithm: .sha256, username: "alice", realm: realm, password: "wonderland", method: "GET", uri: "/", nonce: nonce,
            qop: .auth, nc: ncText, cnonce: "c0ffee"
        )
        return "Digest username=\"alice\", realm=\"\(realm)\", uri=\"/\", algorithm=SHA-256, nonce=\"\(nonce)\", nc=\(ncText), cnonce=\"c0ffee\", qop=auth, response=\"\(inputs.response)\""
    }
}

/// Sends Basic-authenticated GETs back to back on one keep-alive connection until the server closes it,
/// counting complete responses and responses cut off by the close.
final class KeepAliveLoop: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    struct Tally: Sendable {
        var complete = 0
        var cutOff = 0
    }

    /// Shared by every connection's loop.
    final class Counter: Sendable {
        let value = Mutex(Tally())
    }

    private let tally: Counter
    private var inResponse = false
    static let headers = HTTPHeaders([("Host", "127.0.0.1"), ("Authorization", "Basic " + Data("alice:wonderland".utf8).base64EncodedString())])

    init(tally: Counter) {
        self.tally = tally
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            inResponse = true
        case .body:
            break
        case .end:
            inResponse = false
            tally.value.withLock { $0.complete += 1 }
            send(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if inResponse { tally.value.withLock { $0.cutOff += 1 } }
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if inResponse { tally.value.withLock { $0.cutOff += 1 } }
        inResponse = false
        context.close(promise: nil)
    }

    private func send(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: Self.headers))), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

/// A slowloris client: a request line, then a header line every 200 ms, never the blank line that ends
/// the head.
final class Trickle: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var task: RepeatedTask?
    private var line = 0

    func channelActive(context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")), promise: nil)
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        task = context.eventLoop.scheduleRepeatedTask(initialDelay: .milliseconds(200), delay: .milliseconds(200)) { [self] _ in
            let context = loopBound.value
            line += 1
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "X-Trickle-\(line): still here\r\n")), promise: nil)
        }
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelInactive(context: ChannelHandlerContext) {
        task?.cancel()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

