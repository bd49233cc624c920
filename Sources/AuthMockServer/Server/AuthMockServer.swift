import AuthMockCertificates
import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
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
    let engines: LockedEngines
    private let group: any EventLoopGroup
    let state = NIOLockedValueBox(RunState())
    let connections = ConnectionRegistry()
    /// The control plane's token (``ServerConfiguration/controlToken``, or one made for this run): off loopback
    /// every `/_authmock/` request needs `Authorization: Bearer` it.
    public let controlToken: String

    struct RunState {
        /// The main listener (HTTPS when the scenario has TLS), then the extra plain-HTTP one, if any.
        var channels: [any Channel] = []
        var plainChannel: (any Channel)?
        /// `second-port: true`: the same origin on another port.
        var secondChannel: (any Channel)?
        var proxyChannel: (any Channel)?
        var socksChannel: (any Channel)?
        var journalFile: JournalFile?
        var tls: TLSRuntime?
        /// The proxy's own identity, when the scenario makes it an HTTPS proxy (`proxy.tls`).
        var proxyTLS: TLSRuntime?
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
        self.engines = LockedEngines(scenario: scenario, configuration: configuration)
        var system = SystemRandomNumberGenerator()
        self.controlToken = configuration.controlToken ?? ControlGuard.makeToken(using: &system)
        // Until the listeners are bound, no Host is theirs: every control request is refused.
        engines.setControlGuard(ControlGuard(loopback: false, token: controlToken, names: [], listeners: []))
    }

    /// Binds and starts accepting connections. Returns once the server is ready.
    ///
    /// With TLS, the identity is generated (or loaded) first and its files are written, so that
    /// everything a client needs exists before the first connection is accepted.
    public func start() async throws {
        let journalFile = try configuration.journalPath.map(JournalFile.init(path:))
        engines.setJournalFile(journalFile)
        let tls = try makeTLSRuntime()
        if let tls { engines.setTLSInfo(tls.info) }
        state.withLockedValue {
            $0.journalFile = journalFile
            $0.tls = tls
        }
        do {
            // Inside the do: when the proxy's identity cannot be made, shutdown() closes the journal file and
            // removes the origin's certificate directory made above.
            let proxyTLS = try makeProxyTLSRuntime(origin: tls)
            state.withLockedValue { $0.proxyTLS = proxyTLS }
            let main = try await bind(host: configuration.host, port: configuration.port, tls: tls)
            state.withLockedValue { $0.channels.append(main) }
            engines.setControlGuard(controlGuard())
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
                let proxy = try await bindProxy(
                    host: configuration.host, port: configuration.proxyPort, tls: proxyTLS
                )
                state.withLockedValue {
                    $0.channels.append(proxy)
                    $0.proxyChannel = proxy
                }
            }
            if let socks5 = scenario.socks5 {
                let socks = try await bindSOCKS5(host: configuration.host, port: configuration.socksPort, socks5)
                state.withLockedValue {
                    $0.channels.append(socks)
                    $0.socksChannel = socks
                }
            }
        } catch {
            try? await shutdown()
            throw error
        }
        engines.setControlGuard(controlGuard())
        engines.setLinks(links)
        engines.setTryWhere(ReadyInfo(server: self).tryWhere)
        logger.info("listening", metadata: ["url": "\(url)", "scenario": "\(scenario.name)"])
    }

    private func makeTLSRuntime() throws -> TLSRuntime? {
        let settings = scenario.tls
        var identity = configuration.tlsIdentity
        if identity == nil, let settings {
            let request = IdentityRequest(
                kind: settings.identity, keyType: settings.keyType,
                hosts: settings.hosts + (scenario.subdomains ? Scenario.HostNames.all : []),
                intermediate: settings.intermediate,
                clientUsers: settings.clientCertificate == .none ? [] : scenario.users.map(\.name),
                root: configuration.tlsRoot
            )
            identity = try TLSIdentity.generate(request, now: configuration.clock())
        }
        guard let identity else { return nil }
        return try TLSRuntime(
            identity: identity, clientCertificate: settings?.clientCertificate ?? .none,
            versions: settings.map { $0.minVersion ... $0.maxVersion } ?? .v1_2 ... .v1_3, alpn: scenario.http2.alpn,
            directory: configuration.certificatesDirectory.map { URL(fileURLWithPath: $0) }
        )
    }

    /// An HTTPS proxy's identity (`proxy.tls`): signed by the origin's CA when it has one that can sign
    /// (see ``TLSIdentity/sibling(_:now:)``), else by a CA of its own; its files go to `proxy/` under the
    /// origin's certificate directory, or to a temporary one. HTTP/1.1 only, no client certificates.
    private func makeProxyTLSRuntime(origin: TLSRuntime?) throws -> TLSRuntime? {
        guard let settings = scenario.proxy?.tls else { return nil }
        let request = IdentityRequest(kind: settings.identity, hosts: settings.hosts, root: configuration.tlsRoot)
        let now = configuration.clock()
        let identity = try origin?.identity.sibling(request, now: now) ?? TLSIdentity.generate(request, now: now)
        return try TLSRuntime(
            identity: identity, clientCertificate: .none,
            directory: configuration.certificatesDirectory.map {
                URL(fileURLWithPath: $0).appendingPathComponent("proxy")
            }
        )
    }

    private var decoderLimits: NIOHTTPDecoderLimitConfiguration {
        var limits = NIOHTTPDecoderLimitConfiguration()
        // A scenario with a 20 KB realm and nonce gets its answers back, whatever the configured limits.
        limits.maxHeaderFieldSize = max(configuration.maxHeaderFieldSize, scenario.answerFieldSize)
        limits.maxHeaderListSize = max(configuration.maxHeaderListSize, scenario.answerFieldSize + 16 * 1024)
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
            // TCP_NODELAY is an IPPROTO_TCP option: `.socketOption(.tcp_nodelay)` set SOL_SOCKET's option 1,
            // SO_DEBUG, which only root may set, so every connection to a non-root server was closed at once.
            .childChannelOption(.tcpOption(.tcp_nodelay), value: 1)
            .childChannelInitializer(initializer)
            .bind(host: host, port: port)
            .get()
    }

    /// How each new connection's handlers are built.
    var pipelines: ServerPipelines {
        ServerPipelines(
            engines: engines, registry: connections,
            timeouts: ConnectionGuard.Timeouts(
                header: TimeAmount(configuration.headerTimeout), idle: TimeAmount(configuration.idleTimeout)
            ),
            decoderLimits: decoderLimits, maxBodySize: configuration.maxBodySize, http2: scenario.http2, logger: logger,
            perform: performActions, origin: { [weak self] port in self?.origin(at: port) }
        )
    }

    private func bind(host: String, port: Int, tls: TLSRuntime?) async throws -> any Channel {
        let pipelines = self.pipelines
        return try await listen(host: host, port: port) { [self] channel in
            channel.eventLoop.makeCompletedFuture {
                guard admit(channel) != nil else { return }
                try pipelines.configureOrigin(channel, id: nil, tls: tls)
            }
        }
    }

    /// The forward proxy's listener; with `tls`, an HTTPS proxy.
    private func bindProxy(host: String, port: Int, tls: TLSRuntime?) async throws -> any Channel {
        let pipelines = self.pipelines
        return try await listen(host: host, port: port) { [self] channel in
            channel.eventLoop.makeCompletedFuture {
                guard admit(channel) != nil else { return }
                try pipelines.configureProxy(channel, id: pipelines.registry.allocateID(), tls: tls)
            }
        }
    }

    /// The SOCKS5 listener's.
    private func bindSOCKS5(host: String, port: Int, _ settings: SOCKS5Settings) async throws -> any Channel {
        let pipelines = self.pipelines
        return try await listen(host: host, port: port) { [self] channel in
            channel.eventLoop.makeCompletedFuture {
                guard admit(channel) != nil else { return }
                try pipelines.configureSOCKS5(channel, id: pipelines.registry.allocateID(), settings: settings)
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
            let remote = channel.remoteAddress.map(ServerPipelines.describe)
            engines.recordRefusedConnection(
                ConnectionInfo(id: id, exchange: 0, remote: remote), limit: configuration.maxConnections
            )
            return nil
        case .closing:
            return nil
        }
    }

    /// The origin listener at a port, if it is one of this server's (the proxy's only targets).
    func origin(at port: Int) -> OriginListener? {
        state.withLockedValue { state -> OriginListener? in
            if let main = state.channels.first, main.localAddress?.port == port {
                return OriginListener(port: port, tls: state.tls)
            }
            if let plain = state.plainChannel, plain.localAddress?.port == port {
                return OriginListener(port: port, tls: nil)
            }
            if let second = state.secondChannel, second.localAddress?.port == port {
                return OriginListener(port: port, tls: state.tls)
            }
            return nil
        }
    }

    /// Carries out what the engine asked for; the future completes when it is done, so that a response
    /// announcing a rotation is only sent once new connections get the new certificate.
    private func perform(_ actions: [ServerAction], on eventLoop: any EventLoop) -> EventLoopFuture<Void> {
        guard let tls = state.withLockedValue({ $0.tls }) else { return eventLoop.makeSucceededVoidFuture() }
        let promise = eventLoop.makePromise(of: Void.self)
        let engines = self.engines
        let logger = self.logger
        DispatchQueue.global().async {
            for case .rotateCertificate(let keepKey) in actions {
                do {
                    engines.setTLSInfo(try tls.rotate(keepKey: keepKey))
                    logger.info(
                        "rotated the certificate", metadata: ["keep-key": "\(keepKey)", "pin": "\(tls.info.pinSHA256)"]
                    )
                } catch {
                    logger.error("certificate rotation failed: \(error)")
                }
            }
            promise.succeed()
        }
        return promise.futureResult
    }

    /// Stops accepting, lets in-flight responses finish (up to the grace period), closes every
    /// connection, flushes the journal file and removes temporary certificate files. Safe to call
    /// more than once.
    public func shutdown() async throws {
        let (channels, journalFile, tls, proxyTLS, alreadyStopped) = state.withLockedValue { state in
            defer { state.stopped = true }
            return (state.channels, state.journalFile, state.tls, state.proxyTLS, state.stopped)
        }
        guard !alreadyStopped else { return }
        for channel in channels { try? await channel.close() }
        await connections.quiesce(gracePeriod: configuration.shutdownGracePeriod)
        journalFile?.close()
        tls?.close()
        proxyTLS?.close()
        logger.info("stopped", metadata: ["exchanges": "\(engines.read { $0.nextSeq - 1 })"])
    }
}

