import AuthMockCore
import NIOCore

/// The facts about the listeners that the control plane's ``ControlGuard`` decides from: whether they are
/// loopback only, and the names a request may reach them by. Read from the bound channels (and, for a
/// wildcard address, the machine's interfaces) once per bind, in `start()`, never on an event loop.
extension AuthMockServer {
    /// Each listener's bound address, as `0.0.0.0:8080` or `[::1]:8080`: where it really listens.
    public var boundAddresses: [String] {
        listenerAddresses.map { address in
            let ip = address.ipAddress ?? "?"
            let host = ip.contains(":") ? "[\(ip)]" : ip
            return "\(host):\(address.port ?? 0)"
        }
    }

    /// The addresses of this machine that a wildcard listener (`0.0.0.0`, `::`) takes connections on
    /// (`127.0.0.1`, `10.0.0.5`, …); empty when no listener is a wildcard.
    public var wildcardAddresses: [String] {
        var found: [String] = []
        for address in listenerAddresses where address.ipAddress == "0.0.0.0" || address.ipAddress == "::" {
            for name in Self.names(address).dropFirst() where name != "localhost" && !found.contains(name) {
                found.append(name)
            }
        }
        return found
    }

    /// Whether every listener is bound to a loopback address (127.0.0.0/8 or ::1): then no other machine can
    /// reach the control plane, and its token is optional.
    public var isLoopbackOnly: Bool {
        let addresses = listenerAddresses
        return !addresses.isEmpty && addresses.allSatisfy(Self.isLoopback)
    }

    /// The `Host` values control requests may carry now (see ``ControlGuard/hosts``), sorted.
    public var controlHosts: [String] {
        engines.read { $0.controlGuard?.hosts.sorted() ?? [] }
    }

    /// The guard for the listeners bound so far.
    func controlGuard() -> ControlGuard {
        let (addresses, listeners) = state.withLockedValue { state -> ([SocketAddress], [ControlGuard.Listener]) in
            var addresses: [SocketAddress] = []
            var listeners: [ControlGuard.Listener] = []
            func add(_ channel: (any Channel)?, tls: Bool) {
                guard let address = channel?.localAddress, let port = address.port else { return }
                addresses.append(address)
                listeners.append(ControlGuard.Listener(port: port, tls: tls))
            }
            add(state.channels.first, tls: state.tls != nil)
            add(state.plainChannel, tls: false)
            add(state.secondChannel, tls: state.tls != nil)
            add(state.proxyChannel, tls: state.proxyTLS != nil)
            return (addresses, listeners)
        }
        var names = addresses.flatMap(Self.names)
        if !Self.isIPLiteral(configuration.host) { names.append(configuration.host) }
        if scenario.subdomains { names += Scenario.HostNames.all }
        names += scenario.tls?.hosts ?? []
        names += scenario.proxy?.tls?.hosts ?? []
        names += configuration.controlHosts
        return ControlGuard(
            loopback: !addresses.isEmpty && addresses.allSatisfy(Self.isLoopback), token: controlToken,
            names: names, listeners: listeners
        )
    }

    /// The HTTP listeners' addresses (the SOCKS5 listener speaks no HTTP).
    private var listenerAddresses: [SocketAddress] {
        state.withLockedValue { state in
            [state.channels.first, state.plainChannel, state.secondChannel, state.proxyChannel].compactMap {
                $0?.localAddress
            }
        }
    }

    static let loopbackNames = ["127.0.0.1", "localhost", "::1"]

    /// The names a listener bound to `address` is reached by: the address itself; with it the loopback names
    /// for a loopback or wildcard address, and for a wildcard the machine's addresses of that family.
    static func names(_ address: SocketAddress) -> [String] {
        guard let ip = address.ipAddress else { return [] }
        if isLoopback(address) { return [ip] + loopbackNames }
        guard ip == "0.0.0.0" || ip == "::" else { return [ip] }
        let devices = (try? System.enumerateDevices()) ?? []
        let machine = devices.compactMap(\.address).filter { device in
            switch (address, device) {
            case (.v4, .v4): true
            case (.v6, .v4), (.v6, .v6): true  // a `::` listener takes IPv4 too (IPV6_V6ONLY is off)
            default: false
            }
        }
        let loopback = ip == "::" ? loopbackNames : loopbackNames.filter { $0 != "::1" }
        return [ip] + loopback + machine.compactMap(\.ipAddress)
    }

    static func isLoopback(_ address: SocketAddress) -> Bool {
        guard let ip = address.ipAddress else { return false }
        switch address {
        case .v4: return ip.hasPrefix("127.")
        case .v6: return ip == "::1" || ip.hasPrefix("::ffff:127.")
        default: return false
        }
    }

    /// Whether `host` is an IPv4 or IPv6 address rather than a name.
    static func isIPLiteral(_ host: String) -> Bool {
        host.contains(":") || (!host.isEmpty && host.allSatisfy { $0.isNumber || $0 == "." })
    }
}
