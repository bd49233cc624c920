/// A scenario's `socks5:` section: a SOCKS5 listener (RFC 1928) in front of the scenario's origins, with
/// username/password authentication (RFC 1929).
///
/// ```yaml
/// socks5:
///   methods: [username-password]   # the default; [none] for an open proxy, or both in order of preference
///   users:
///     - name: mole
///       password: tunnel
///   fault: close-after-greeting    # optional
/// ```
public struct SOCKS5Settings: Sendable, Equatable {
    /// The authentication methods the listener accepts, in its order of preference (RFC 1928 §3).
    public var methods: [SOCKS5Method]
    /// The users RFC 1929's sub-negotiation accepts, passwords in clear.
    public var users: [SOCKS5User]
    /// A way the listener misbehaves on purpose; nil for none.
    public var fault: SOCKS5Fault?

    public init(methods: [SOCKS5Method] = [.usernamePassword], users: [SOCKS5User], fault: SOCKS5Fault? = nil) {
        self.methods = methods
        self.users = users
        self.fault = fault
    }
}

/// A method a SOCKS5 server can select (RFC 1928 §3).
public enum SOCKS5Method: String, Sendable, Equatable, CaseIterable {
    /// `X'00'`: no authentication.
    case none
    /// `X'02'`: RFC 1929 username/password.
    case usernamePassword = "username-password"

    /// The method's byte on the wire.
    public var code: UInt8 { self == .none ? 0x00 : 0x02 }

    /// How the journal names a method byte a client offered: `none`, `gssapi`, `username-password`, or
    /// its hex value.
    public static func name(of code: UInt8) -> String {
        switch code {
        case 0x00: "none"
        case 0x01: "gssapi"
        case 0x02: "username-password"
        default: "0x" + String(code, radix: 16, uppercase: false).leftPadded(to: 2)
        }
    }
}

/// A user of the SOCKS5 listener.
public struct SOCKS5User: Sendable, Equatable, Codable {
    public var name: String
    public var password: String

    public init(name: String, password: String) {
        self.name = name
        self.password = password
    }
}

/// Ways the SOCKS5 listener misbehaves on purpose.
public enum SOCKS5Fault: String, Sendable, Equatable, CaseIterable {
    /// Answers every greeting `X'FF'`: no method the client offered is acceptable.
    case noAcceptableMethod = "no-acceptable-method"
    /// Reads the greeting and closes without selecting a method.
    case closeAfterGreeting = "close-after-greeting"
    /// Reads the username and password and closes without a status.
    case closeAfterAuth = "close-after-auth"
    /// Answers the CONNECT with `X'01'` (general SOCKS server failure).
    case generalFailure = "general-failure"
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
