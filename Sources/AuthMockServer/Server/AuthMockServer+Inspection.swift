import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a host reads of a running server (its addresses, TLS files, journal, users and state sizes) and
/// what it changes (users, certificate, reset), as the control endpoints do.
extension AuthMockServer {
    /// The port actually bound by the main listener (useful after binding port 0).
    public var port: Int {
        state.withLockedValue { $0.channels.first?.localAddress?.port } ?? configuration.port
    }

    /// The base URL clients use: `http://127.0.0.1:53124/`, or with TLS `https://localhost:53124/`
    /// (the generated certificate names localhost).
    /// With `subdomains: true` on a loopback listener, the host is `authmock.localhost`.
    public var url: String {
        let isTLS = state.withLockedValue { $0.tls != nil }
        return named(Self.url(host: configuration.host, port: port, tls: isTLS))
    }

    /// The plain-HTTP URL when a TLS scenario also listens on plain HTTP (`plain-http: true`), with the same
    /// host name as ``url`` (`http://localhost:P/` beside `https://localhost:Q/`): a redirect between the two
    /// changes the scheme and port, never the host, so a client that keys credentials on the host alone is
    /// caught.
    public var httpURL: String? {
        state.withLockedValue { $0.plainChannel?.localAddress?.port }.map {
            named(Self.url(host: configuration.host, port: $0, tls: true))
                .replacing("https://", with: "http://")
        }
    }

    /// The second port's URL when the scenario asks for `second-port: true`.
    public var secondURL: String? {
        let (port, isTLS) = state.withLockedValue { ($0.secondChannel?.localAddress?.port, $0.tls != nil) }
        return port.map { named(Self.url(host: configuration.host, port: $0, tls: isTLS)) }
    }

    /// The main URL with the other loopback name (`localhost` ↔ `127.0.0.1`): another host, same port.
    /// With `subdomains: true`, `authmock.localhost` → `127.0.0.1`.
    public var otherHostURL: String {
        let main = url
        if scenario.subdomains { return Self.rename(main, from: Scenario.HostNames.first, to: "127.0.0.1") }
        if main.contains("//localhost:") { return main.replacing("//localhost:", with: "//127.0.0.1:") }
        if main.contains("//127.0.0.1:") { return main.replacing("//127.0.0.1:", with: "//localhost:") }
        return main
    }

    /// The main URL under another loopback name (`subdomains: true` only): `http://sub.authmock.localhost:P/`
    /// (``Scenario/HostNames/subdomain``), a subdomain of the first host, on the same listener.
    public var subdomainURL: String? {
        scenario.subdomains ? Self.rename(url, from: Scenario.HostNames.first, to: Scenario.HostNames.subdomain) : nil
    }

    /// The main URL as `sibling.localhost` (`subdomains: true` only): another host under the first one's parent.
    public var siblingURL: String? {
        scenario.subdomains ? Self.rename(url, from: Scenario.HostNames.first, to: Scenario.HostNames.sibling) : nil
    }

    /// The other host's URL with the main URL's host name as its user and an empty password
    /// (`http://127.0.0.1:@localhost:P/`): a URL whose `netloc.split(":")[0]` names the first host while it
    /// leads to the other one, the shape of requests CVE-2024-47081.
    public var otherHostUserinfoURL: String {
        let main = url
        let other = otherHostURL
        guard let schemeEnd = other.firstRange(of: "://"), let host = URLComponents(string: main)?.host else {
            return other
        }
        return String(other[..<schemeEnd.upperBound]) + host + ":@" + String(other[schemeEnd.upperBound...])
    }

    /// What `{url}`, `{other_host_url}`, `{http_url}`, `{second_url}`, `{other_host_userinfo_url}`,
    /// `{subdomain_url}` and `{sibling_url}` stand for in resource headers.
    var links: [String: String] {
        var links = ["url": url, "other_host_url": otherHostURL, "other_host_userinfo_url": otherHostUserinfoURL]
        links["http_url"] = httpURL
        links["second_url"] = secondURL
        links["subdomain_url"] = subdomainURL
        links["sibling_url"] = siblingURL
        return links
    }

    /// A loopback URL under the first of ``Scenario/HostNames`` when the scenario asks for `subdomains: true`.
    private func named(_ url: String) -> String {
        guard scenario.subdomains else { return url }
        let renamed = Self.rename(url, from: "localhost", to: Scenario.HostNames.first)
        return Self.rename(renamed, from: "127.0.0.1", to: Scenario.HostNames.first)
    }

    private static func rename(_ url: String, from old: String, to new: String) -> String {
        url.replacing("//\(old):", with: "//\(new):")
    }

    /// The forward proxy's URL (`http://127.0.0.1:PORT`) when the scenario has a `proxy:` section;
    /// `https://localhost:PORT` for an HTTPS proxy (`proxy.tls`; its certificate names localhost).
    public var proxyURL: String? {
        let (port, isTLS) = state.withLockedValue { ($0.proxyChannel?.localAddress?.port, $0.proxyTLS != nil) }
        return port.map { Self.url(host: configuration.host, port: $0, tls: isTLS) }.map { String($0.dropLast()) }
    }

    /// What clients need to trust an HTTPS proxy (its `ca.pem` is `{proxy_ca_file}`); nil for a plain one.
    public var proxyTLS: TLSInfo? {
        state.withLockedValue { $0.proxyTLS }?.info
    }

    /// The SOCKS5 listener's URL (`socks5h://127.0.0.1:PORT`: the proxy resolves names) when the scenario has
    /// a `socks5:` section.
    public var socksURL: String? {
        state.withLockedValue { $0.socksChannel?.localAddress?.port }.map { port in
            let url = Self.url(host: configuration.host, port: port, tls: false)
            return "socks5h://" + url.dropFirst("http://".count).dropLast()
        }
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
        engines.read { $0.journal.evicted }
    }

    /// The journal entries in memory, oldest first.
    public var journal: [JournalEntry] {
        engines.read { $0.journal.entries }
    }

    /// Waits until every client connection has closed (and so has been journaled), up to `timeout`.
    /// Returns whether that happened. Use it after a client exits, before reading its TLS entries.
    @discardableResult
    public func waitForConnectionsToClose(timeout: Duration = .seconds(5)) async -> Bool {
        // True at once when none is open; otherwise the last close wakes the wait, or the deadline ends it.
        await connections.waitUntilIdle(until: ContinuousClock.now + timeout)
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
            "open \(openConnections), refused \(refusedConnections), stalled \(stalledConnections), "
                + "ntlm \(ntlmConnections), nonces \(rememberedNonces), journal \(journalEntries)"
        }
    }

    public var stateSizes: StateSizes {
        let (ntlm, nonces, journal) = engines.read { ($0.ntlmConnections, $0.rememberedNonces, $0.journal.count) }
        return StateSizes(
            openConnections: connections.openCount, refusedConnections: connections.refusedCount,
            stalledConnections: connections.stalledCount, ntlmConnections: ntlm, rememberedNonces: nonces,
            journalEntries: journal
        )
    }

    /// Clears the journal and nonce state and restores the scenario's users, as `POST /_authmock/reset` does.
    public func reset() {
        engines.reset()
    }

    /// The origin's users as they are now: passwords changed by the timeline or the control endpoint
    /// show their new value; removed users are left out.
    public var users: [User] {
        engines.read { $0.currentUsers }
    }

    /// Changes a user of the origin's scenario (new password, lock, unlock, remove) and journals it,
    /// as `POST /_authmock/users/{name}` does. Returns false when there is no such user.
    @discardableResult
    public func changeUser(_ name: String, _ action: TimelineStep.Action, reason: String = "changed by the host")
        -> Bool
    {
        engines.changeUser(name, action, reason: reason)
    }

    /// Calls `observer` with every journal entry once it is decided, in `seq` order, while the engine's
    /// lock is held: keep it short (append to a queue, resume a continuation) and never call back into
    /// the server from it.
    public func setJournalObserver(_ observer: (@Sendable (JournalEntry) -> Void)?) {
        engines.setObserver(observer)
    }

    /// Replaces the TLS leaf for new connections, as `POST /_authmock/tls/rotate` does.
    public func rotateCertificate(keepKey: Bool) async throws {
        guard let tls = state.withLockedValue({ $0.tls }) else { return }
        engines.setTLSInfo(try tls.rotate(keepKey: keepKey))
    }
}
