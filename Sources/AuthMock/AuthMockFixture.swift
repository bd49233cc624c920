@_exported import AuthMockCore
@_exported import AuthMockServer
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// authmock as a test fixture: a scenario server started from a test, on a free port, driven and
/// inspected from the test, and shut down at its end.
///
/// It is the same ``AuthMockServer`` and engine that `authmock serve` runs; this type only adds what a
/// test wants: typed access to the URL, users, CA and pins, password changes, and ``takeRequest(timeout:)``
/// to wait for what the client sent — MockWebServer's `takeRequest()` is the model.
///
/// ```swift
/// try await withAuthMock(yaml: """
///     version: 1
///     name: basic
///     users: [{name: alice, password: wonderland}]
///     challenges: [{scheme: Basic}]
///     """) { server in
///     // … point the client under test at server.url …
///     let first = try await server.takeRequest()
///     #expect(first.verdict == .noCredentials)
/// }
/// ```
public final class AuthMockFixture: Sendable {
    /// The server underneath, for what this type does not wrap.
    public let server: AuthMockServer
    private let queue = RequestQueue()

    /// The configuration fixtures want: a free port on 127.0.0.1, a journal big enough for a test.
    public static var fixtureConfiguration: ServerConfiguration { ServerConfiguration(port: 0) }

    private init(server: AuthMockServer) {
        self.server = server
    }

    // MARK: - Starting and stopping

    /// Starts a server playing `scenario`, listening once this returns.
    public static func start(_ scenario: Scenario, configuration: ServerConfiguration = fixtureConfiguration)
        async throws -> AuthMockFixture
    {
        let mock = AuthMockFixture(server: AuthMockServer(scenario: scenario, configuration: configuration))
        let queue = mock.queue
        mock.server.setJournalObserver { entry in queue.append(entry) }
        try await mock.server.start()
        return mock
    }

    /// Starts a server playing the scenario file at `path` (validated fully first; a bad file throws a
    /// ``ScenarioLoadError`` whose description lists every problem as `file:line:column: …`).
    public static func start(scenarioFile path: String, configuration: ServerConfiguration = fixtureConfiguration)
        async throws -> AuthMockFixture
    {
        try await start(ScenarioLoader.load(file: path, files: .fileSystem), configuration: configuration)
    }

    /// Starts a server playing scenario YAML given as text (user files it names are read relative to
    /// the working directory).
    public static func start(yaml: String, configuration: ServerConfiguration = fixtureConfiguration)
        async throws -> AuthMockFixture
    {
        try await start(
            ScenarioLoader.load(yaml: yaml, file: "<yaml>", files: .fileSystem), configuration: configuration
        )
    }

    /// Stops accepting, finishes in-flight responses and removes generated certificate files. A
    /// ``takeRequest(timeout:)`` still waiting fails with ``AuthMockError/shutDown``.
    public func shutdown() async throws {
        try await server.shutdown()
        queue.close()
    }

    // MARK: - Where and who

    /// The base URL, `http://127.0.0.1:PORT/` (with TLS `https://localhost:PORT/`).
    public var url: URL { URL(string: server.url)! }

    /// `path` on this server: `url(for: "/search?q=x")`.
    public func url(for path: String) -> URL {
        URL(string: String(server.url.dropLast()) + (path.hasPrefix("/") ? path : "/" + path))!
    }

    /// The forward proxy (`http://127.0.0.1:PORT`) when the scenario has a `proxy:` section;
    /// `https://localhost:PORT` for an HTTPS proxy (`proxy.tls`).
    public var proxyURL: URL? { server.proxyURL.flatMap(URL.init(string:)) }

    /// The CA file that an HTTPS proxy's certificate chains to (`proxy.tls`); nil for a plain proxy.
    public var proxyCAFile: URL? { server.proxyTLS.map { URL(fileURLWithPath: $0.caFile) } }
    /// The SOCKS5 listener (`socks5h://127.0.0.1:PORT`) when the scenario has a `socks5:` section.
    public var socksURL: URL? { server.socksURL.flatMap(URL.init(string:)) }

    /// The proxy's host and port, as URLSession's proxy dictionary and most clients want them.
    public var proxyAddress: (host: String, port: Int)? {
        guard let proxy = proxyURL, let host = proxy.host, let port = proxy.port else { return nil }
        return (host, port)
    }

    /// The control plane's token, for a test that calls `/_authmock/` over HTTP: send it as
    /// `Authorization: Bearer TOKEN` (with `Content-Type: application/json` on a POST). The fixture's own
    /// methods (``setPassword(_:for:)``, ``reset()``, …) reach the server in-process and need nothing.
    public var controlToken: String { server.controlToken }

    /// The users who can authenticate now, with their current passwords.
    public var users: [User] { server.users }

    /// The current user named `name`, if they can authenticate.
    public func user(_ name: String) -> User? { users.first { $0.name == name } }

    /// The static Bearer token of `name` (the scenario's `token:`), if the user has one and can authenticate.
    public func token(of name: String) -> String? { user(name)?.token }

    /// The live page (`/_authmock/`): open it in a browser, with the test paused at a breakpoint, to see the
    /// scenario, its users and every exchange so far, whole.
    public var liveURL: URL { url(for: "/_authmock/") }

    /// The token endpoint (RFC 6749) of the scenario's `oauth:` section; nil without one.
    public var tokenURL: URL? {
        server.scenario.oauth.map { url(for: $0.tokenPath) }
    }

    /// The token endpoint's clients (id and secret), in the scenario's order; empty without `oauth:`.
    public var oauthClients: [OAuthClient] { server.scenario.oauth?.clients ?? [] }

    /// What the origin speaks, in ALPN's names (`["http/1.1"]`; with the scenario's `http2:`, `h2` or
    /// `h2c` first): the ready line's `protocols`.
    public var protocols: [String] { server.scenario.http2.protocols }

    // MARK: - TLS

    /// The TLS files and pins (current after a rotation); nil without TLS.
    public var tls: TLSInfo? { server.tls }

    /// The CA clients should trust, as a file.
    public var caFile: URL? { tls.map { URL(fileURLWithPath: $0.caFile) } }

    /// The CA clients should trust, as PEM text.
    public var caPEM: String? {
        guard let file = tls?.caFile else { return nil }
        return try? String(contentsOfFile: file, encoding: .utf8)
    }

    /// RFC 7469 `pin-sha256` of the current leaf: base64 of SHA-256 over its SubjectPublicKeyInfo.
    public var pinSHA256: String? { tls?.pinSHA256 }

    /// SHA-256 (hex) of the current leaf's DER: a certificate pin, which no renewal keeps.
    public var certSHA256: String? { tls?.fingerprintSHA256 }

    /// Client certificate and key files by user, when the scenario asks for client certificates.
    public var clientCertificates: [String: TLSInfo.ClientFiles] { tls?.clientCerts ?? [:] }

    /// Replaces the leaf certificate for new connections; `keepKey` keeps the public key (and the pin).
    public func rotateCertificate(keepKey: Bool = false) async throws {
        try await server.rotateCertificate(keepKey: keepKey)
    }

    // MARK: - Driving

    /// Clears the journal, nonces and pending requests, and restores the scenario's users.
    public func reset() {
        server.reset()
        queue.clear()
    }

    /// Changes `user`'s password; clients holding the old one get `credential.stale-password`.
    public func setPassword(_ password: String, for user: String) throws {
        try change(user, .setPassword(password))
    }

    /// Locks `user`: valid credentials get 403 until ``unlock(_:)``.
    public func lock(_ user: String) throws { try change(user, .lock) }

    public func unlock(_ user: String) throws { try change(user, .unlock) }

    /// Removes `user`: their credentials no longer authenticate.
    public func remove(_ user: String) throws { try change(user, .remove) }

    private func change(_ user: String, _ action: TimelineStep.Action) throws {
        guard server.changeUser(user, action, reason: "changed by the test") else {
            throw AuthMockError.noSuchUser(user)
        }
    }

    // MARK: - Inspecting

    /// Every journal entry in memory, oldest first: exchanges, TLS connection records, user changes.
    public var journal: [JournalEntry] { server.journal }

    /// The HTTP exchanges in the journal, oldest first.
    public var requests: [JournalEntry] { journal.filter(\.isExchange) }

    /// How many HTTP exchanges arrived since start (or the last reset).
    public var requestCount: Int { queue.exchangesSeen }

    /// The next HTTP exchange not yet taken, in arrival order, waiting up to `timeout` for it.
    ///
    /// Each exchange is returned once, whether it came before the call or after: the first call returns
    /// the first request the server answered. Throws ``AuthMockError/timedOut(_:)`` when none arrives in
    /// time and ``AuthMockError/shutDown`` once the server stopped.
    public func takeRequest(timeout: Duration = .seconds(10)) async throws -> JournalEntry {
        try await queue.take(timeout: timeout)
    }

    /// Waits until every client connection has closed, so that TLS connection records are in the journal.
    @discardableResult
    public func waitForConnectionsToClose(timeout: Duration = .seconds(5)) async -> Bool {
        await server.waitForConnectionsToClose(timeout: timeout)
    }
}

/// Starts a server playing `scenario`, runs `body` with it, and shuts it down, also when `body` throws.
public func withAuthMock<T>(
    _ scenario: Scenario, configuration: ServerConfiguration = AuthMockFixture.fixtureConfiguration,
    _ body: (AuthMockFixture) async throws -> T
) async throws -> T {
    try await scoped(await AuthMockFixture.start(scenario, configuration: configuration), body)
}

/// Starts a server playing the scenario file at `path`, runs `body` with it, and shuts it down.
public func withAuthMock<T>(
    scenarioFile path: String, configuration: ServerConfiguration = AuthMockFixture.fixtureConfiguration,
    _ body: (AuthMockFixture) async throws -> T
) async throws -> T {
    try await scoped(await AuthMockFixture.start(scenarioFile: path, configuration: configuration), body)
}

/// Starts a server playing scenario YAML text, runs `body` with it, and shuts it down.
public func withAuthMock<T>(
    yaml: String, configuration: ServerConfiguration = AuthMockFixture.fixtureConfiguration,
    _ body: (AuthMockFixture) async throws -> T
) async throws -> T {
    try await scoped(await AuthMockFixture.start(yaml: yaml, configuration: configuration), body)
}

private func scoped<T>(
    _ start: @autoclosure () async throws -> AuthMockFixture, _ body: (AuthMockFixture) async throws -> T
) async throws -> T {
    let mock = try await start()
    let result: T
    do {
        result = try await body(mock)
    } catch {
        try? await mock.shutdown()
        throw error
    }
    try await mock.shutdown()
    return result
}
