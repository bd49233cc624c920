import AuthMockCertificates
import AuthMockCore
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

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
        /// The main listener (HTTPS when the scenario has TLS), then the extra plain-HTTP one, if any.
        var channels: [any Channel] = []
        var plainChannel: (any Channel)?
        var journalFile: JournalFile?
        var tls: TLSRuntime?
        var stopped = false
    }

    public init(
        scenario: Scenario,
        configuration: ServerConfiguration = ServerConfiguration(),
        // Silent unless the caller passes a logger: stdout may carry the ready line.
        logger: Logger = Logger(label: "authmock", factory: { _ in SwiftLogNoOpLogHandler() }),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) {
        self.scenario = scenario
        self.configuration = configuration
        self.logger = logger
        self.group = eventLoopGroup
        self.core = EngineCore(scenario: scenario, configuration: configuration)
    }

    /// Binds and starts accepting connections. Returns once the server is ready.
    ///
    /// With TLS, the identity is generated (or loaded) first and its files are written, so that
    /// everything a client needs exists before the first connection is accepted.
    public func start() async throws {
        let journalFile = try configuration.journalPath.map(JournalFile.init(path:))
        core.setJournalFile(journalFile)
        let tls = try makeTLSRuntime()
        if let tls { core.setTLSInfo(tls.info) }
        state.withLockedValue {
            $0.journalFile = journalFile
            $0.tls = tls
        }
        do {
            let main = try await bind(host: configuration.host, port: configuration.port, tls: tls)
            state.withLockedValue { $0.channels.append(main) }
            if tls != nil, scenario.tls?.plainHTTP == true {
                let plain = try await bind(host: configuration.host, port: configuration.plainHTTPPort, tls: nil)
                state.withLockedValue {
                    $0.channels.append(plain)
                    $0.plainChannel = plain
                }
            }
        } catch {
            try? await shutdown()
            throw error
        }
        logger.info("listening", metadata: ["url": "\(url)", "scenario": "\(scenario.name)"])
    }

    private func makeTLSRuntime() throws -> TLSRuntime? {
        let settings = scenario.tls
        var identity = configuration.tlsIdentity
        if identity == nil, let settings {
            let request = IdentityRequest(
                kind: settings.identity, keyType: settings.keyType, hosts: settings.hosts, intermediate: settings.intermediate,
                clientUsers: settings.clientCertificate == .none ? [] : scenario.users.map(\.name)
            )
            identity = try TLSIdentity.generate(request, now: configuration.clock())
        }
        guard let identity else { return nil }
        return try TLSRuntime(
            identity: identity, clientCertificate: settings?.clientCertificate ?? .none,
            directory: configuration.certificatesDirectory.map { URL(fileURLWithPath: $0) }
        )
    }

    private func bind(host: String, port: Int, tls: TLSRuntime?) async throws -> any Channel {
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
        let perform: @Sendable ([ServerAction], any EventLoop) -> EventLoopFuture<Void> = { [weak self] actions, eventLoop in
            guard let self else { return eventLoop.makeSucceededVoidFuture() }
            return self.perform(actions, on: eventLoop)
        }
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let id = connections.register(channel)
                    // TLS first: everything after it sees plain HTTP. The context is read per connection,
                    // so a rotation applies to the next connection.
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.context))
                    }
                    // Pipelining assistance serialises pipelined requests and implements quiescing
                    // (ChannelShouldQuiesceEvent) for graceful shutdown. Error handling is ours, so that
                    // protocol errors are journaled.
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(
                        withPipeliningAssistance: true, withErrorHandling: false, withOutboundHeaderValidation: true,
                        withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits
                    )
                    try channel.pipeline.syncOperations.addHandler(
                        ExchangeHandler(
                            connectionID: id, core: core, maxBodySize: configuration.maxBodySize, tls: tls != nil, perform: perform,
                            logger: logger
                        )
                    )
                }
            }
            .bind(host: host, port: port)
            .get()
    }

    /// Carries out what the engine asked for; the future completes when it is done, so that a response
    /// announcing a rotation is only sent once new connections get the new certificate.
    private func perform(_ actions: [ServerAction], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let tls = state.withLockedValue({ $0.tls }) else { return eventLoop.makeSucceededVoidFuture() }
        let promise = eventLoop.makePromise(of: Void.self)
        let core = self.core
        let logger = self.logger
        DispatchQueue.global().async {
            for case .rotateCertificate(let keepKey) in actions {
                do {
                    try tls.rotate(keepKey: keepKey)
                    core.setTLSInfo(tls.info)
                    logger.info("rotated the certificate", metadata: ["keep-key": "\(keepKey)", "pin": "\(tls.info.pinSHA256)"])
                } catch {
                    logger.error("certificate rotation failed: \(error)")
                }
            }
            promise.succeed()
        }
        return promise.futureResult
    }

    /// The port actually bound by the main listener (useful after binding port 0).
    public var port: Int {
        state.withLockedValue { $0.channels.first?.localAddress?.port } ?? configuration.port
    }

    /// The base URL clients use: `http://127.0.0.1:53124/`, or with TLS `https://localhost:53124/`
    /// (the generated certificate names localhost).
    public var url: String {
        let isTLS = state.withLockedValue { $0.tls != nil }
        return Self.url(host: configuration.host, port: port, tls: isTLS)
    }

    /// The plain-HTTP URL when a TLS scenario also listens on plain HTTP (`plain-http: true`).
    public var httpURL: String? {
        state.withLockedValue { $0.plainChannel?.localAddress?.port }.map { Self.url(host: configuration.host, port: $0, tls: false) }
    }

    /// What clients need for TLS (files and pins), current after any rotation; nil without TLS.
    public var tls: TLSInfo? {
        state.withLockedValue { $0.tls }?.info
    }

    static func url(host configured: String, port: Int, tls: Bool) -> String {
        let host: String
        switch configured {
        case "0.0.0.0", "", "127.0.0.1": host = tls ? "localhost" : "127.0.0.1"
        case "::": host = "[::1]"
        case let other where other.contains(":"): host = "[\(other)]"
        case let other: host = other
        }
        return "\(tls ? "https" : "http")://\(host):\(port)/"
    }

    /// The journal entries in memory, oldest first.
    public var journal: [JournalEntry] {
        core.withEngine { $0.state.journal.entries }
    }

    /// Waits until every client connection has closed (and so has been journaled), up to `timeout`.
    /// Returns whether that happened. Use it after a client exits, before reading its TLS entries.
    @discardableResult
    public func waitForConnectionsToClose(timeout: Duration = .seconds(5)) async -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while connections.openCount > 0 {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(2))
        }
        return true
    }

    /// The number of client connections open right now.
    public var openConnections: Int { connections.openCount }

    /// Clears the journal and nonce state, as `POST /_authmock/reset` does.
    public func reset() {
        core.withEngine { $0.reset() }
    }

    /// Replaces the TLS leaf for new connections, as `POST /_authmock/tls/rotate` does.
    public func rotateCertificate(keepKey: Bool) async throws {
        guard let tls = state.withLockedValue({ $0.tls }) else { return }
        try tls.rotate(keepKey: keepKey)
        core.setTLSInfo(tls.info)
    }

    /// Stops accepting, lets in-flight responses finish (up to the grace period), closes every
    /// connection, flushes the journal file and removes temporary certificate files. Safe to call
    /// more than once.
    public func shutdown() async throws {
        let (channels, journalFile, tls, alreadyStopped) = state.withLockedValue { state in
            defer { state.stopped = true }
            return (state.channels, state.journalFile, state.tls, state.stopped)
        }
        guard !alreadyStopped else { return }
        for channel in channels { try? await channel.close() }
        await connections.quiesce(gracePeriod: configuration.shutdownGracePeriod)
        journalFile?.close()
        tls?.close()
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
            for entry in exchange.journalEntries { file?.append(entry) }
            return exchange
        }
    }

    func setTLSInfo(_ info: TLSInfo) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let json = (try? encoder.encode(info)).map { Array($0) + [UInt8(ascii: "\n")] }
        locked.withLockedValue { $0.engine.setTLSDescription(json) }
    }

    func connectionClosed(_ id: UInt64) {
        locked.withLockedValue { $0.engine.connectionClosed(id) }
    }

    /// Records a TLS connection's handshake and request count when it closes.
    func recordTLSConnection(_ connection: ConnectionInfo, failure: String?, requests: Int) {
        let now = clock()
        let file = journalFile.withLockedValue { $0 }
        locked.withLockedValue {
            let entry = $0.engine.recordTLSConnection(connection, failure: failure, requests: requests, now: now)
            file?.append(entry)
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
