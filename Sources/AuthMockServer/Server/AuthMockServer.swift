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
        /// `second-port: true`: the same origin on another port.
        var secondChannel: (any Channel)?
        var proxyChannel: (any Channel)?
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
            if scenario.secondPort {
                let second = try await bind(host: configuration.host, port: 0, tls: tls)
                state.withLockedValue {
                    $0.channels.append(second)
                    $0.secondChannel = second
                }
            }
            if scenario.proxy != nil {
                let proxy = try await bindProxy(host: configuration.host, port: configuration.proxyPort)
                state.withLockedValue {
                    $0.channels.append(proxy)
                    $0.proxyChannel = proxy
                }
            }
        } catch {
            try? await shutdown()
            throw error
        }
        core.setLinks(links)
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

    private var decoderLimits: NIOHTTPDecoderLimitConfiguration {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = configuration.maxHeaderFieldSize
        limits.maxHeaderListSize = configuration.maxHeaderListSize
        return limits
    }

    private var performActions: @Sendable ([ServerAction], any EventLoop) -> EventLoopFuture<Void> {
        { [weak self] actions, eventLoop in
            guard let self else { return eventLoop.makeSucceededVoidFuture() }
            return self.perform(actions, on: eventLoop)
        }
    }

    /// A listener with the socket options every authmock listener uses.
    private func listen(
        host: String, port: Int, _ initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            // Load generators (wrk -c1000, the load tests) open many connections at once; a short accept queue
            // turns that into SYN retries of a second or more.
            .serverChannelOption(.backlog, value: 1024)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer(initializer)
            .bind(host: host, port: port)
            .get()
    }

    private func bind(host: String, port: Int, tls: TLSRuntime?) async throws -> any Channel {
        return try await listen(host: host, port: port) { [self] channel in
            channel.eventLoop.makeCompletedFuture {
                guard let id = admit(channel) else { return }
                try self.configureOrigin(channel, id: id, tls: tls)
            }
        }
    }

    /// Registers a new connection, or closes it (and journals why) when the server already holds
    /// `maxConnections`.
    private func admit(_ channel: any Channel) -> UInt64? {
        switch connections.register(channel, limit: configuration.maxConnections) {
        case .admitted(let id):
            return id
        case .refused(let id):
            let remote = channel.remoteAddress.map(ExchangeHandler.describe)
            core.recordRefusedConnection(ConnectionInfo(id: id, exchange: 0, remote: remote), limit: configuration.maxConnections)
            return nil
        case .closing:
            return nil
        }
    }

    private var timeouts: ConnectionGuard.Timeouts {
        ConnectionGuard.Timeouts(header: TimeAmount(configuration.headerTimeout), idle: TimeAmount(configuration.idleTimeout))
    }

    /// Plays the origin on a channel: a new connection, or a CONNECT tunnel through the proxy.
    func configureOrigin(_ channel: any Channel, id: UInt64, tls: TLSRuntime?) throws {
        let sync = channel.pipeline.syncOperations
        // TLS first: everything after it sees plain HTTP. The context is read per connection, so a
        // rotation applies to the next connection.
        if let tls {
            try sync.addHandler(NIOSSLServerHandler(context: tls.context))
        }
        // Pipelining assistance serialises pipelined requests and implements quiescing
        // (ChannelShouldQuiesceEvent) for graceful shutdown. Error handling is ours, so that protocol
        // errors are journaled.
        // Below the HTTP codec, above TLS: it sees every byte of a request as it arrives.
        let connectionGuard = ConnectionGuard(timeouts: timeouts)
        try sync.addHandler(connectionGuard)
        try sync.configureHTTPServerPipeline(
            withPipeliningAssistance: true, withErrorHandling: false, withOutboundHeaderValidation: true,
            withEncoderConfiguration: .init(), withDecoderLimitConfiguration: decoderLimits
        )
        try sync.addHandler(
            ExchangeHandler(
                connectionID: id, core: core, maxBodySize: configuration.maxBodySize, tls: tls != nil, perform: performActions,
                logger: logger, connectionGuard: connectionGuard, registry: connections
            )
        )
    }

    /// The forward proxy's listener. Its HTTP handlers are added one by one, so that a granted CONNECT
    /// can take them away and play the origin on the same channel.
    private func bindProxy(host: String, port: Int) async throws -> any Channel {
        return try await listen(host: host, port: port) { [self] channel in
            channel.eventLoop.makeCompletedFuture {
                guard let id = admit(channel) else { return }
                let limits = decoderLimits
                // Bytes after a CONNECT belong to the tunnel (or to the next request after a 407):
                // the decoder forwards them when it is removed, never drops them.
                let makeDecoder = {
                    ByteToMessageHandler(
                        HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes, informationalResponseStrategy: .drop, limitConfiguration: limits)
                    )
                }
                let encoder = HTTPResponseEncoder()
                let decoder = makeDecoder()
                let pipelining = HTTPServerPipelineHandler()
                let route = ProxyRoute(
                    origin: { [weak self] port in self?.origin(at: port) },
                    tunnel: { [weak self] channel, origin in
                        guard let self else { return }
                        try self.configureOrigin(channel, id: self.connections.allocateID(), tls: origin.tls)
                    },
                    encoder: encoder, decoder: decoder, pipelining: pipelining, makeDecoder: makeDecoder
                )
                let connectionGuard = ConnectionGuard(timeouts: timeouts)
                try channel.pipeline.syncOperations.addHandlers([connectionGuard, encoder, decoder, pipelining])
                try channel.pipeline.syncOperations.addHandler(
                    ExchangeHandler(
                        connectionID: id, core: core, maxBodySize: configuration.maxBodySize, tls: false, perform: performActions,
                        logger: logger, connectionGuard: connectionGuard, registry: connections, proxy: route
                    )
                )
            }
        }
    }

    /// The origin listener at a port, if it is one of this server's (the proxy's only targets).
    func origin(at port: Int) -> OriginListener? {
        state.withLockedValue { state -> OriginListener? in
            if let main = state.channels.first, main.localAddress?.port == port { return OriginListener(port: port, tls: state.tls) }
            if let plain = state.plainChannel, plain.localAddress?.port == port { return OriginListener(port: port, tls: nil) }
            if let second = state.secondChannel, second.localAddress?.port == port { return OriginListener(port: port, tls: state.tls) }
            return nil
        }
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
                    core.setTLSInfo(try tls.rotate(keepKey: keepKey))
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

    /// The second port's URL when the scenario asks for `second-port: true`.
    public var secondURL: String? {
        let (port, isTLS) = state.withLockedValue { ($0.secondChannel?.localAddress?.port, $0.tls != nil) }
        return port.map { Self.url(host: configuration.host, port: $0, tls: isTLS) }
    }

    /// The main URL with the other loopback name (`localhost` ↔ `127.0.0.1`): another host, same port.
    public var otherHostURL: String {
        let main = url
        if main.contains("//localhost:") { return main.replacingOccurrences(of: "//localhost:", with: "//127.0.0.1:") }
        if main.contains("//127.0.0.1:") { return main.replacingOccurrences(of: "//127.0.0.1:", with: "//localhost:") }
        return main
    }

    /// What `{url}`, `{other_host_url}`, `{http_url}` and `{second_url}` stand for in resource headers.
    var links: [String: String] {
        var links = ["url": url, "other_host_url": otherHostURL]
        links["http_url"] = httpURL
        links["second_url"] = secondURL
        return links
    }

    /// The forward proxy's URL (`http://127.0.0.1:PORT`) when the scenario has a `proxy:` section.
    public var proxyURL: String? {
        state.withLockedValue { $0.proxyChannel?.localAddress?.port }.map { Self.url(host: configuration.host, port: $0, tls: false) }.map { String($0.dropLast()) }
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

    /// How many journal entries fell out of memory (beyond `journalCapacity`); the journal file has them.
    public var journalEvicted: Int {
        core.withEngine { $0.state.journal.evicted }
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

    /// The sizes of the state the server keeps, for checking that nothing outlives its connection.
    public struct StateSizes: Sendable, Equatable, CustomStringConvertible {
        /// Client connections open now.
        public var openConnections: Int
        /// Connections refused since start because `maxConnections` were open.
        public var refusedConnections: Int
        /// Connections holding a stalled answer (a scenario's `stall` fault).
        public var stalledConnections: Int
        /// Connections with NTLM state (a handshake in progress, or an authenticated connection), both hops.
        public var ntlmConnections: Int
        /// Digest nonces remembered (bounded by `nonce.remember`), both hops.
        public var rememberedNonces: Int
        /// Journal entries in memory (bounded by `journalCapacity`).
        public var journalEntries: Int

        public var description: String {
            "open \(openConnections), refused \(refusedConnections), stalled \(stalledConnections), ntlm \(ntlmConnections), nonces \(rememberedNonces), journal \(journalEntries)"
        }
    }

    public var stateSizes: StateSizes {
        let (ntlm, nonces, journal) = core.withEngines { origin, proxy in
            (
                origin.state.ntlmConnections + (proxy?.state.ntlmConnections ?? 0),
                origin.state.rememberedNonces + (proxy?.state.rememberedNonces ?? 0),
                origin.state.journal.count
            )
        }
        return StateSizes(
            openConnections: connections.openCount, refusedConnections: connections.refusedCount,
            stalledConnections: connections.stalledCount, ntlmConnections: ntlm, rememberedNonces: nonces, journalEntries: journal
        )
    }

    /// Clears the journal and nonce state and restores the scenario's users, as `POST /_authmock/reset` does.
    public func reset() {
        core.reset()
    }

    /// The origin's users as they are now: passwords changed by the timeline or the control endpoint
    /// show their new value; removed users are left out.
    public var users: [User] {
        core.withEngine { $0.currentUsers }
    }

    /// Changes a user of the origin's scenario (new password, lock, unlock, remove) and journals it,
    /// as `POST /_authmock/users/{name}` does. Returns false when there is no such user.
    @discardableResult
    public func changeUser(_ name: String, _ action: TimelineStep.Action, reason: String = "changed by the host") -> Bool {
        core.changeUser(name, action, reason: reason)
    }

    /// Calls `observer` with every journal entry once it is decided, in `seq` order, while the engine's
    /// lock is held: keep it short (append to a queue, resume a continuation) and never call back into
    /// the server from it.
    public func setJournalObserver(_ observer: (@Sendable (JournalEntry) -> Void)?) {
        core.setObserver(observer)
    }

    /// Replaces the TLS leaf for new connections, as `POST /_authmock/tls/rotate` does.
    public func rotateCertificate(keepKey: Bool) async throws {
        guard let tls = state.withLockedValue({ $0.tls }) else { return }
        core.setTLSInfo(try tls.rotate(keepKey: keepKey))
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
        /// The forward proxy's engine; its entries join the origin engine's journal.
        var proxy: Engine?
        var random: RandomSource
    }

    private let locked: NIOLockedValueBox<Locked>
    /// Where decided entries go besides memory: the journal file and an observer (the fixture library's
    /// `takeRequest`). Both are fed while the engine lock is held, so they see entries in `seq` order.
    private let sinks = NIOLockedValueBox(Sinks())

    private struct Sinks {
        var file: JournalFile?
        var observer: (@Sendable (JournalEntry) -> Void)?

        func deliver(_ entry: JournalEntry) {
            file?.append(entry)
            observer?(entry)
        }
    }
    let clock: @Sendable () -> Date

    init(scenario: Scenario, configuration: ServerConfiguration) {
        var random = configuration.seed.map(RandomSource.seeded) ?? .system
        var engine = Engine(scenario: scenario, configuration: .init(journalCapacity: configuration.journalCapacity), random: &random)
        // `after:` timeline steps count from here.
        engine.start(at: configuration.clock())
        let proxy = scenario.proxyScenario.map {
            Engine(scenario: $0, configuration: .init(journalCapacity: 1, role: .proxy), random: &random)
        }
        locked = NIOLockedValueBox(Locked(engine: engine, proxy: proxy, random: random))
        clock = configuration.clock
    }

    func setJournalFile(_ file: JournalFile?) {
        sinks.withLockedValue { $0.file = file }
    }

    func setObserver(_ observer: (@Sendable (JournalEntry) -> Void)?) {
        sinks.withLockedValue { $0.observer = observer }
    }

    /// Changes a user of the origin's scenario, as `POST /_authmock/users/{name}` does.
    func changeUser(_ name: String, _ action: TimelineStep.Action, reason: String) -> Bool {
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        return locked.withLockedValue {
            guard let entry = $0.engine.changeUser(name, action, reason: reason, now: now) else { return false }
            sinks.deliver(entry)
            return true
        }
    }

    /// As `POST /_authmock/reset`: `after:` timeline steps count from now again.
    func reset() {
        let now = clock()
        locked.withLockedValue {
            $0.engine.reset(at: now)
            $0.proxy?.reset(at: now)
        }
    }

    func withEngine<T>(_ body: (inout Engine) -> T) -> T {
        locked.withLockedValue { body(&$0.engine) }
    }

    func withEngines<T>(_ body: (Engine, Engine?) -> T) -> T {
        locked.withLockedValue { body($0.engine, $0.proxy) }
    }

    /// What must run off the event loop before `handle` (a slow password hash), if anything.
    func slowPasswordCheck(_ request: Request) -> (@Sendable () -> Void)? {
        locked.withLockedValue { $0.engine.slowPasswordCheck(request) }
    }

    func challengesBeforeBody(_ request: Request) -> Bool {
        locked.withLockedValue { $0.engine.challengesBeforeBody(request) }
    }

    func handle(_ request: Request) -> Exchange {
        // The proxy's users are changed at /_authmock/proxy/users…, by the proxy's engine.
        if request.path.hasPrefix(Engine.controlPrefix + "proxy/users") {
            var forwarded = request
            forwarded.target = Engine.controlPrefix + String(request.target.dropFirst((Engine.controlPrefix + "proxy/").count))
            return handleProxy(forwarded)
        }
        // The journal page can be large: copy it under the lock, encode it outside.
        if let since = Engine.journalPageRequest(request) {
            let page = locked.withLockedValue { $0.engine.journalPage(since: since) }
            return Exchange(response: Engine.json(page))
        }
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        return locked.withLockedValue {
            let exchange = $0.engine.handle(request, now: now, random: &$0.random)
            // Queued while still holding the lock, so the file is in `seq` order.
            for entry in exchange.journalEntries { sinks.deliver(entry) }
            if request.method == "POST", request.path == Engine.controlPrefix + "reset" { $0.proxy?.reset() }
            return exchange
        }
    }

    /// Asks the proxy's engine about a request to the proxy; its entries go into the one journal.
    func handleProxy(_ request: Request) -> Exchange {
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        return locked.withLockedValue { box in
            // Mutated in place: a copy of the engine would copy its nonce store on every request.
            guard box.proxy != nil else { return Exchange(response: Response(status: 404)) }
            box.proxy!.continueSequence(at: box.engine.state.nextSeq)
            let exchange = box.proxy!.handle(request, now: now, random: &box.random)
            box.engine.adopt(exchange.journalEntries)
            for entry in exchange.journalEntries { sinks.deliver(entry) }
            return exchange
        }
    }

    /// Refuses a proxy request (bad or forbidden target) and journals it as the proxy's.
    func rejectProxy(_ request: Request, status: Int, verdict: Verdict, detail: String, close: Bool = false) -> Exchange {
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        return locked.withLockedValue { box in
            guard box.proxy != nil else { return Exchange(response: Response(status: 404)) }
            box.proxy!.continueSequence(at: box.engine.state.nextSeq)
            var exchange = box.proxy!.reject(partial: request, connection: request.connection, status: status, verdict: verdict, detail: detail, now: now)
            exchange.response.closeConnection = close
            if var entry = exchange.entry {
                entry.hop = "proxy"
                exchange.entry = entry
            }
            box.engine.adopt(exchange.journalEntries)
            for entry in exchange.journalEntries { sinks.deliver(entry) }
            return exchange
        }
    }

    func setLinks(_ links: [String: String]) {
        locked.withLockedValue { $0.engine.setLinks(links) }
    }

    func setTLSInfo(_ info: TLSInfo) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let json = (try? encoder.encode(info)).map { Array($0) + [UInt8(ascii: "\n")] }
        locked.withLockedValue { $0.engine.setTLSDescription(json) }
    }

    func connectionClosed(_ id: UInt64) {
        locked.withLockedValue {
            $0.engine.connectionClosed(id)
            $0.proxy?.connectionClosed(id)
        }
    }

    func recordRefusedConnection(_ connection: ConnectionInfo, limit: Int) {
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        locked.withLockedValue {
            let entry = $0.engine.recordRefusedConnection(connection, limit: limit, now: now)
            sinks.deliver(entry)
        }
    }

    /// Records a TLS connection's handshake and request count when it closes.
    func recordTLSConnection(_ connection: ConnectionInfo, failure: String?, requests: Int) {
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        locked.withLockedValue {
            let entry = $0.engine.recordTLSConnection(connection, failure: failure, requests: requests, now: now)
            sinks.deliver(entry)
        }
    }

    func reject(partial: Request?, connection: ConnectionInfo, status: Int, verdict: Verdict, detail: String) -> Exchange {
        let now = clock()
        let sinks = sinks.withLockedValue { $0 }
        return locked.withLockedValue {
            let exchange = $0.engine.reject(partial: partial, connection: connection, status: status, verdict: verdict, detail: detail, now: now)
            if let entry = exchange.entry { sinks.deliver(entry) }
            return exchange
        }
    }
}

/// The open connections, so that shutdown can quiesce them and tests can count them.
final class ConnectionRegistry: Sendable {
    private struct State {
        var nextID: UInt64 = 1
        var open: [UInt64: any Channel] = [:]
        /// Connections holding an answer back (a scenario's `stall`): shutdown closes them at once.
        var stalled: [ObjectIdentifier: any Channel] = [:]
        var closing = false
        var refused = 0
    }

    private let state = NIOLockedValueBox(State())

    enum Admission {
        case admitted(UInt64)
        /// Over the connection limit: closed.
        case refused(UInt64)
        /// Shutdown has begun: closed.
        case closing
    }

    /// Assigns the next connection id and forgets the channel when it closes. A connection accepted
    /// after shutdown began, or beyond `limit` open ones, is closed at once, so nothing is journaled
    /// after the journal is flushed and no client can exhaust the process's descriptors.
    func register(_ channel: any Channel, limit: Int = .max) -> Admission {
        let admission = state.withLockedValue { state -> Admission in
            defer { state.nextID += 1 }
            if state.closing { return .closing }
            if state.open.count >= limit {
                state.refused += 1
                return .refused(state.nextID)
            }
            state.open[state.nextID] = channel
            return .admitted(state.nextID)
        }
        guard case .admitted(let id) = admission else {
            channel.close(promise: nil)
            return admission
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.open.removeValue(forKey: id) }
        }
        return admission
    }

    var openCount: Int { state.withLockedValue { $0.open.count } }

    /// Connections refused because the limit was reached.
    var refusedCount: Int { state.withLockedValue { $0.refused } }

    /// Connections holding a stalled answer right now.
    var stalledCount: Int { state.withLockedValue { $0.stalled.count } }

    /// Remembers a connection that holds its answer back, until it closes.
    func markStalled(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let closing = state.withLockedValue { state in
            if !state.closing { state.stalled[key] = channel }
            return state.closing
        }
        if closing {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.stalled.removeValue(forKey: key) }
        }
    }

    /// A fresh connection id for a connection that starts inside another (a CONNECT tunnel).
    func allocateID() -> UInt64 {
        state.withLockedValue { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Asks every connection to finish its current exchange and close, then closes what is left
    /// after the grace period.
    /// Whether shutdown has asked the open connections to finish (tests wait for this).
    var isClosing: Bool { state.withLockedValue { $0.closing } }

    func quiesce(gracePeriod: Duration) async {
        let (channels, stalled) = state.withLockedValue { state in
            state.closing = true
            return (Array(state.open.values), Array(state.stalled.values))
        }
        // A stalled answer would never come: waiting for it would only spend the grace period.
        for channel in stalled { channel.close(promise: nil) }
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

/// One of the server's origin listeners, as a target of its proxy.
struct OriginListener: Sendable {
    var port: Int
    var tls: TLSRuntime?
}

/// What the proxy's handler needs from the server: where targets are, and how to tunnel into one.
struct ProxyRoute {
    var origin: @Sendable (Int) -> OriginListener?
    var tunnel: (any Channel, OriginListener) throws -> Void
    /// The proxy's HTTP handlers, removed when a CONNECT turns the channel into a tunnel.
    var encoder: HTTPResponseEncoder
    var decoder: ByteToMessageHandler<HTTPRequestDecoder>
    var pipelining: HTTPServerPipelineHandler
    /// NIO's decoder stops parsing after any CONNECT; a new one takes over when no tunnel follows.
    var makeDecoder: () -> ByteToMessageHandler<HTTPRequestDecoder>
}
