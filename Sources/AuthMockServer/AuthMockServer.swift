import AuthMockCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 server that plays one scenario: SwiftNIO around the pure ``Engine``.
///
/// The shell only moves bytes: it frames requests, asks the engine what to answer (under a lock — the
/// engine does no I/O), writes the answer, and hands journal entries to the journal file.
///
/// ```swift
/// let server = AuthMockServer(scenario: scenario, configuration: .init(port: 0))
/// try await server.start()
/// // … point a client at server.url …
/// try await server.shutdown()
/// ```
public final class AuthMockServer: Sendable {
    public let scenario: Scenario
    public let configuration: ServerConfiguration
    let logger: Logger
    let core: EngineCore
    private let group: any EventLoopGroup
    private let state = NIOLockedValueBox(RunState())
    let connections = ConnectionRegistry()

    private struct RunState {
        var channel: (any Channel)?
        var journalFile: JournalFile?
        var stopped = false
    }

    public init(
        scenario: Scenario,
        configuration: ServerConfiguration = ServerConfiguration(),
        logger: Logger = Logger(label: "authmock"),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.scenario = scenario
        self.configuration = configuration
        self.logger = logger
        self.group = eventLoopGroup
        self.core = EngineCore(scenario: scenario, configuration: configuration)
    }

    /// Binds and starts accepting connections. Returns once the server is ready.
    public func start() async throws {
        let journalFile = try configuration.journalPath.map(JournalFile.init(path:))
        core.setJournalFile(journalFile)
        let configuration = self.configuration
        let decoderLimits = {
            var limits = NIOHTTPDecoderLimitConfiguration()
            limits.maxHeaderFieldSize = configuration.maxHeaderFieldSize
            limits.maxHeaderListSize = configuration.maxHeaderListSize
            return limits
        }()
        let core = self.core
        let connections = self.connections
        let logger = self.logger
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let id = connections.register(channel)
                    // Pipelining assistance serialises pipelined requests and implements quiescing
                    // (ChannelShouldQuiesceEvent) for graceful shutdown. Error handling is ours, so that
                    // protocol errors are journaled.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: false, withOutboundHeaderValidation: true,
                        withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        ExchangeHandler(connectionID: id, core: core, maxBodySize: configuration.maxBodySize, logger: logger)
                    )
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        state.withLockedValue {
            $0.channel = channel
            $0.journalFile = journalFile
        }
        logger.info("listening", metadata: ["url": "\(url)", "scenario": "\(scenario.name)"])
    }

    /// The port actually bound (useful after binding port 0).
    public var port: Int {
        state.withLockedValue { $0.channel?.localAddress?.port } ?? configuration.port
    }

    /// The base URL clients use, e.g. `http://127.0.0.1:53124/`.
    public var url: String {
        let host: String
        switch configuration.host {
        case "0.0.0.0", "": host = "127.0.0.1"
        case "::": host = "[::1]"
        case let other where other.contains(":"): host = "[\(other)]"
        case let other: host = other
        }
        return "http://\(host):\(port)/"
    }

    /// The journal entries in memory, oldest first.
    public var journal: [JournalEntry] {
        core.withEngine { $0.state.journal.entries }
    }

    /// Clears the journal and nonce state, as `POST /_authmock/reset` does.
    public func reset() {
        core.withEngine { $0.reset() }
    }

    /// Stops accepting, lets in-flight responses finish (up to the grace period), closes every
    /// connection and flushes the journal file. Safe to call more than once.
    public func shutdown() async throws {
        let (channel, journalFile, alreadyStopped) = state.withLockedValue { state in
            defer { state.stopped = true }
            return (state.channel, state.journalFile, state.stopped)
        }
        guard !alreadyStopped else { return }
        try? await channel?.close()
        await connections.quiesce(gracePeriod: configuration.shutdownGracePeriod)
        journalFile?.close()
        logger.info("stopped", metadata: ["exchanges": "\(core.withEngine { $0.state.nextSeq - 1 })"])
    }
}

/// The engine and its random source behind one lock, plus where entries go once decided.
final class EngineCore: Sendable {
    private struct Locked {
        var engine: Engine
        var random: RandomSource
    }

    private let locked: NIOLockedValueBox<Locked>
    private let journalFile = NIOLockedValueBox<JournalFile?>(nil)
    let clock: @Sendable () -> Date

    init(scenario: Scenario, configuration: ServerConfiguration) {
        var random = configuration.seed.map(RandomSource.seeded) ?? .system
        let engine = Engine(scenario: scenario, configuration: .init(journalCapacity: configuration.journalCapacity), random: &random)
        locked = NIOLockedValueBox(Locked(engine: engine, random: random))
        clock = configuration.clock
    }

    func setJournalFile(_ file: JournalFile?) {
        journalFile.withLockedValue { $0 = file }
    }

    func withEngine<T>(_ body: (inout Engine) -> T) -> T {
        locked.withLockedValue { body(&$0.engine) }
    }

    func handle(_ request: Request) -> Exchange {
        // The journal page can be large: copy it under the lock, encode it outside.
        if let since = Engine.journalPageRequest(request) {
            let page = locked.withLockedValue { $0.engine.journalPage(since: since) }
            return Exchange(response: Engine.json(page))
        }
        let now = clock()
        let file = journalFile.withLockedValue { $0 }
        return locked.withLockedValue {
            let exchange = $0.engine.handle(request, now: now, random: &$0.random)
            // Queued while still holding the lock, so the file is in `seq` order.
            if let entry = exchange.entry { file?.append(entry) }
            return exchange
        }
    }

    func reject(partial: Request?, connection: ConnectionInfo, status: Int, verdict: Verdict, detail: String) -> Exchange {
        let now = clock()
        let file = journalFile.withLockedValue { $0 }
        return locked.withLockedValue {
            let exchange = $0.engine.reject(partial: partial, connection: connection, status: status, verdict: verdict, detail: detail, now: now)
            if let entry = exchange.entry { file?.append(entry) }
            return exchange
        }
    }
}

/// The open connections, so that shutdown can quiesce them and tests can count them.
final class ConnectionRegistry: Sendable {
    private struct State {
        var nextID: UInt64 = 1
        var open: [UInt64: any Channel] = [:]
        var closing = false
    }

    private let state = NIOLockedValueBox(State())

    /// Assigns the next connection id and forgets the channel when it closes. A connection accepted
    /// after shutdown began is closed at once, so nothing is journaled after the journal is flushed.
    func register(_ channel: any Channel) -> UInt64 {
        let (id, closing) = state.withLockedValue { state in
            defer { state.nextID += 1 }
            if !state.closing { state.open[state.nextID] = channel }
            return (state.nextID, state.closing)
        }
        if closing {
            channel.close(promise: nil)
            return id
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.open.removeValue(forKey: id) }
        }
        return id
    }

    var openCount: Int { state.withLockedValue { $0.open.count } }

    /// Asks every connection to finish its current exchange and close, then closes what is left
    /// after the grace period.
    func quiesce(gracePeriod: Duration) async {
        let channels = state.withLockedValue { state in
            state.closing = true
            return Array(state.open.values)
        }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for channel in channels { try? await channel.closeFuture.get() }
            }
            group.addTask { try? await Task.sleep(for: gracePeriod) }
            // Whichever comes first: every connection closed, or the grace period is over.
            await group.next()
            group.cancelAll()
            for channel in channels { channel.close(promise: nil) }
        }
    }
}
