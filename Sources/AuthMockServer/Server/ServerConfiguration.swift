import AuthMockCertificates
import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an ``AuthMockServer`` listens and what it tolerates from clients.
public struct ServerConfiguration: Sendable {
    // MARK: Listening

    /// The address to bind. Loopback by default: authmock is a test tool and should not face a network.
    public var host: String
    /// The port; 0 picks a free one (read it back from ``AuthMockServer/port``).
    public var port: Int

    // MARK: The control plane

    /// The token control requests carry as `Authorization: Bearer TOKEN`; nil makes one per run from the
    /// system's random generator (256 bits, base64url). Read it back from ``AuthMockServer/controlToken``.
    public var controlToken: String?
    /// More names control requests may give in `Host` (`authmock`, or `localhost:9000` behind a port
    /// mapping): a container reached by its service name. The listeners' own names are always allowed.
    public var controlHosts: [String] = []

    // MARK: Limits

    /// Largest single header field (name and value) accepted; larger ones get 431.
    public var maxHeaderFieldSize: Int
    /// Largest total of all header fields of one request; larger ones get 431.
    public var maxHeaderListSize: Int
    /// Largest request body kept; a larger body gets 413 (the connection is then closed).
    public var maxBodySize: Int
    /// Journal entries kept in memory for `GET /_authmock/journal`.
    public var journalCapacity: Int
    /// How long a request head may take to arrive once its first byte has (a slowloris trickle gets 408).
    public var headerTimeout: Duration
    /// How long a connection may stay silent while the server waits for a request or a body (this also
    /// bounds a TLS handshake that never completes).
    public var idleTimeout: Duration
    /// Open client connections at most; a connection beyond it is closed at once and journaled.
    public var maxConnections: Int
    /// How long shutdown waits for in-flight responses before closing connections anyway.
    public var shutdownGracePeriod: Duration

    // MARK: Determinism

    /// Seeds nonces and opaques so that a run can be repeated; nil uses the system generator.
    public var seed: UInt64?
    /// The clock the engine reads once per request. Tests inject one to age nonces.
    public var clock: @Sendable () -> Date

    // MARK: TLS

    /// A server identity to use instead of generating the scenario's (`--cert`/`--key`/`--ca`). Setting
    /// it serves HTTPS even when the scenario has no `tls:` section.
    public var tlsIdentity: TLSIdentity?
    /// The root CA generated identities are signed with (nil: a new one for each); `authmock check` shares
    /// one across a run's cases.
    public var tlsRoot: TLSRoot?
    /// Where to write ca.pem, chain.pem, … for clients; nil writes them to a temporary directory
    /// that shutdown removes.
    public var certificatesDirectory: String?
    /// The port of the forward proxy when the scenario has a `proxy:` section (0: free port).
    public var proxyPort: Int
    /// The port of the SOCKS5 listener when the scenario has a `socks5:` section (0: free port).
    public var socksPort = 0
    /// The port of the extra plain-HTTP listener when the scenario asks for `plain-http` (0: free port).
    public var plainHTTPPort: Int

    // MARK: Journal

    /// Where every journal entry is appended as a JSON line (the file is truncated at start); nil for none.
    public var journalPath: String?

    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxHeaderFieldSize: Int = 8 * 1024,
        maxHeaderListSize: Int = 64 * 1024,
        maxBodySize: Int = 1024 * 1024,
        journalCapacity: Int = 10_000,
        headerTimeout: Duration = .seconds(10),
        idleTimeout: Duration = .seconds(60),
        maxConnections: Int = 4096,
        shutdownGracePeriod: Duration = .seconds(10),
        seed: UInt64? = nil,
        clock: @escaping @Sendable () -> Date = { Date() },
        journalPath: String? = nil,
        tlsIdentity: TLSIdentity? = nil,
        tlsRoot: TLSRoot? = nil,
        certificatesDirectory: String? = nil,
        plainHTTPPort: Int = 0,
        proxyPort: Int = 0
    ) {
        self.host = host
        self.port = port
        self.maxHeaderFieldSize = maxHeaderFieldSize
        self.maxHeaderListSize = maxHeaderListSize
        self.maxBodySize = maxBodySize
        self.journalCapacity = journalCapacity
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
        self.shutdownGracePeriod = shutdownGracePeriod
        self.seed = seed
        self.clock = clock
        self.journalPath = journalPath
        self.tlsIdentity = tlsIdentity
        self.tlsRoot = tlsRoot
        self.certificatesDirectory = certificatesDirectory
        self.plainHTTPPort = plainHTTPPort
        self.proxyPort = proxyPort
    }
}
