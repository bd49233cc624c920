/// One SOCKS5 connection's handshake as a state machine over bytes: the greeting and method selection
/// (RFC 1928 §3), the username/password sub-negotiation (RFC 1929), and the request (RFC 1928 §4–§6).
///
/// Pure: the shell hands it the bytes as they arrive and gets back the bytes to answer, what to do with the
/// connection, and, once the handshake ends either way, the outcome to journal. Every malformed input is
/// answered with the protocol's failure code and ends the handshake; none is a crash.
///
/// ```swift
/// var session = SOCKS5Session(settings: SOCKS5Settings(users: [SOCKS5User(name: "mole", password: "tunnel")]))
/// let step = session.receive([0x05, 0x01, 0x02]) { _ in true }
/// // step.reply == [0x05, 0x02] (username/password selected), step.action == .wait
/// ```
public struct SOCKS5Session: Sendable {
    public let settings: SOCKS5Settings
    private var phase = Phase.greeting
    private var buffer: [UInt8] = []
    private var facts = SOCKS5Facts()
    private var user: String?
    private var password: String?

    private enum Phase: String {
        case greeting = "the greeting"
        case auth = "the username/password sub-negotiation"
        case request = "the request"
        case done
    }

    /// What parsing the buffer gave: wait for more, a reply and the next phase, or the handshake's end.
    private enum Parsed {
        case needMore
        case next([UInt8])
        case end([UInt8], SOCKS5Step.Action, SOCKS5Outcome)
    }

    public init(settings: SOCKS5Settings) {
        self.settings = settings
    }

    /// Whether the handshake ended (a tunnel, or a refusal); later bytes are not the session's.
    public var isDone: Bool { phase == .done }

    /// Takes the bytes that arrived and answers as far as they go.
    /// - Parameter reachable: whether a loopback target's port is one of the scenario's origins.
    public mutating func receive(_ bytes: some Sequence<UInt8>, reachable: (SOCKS5Target) -> Bool) -> SOCKS5Step {
        guard phase != .done else { return SOCKS5Step(reply: [], action: .wait, outcome: nil) }
        buffer.append(contentsOf: bytes)
        var reply: [UInt8] = []
        while true {
            let parsed: Parsed
            switch phase {
            case .greeting: parsed = greeting()
            case .auth: parsed = authentication()
            case .request: parsed = request(reachable)
            case .done: return SOCKS5Step(reply: reply, action: .wait, outcome: nil)
            }
            switch parsed {
            case .needMore:
                return SOCKS5Step(reply: reply, action: .wait, outcome: nil)
            case .next(let bytes):
                reply += bytes
            case .end(let bytes, let action, let outcome):
                phase = .done
                buffer = []
                return SOCKS5Step(reply: reply + bytes, action: action, outcome: outcome)
            }
        }
    }

    /// The client closed the connection: the outcome when it did so in the middle of the handshake.
    public mutating func closed() -> SOCKS5Outcome? {
        guard phase != .done else { return nil }
        let what = buffer.isEmpty ? "before \(phase.rawValue)" : "after \(buffer.count) byte(s) of \(phase.rawValue)"
        phase = .done
        return outcome(.socks5Truncated, "the client closed the connection \(what)")
    }

    /// The server is shutting down: the outcome when the handshake was not over.
    public mutating func serverClosed() -> SOCKS5Outcome? {
        guard phase != .done else { return nil }
        let during = phase.rawValue
        phase = .done
        return outcome(.socks5Truncated, "the server shut down during \(during)")
    }

    /// The client sent nothing more for too long: the outcome to journal before the shell closes.
    public mutating func timedOut(after seconds: Double) -> SOCKS5Outcome? {
        guard phase != .done else { return nil }
        let what = buffer.isEmpty ? "" : " (\(buffer.count) byte(s) of it arrived)"
        let during = phase.rawValue
        phase = .done
        return outcome(.socks5Timeout, "\(during) did not arrive whole in \(seconds) s\(what)")
    }

    // MARK: - Phases

    /// `VER NMETHODS METHODS…`: selects the first of the scenario's methods the client offers.
    private mutating func greeting() -> Parsed {
        guard let version = buffer.first else { return .needMore }
        facts.version = Int(version)
        guard version == 0x05 else {
            let name = version == 0x04 ? " (SOCKS4)" : ""
            return end(
                [0x05, 0xFF], .socks5BadVersion, "the greeting's version byte is \(Self.hex(version))\(name), not 0x05"
            )
        }
        guard buffer.count >= 2 else { return .needMore }
        let count = Int(buffer[1])
        guard buffer.count >= 2 + count else { return .needMore }
        let offered = Array(buffer[2..<(2 + count)])
        consume(2 + count)
        facts.methods = offered.map(SOCKS5Method.name(of:))
        if settings.fault == .closeAfterGreeting {
            return end([], .socks5Fault, "closed after the greeting (fault close-after-greeting)", fault: true)
        }
        if settings.fault == .noAcceptableMethod {
            let detail = "answered X'FF' to the methods offered (fault no-acceptable-method)"
            return end([0x05, 0xFF], .socks5NoAcceptableMethod, detail, fault: true)
        }
        guard let method = settings.methods.first(where: { offered.contains($0.code) }) else {
            let wanted = settings.methods.map(\.rawValue).joined(separator: ", ")
            let sent = count == 0 ? "no method" : (facts.methods ?? []).joined(separator: ", ")
            let detail = "the client offered \(sent); the server takes \(wanted)"
            return end([0x05, 0xFF], .socks5NoAcceptableMethod, detail)
        }
        facts.method = method.rawValue
        phase = method == .usernamePassword ? .auth : .request
        return .next([0x05, method.code])
    }

    /// RFC 1929: `VER ULEN UNAME PLEN PASSWD`, answered `VER STATUS`; a non-zero status closes.
    private mutating func authentication() -> Parsed {
        guard let version = buffer.first else { return .needMore }
        guard version == 0x01 else {
            return end(
                [0x01, 0x01], .socks5BadVersion,
                "the username/password version byte is \(Self.hex(version)), not 0x01 (RFC 1929)", authStatus: 1
            )
        }
        guard buffer.count >= 2 else { return .needMore }
        let userLength = Int(buffer[1])
        guard userLength > 0 else {
            return end([0x01, 0x01], .socks5BadUsername, "a zero-length username (ULEN 0)", authStatus: 1)
        }
        guard buffer.count >= 3 + userLength else { return .needMore }
        let passwordLength = Int(buffer[2 + userLength])
        let total = 3 + userLength + passwordLength
        guard buffer.count >= total else { return .needMore }
        let name = Array(buffer[2..<(2 + userLength)])
        let secret = Array(buffer[(3 + userLength)..<total])
        user = String(decoding: name, as: UTF8.self)
        password = String(decoding: secret, as: UTF8.self)
        consume(total)
        // A client may send its request before the status arrives; anything else after the password means
        // the lengths did not describe the message (a username longer than ULEN said).
        if let next = buffer.first, next != 0x05 {
            let detail = "\(buffer.count) byte(s) follow the password that are not a SOCKS5 request: "
                + "the username or password was longer than its length byte "
                + "(ULEN \(userLength), PLEN \(passwordLength))"
            return end([0x01, 0x01], .socks5BadUsername, detail, authStatus: 1)
        }
        if settings.fault == .closeAfterAuth {
            return end([], .socks5Fault, "closed after the credentials (fault close-after-auth)", fault: true)
        }
        let known = settings.users.first { constantTimeEquals(Array($0.name.utf8), name) }
        // Compared whether or not the user exists, so that the time taken does not tell.
        let matches = constantTimeEquals(Array((known?.password ?? "\u{0}unknown").utf8), secret)
        guard let known else {
            return end([0x01, 0x01], .socks5UnknownUser, "no SOCKS5 user '\(user ?? "")'", authStatus: 1)
        }
        guard matches else {
            return end([0x01, 0x01], .socks5BadPassword, "wrong password for '\(known.name)'", authStatus: 1)
        }
        facts.authStatus = 0
        phase = .request
        return .next([0x01, 0x00])
    }

    /// `VER CMD RSV ATYP DST.ADDR DST.PORT`: CONNECT to one of the scenario's origins, or a failure reply.
    private mutating func request(_ reachable: (SOCKS5Target) -> Bool) -> Parsed {
        guard let version = buffer.first else { return .needMore }
        guard version == 0x05 else {
            return end(
                Self.reply(0x01), .socks5BadVersion, "the request's version byte is \(Self.hex(version)), not 0x05",
                reply: 0x01
            )
        }
        guard buffer.count >= 4 else { return .needMore }
        let command = buffer[1]
        facts.command = Self.commandName(command)
        let addressLength: Int
        switch buffer[3] {
        case 0x01: addressLength = 4
        case 0x04: addressLength = 16
        case 0x03:
            guard buffer.count >= 5 else { return .needMore }
            addressLength = 1 + Int(buffer[4])
        default:
            return end(
                Self.reply(0x08), .socks5AddressTypeNotSupported,
                "address type \(Self.hex(buffer[3])) is none of IPv4 (1), domain name (3), IPv6 (4)", reply: 0x08
            )
        }
        let total = 4 + addressLength + 2
        guard buffer.count >= total else { return .needMore }
        let address = buffer[4..<(4 + addressLength)]
        guard let target = SOCKS5Target(type: buffer[3], address: address, port: buffer[total - 2], buffer[total - 1])
        else {
            consume(total)
            return end(Self.reply(0x01), .socks5Malformed, "a zero-length domain name", reply: 0x01)
        }
        consume(total)
        facts.address = target.addressType.rawValue
        let granted: (UInt8, Verdict, String)
        if command != 0x01 {
            let detail = "command \(facts.command ?? "?") is not supported; only CONNECT"
            granted = (0x07, .socks5CommandNotSupported, detail)
        } else if settings.fault == .generalFailure {
            granted = (0x01, .socks5Fault, "answered general failure (fault general-failure)")
        } else if !target.isLoopback {
            granted = (0x02, .socks5TargetRefused, "\(target.authority) is not a loopback address")
        } else if !reachable(target) {
            granted = (0x02, .socks5TargetRefused, "\(target.authority) is not one of this scenario's origins")
        } else {
            granted = (0x00, .socks5OK, "tunnel to \(target.authority)")
        }
        var result = outcome(granted.1, granted.2, target: target)
        result.facts.reply = Int(granted.0)
        result.fault = granted.1 == .socks5Fault ? settings.fault : nil
        let answer = granted.0 == 0 ? Self.reply(0x00, port: target.port) : Self.reply(granted.0)
        let action: SOCKS5Step.Action = granted.0 == 0 ? .tunnel(target, leftover: buffer) : .close
        return .end(answer, action, result)
    }

    // MARK: - Helpers

    private mutating func consume(_ count: Int) {
        buffer.removeFirst(min(count, buffer.count))
    }

    private func outcome(_ verdict: Verdict, _ detail: String, target: SOCKS5Target? = nil) -> SOCKS5Outcome {
        SOCKS5Outcome(
            verdict: verdict, detail: detail, facts: facts, user: user, password: password, target: target
        )
    }

    private func end(
        _ bytes: [UInt8], _ verdict: Verdict, _ detail: String, authStatus: Int? = nil, reply code: Int? = nil,
        fault: Bool = false
    ) -> Parsed {
        var result = outcome(verdict, detail)
        result.facts.authStatus = authStatus ?? result.facts.authStatus
        result.facts.reply = code
        result.fault = fault ? settings.fault : nil
        return .end(bytes, .close, result)
    }

    /// A reply to the request: `VER REP RSV ATYP BND.ADDR BND.PORT`, bound to 127.0.0.1 when granted.
    static func reply(_ code: UInt8, port: Int = 0) -> [UInt8] {
        let address: [UInt8] = code == 0 ? [127, 0, 0, 1] : [0, 0, 0, 0]
        return [0x05, code, 0x00, 0x01] + address + [UInt8(port >> 8 & 0xFF), UInt8(port & 0xFF)]
    }

    static func hex(_ byte: UInt8) -> String { "0x" + TextFormat.hex(byte, width: 2) }

    static func commandName(_ code: UInt8) -> String {
        switch code {
        case 0x01: "connect"
        case 0x02: "bind"
        case 0x03: "udp-associate"
        default: hex(code)
        }
    }
}
