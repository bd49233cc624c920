/// Who may use the control plane (`/_authmock/…`), decided from the request alone and the facts the shell
/// gives about its listeners: whether they are loopback only, the control token, and the names they answer to.
///
/// The rules, in the order they are checked (the first that fails answers):
///
/// 1. **Host** (403, `host`): the request's `Host` must name one of the listeners — the bound address, the
///    loopback names for a loopback or wildcard listener, the `--host` name, the scenario's names, and
///    `--control-host` names — with the listener's port (or without one for 80 and 443). A page from
///    `evil.example` that rebinds its name to 127.0.0.1 sends `Host: evil.example` and is refused.
/// 2. **Token** (401, `token-missing` / `token-wrong`, with `WWW-Authenticate: Bearer realm="authmock-control"`):
///    off loopback every control request needs `Authorization: Bearer TOKEN`; on loopback a Bearer token is
///    optional, but a wrong one is refused. Compared in constant time.
/// 3. **Content type** (415, `content-type`): a control request other than GET and HEAD needs
///    `Content-Type: application/json` (parameters allowed), on loopback too: a web page can send a
///    cross-site `text/plain` POST without asking, never an `application/json` one.
///
/// A refusal is journaled as the hop's exchange with verdict `control.refused` and the reason first in its
/// detail (``ControlGuard/Refusal``). A pair without a guard (tests and fuzz targets drive the engines
/// without a listener) checks nothing; the server always installs one.
public struct ControlGuard: Sendable, Equatable {
    /// Whether every listener is bound to a loopback address only.
    public var loopback: Bool
    /// The token control requests carry as `Authorization: Bearer TOKEN`; nil when none was set (then no
    /// request can present it, and off loopback every control request is refused).
    public var token: String?
    /// The `Host` values a control request may carry, lower-case: `127.0.0.1:8080`, `authmock:8080`, and a
    /// name alone where a listener is on its scheme's default port.
    public private(set) var hosts: Set<String>

    /// The realm of the control plane's `WWW-Authenticate` challenge.
    public static let realm = "authmock-control"

    /// One listening port, and whether it speaks TLS (which makes 443 its default port).
    public struct Listener: Sendable, Equatable {
        public var port: Int
        public var tls: Bool

        public init(port: Int, tls: Bool) {
            self.port = port
            self.tls = tls
        }
    }

    /// A guard for listeners on `listeners`' ports answering to `names`.
    ///
    /// - Parameter names: host names and addresses without a port (`localhost`, `10.0.0.5`, `::1` or
    ///   `[::1]`); each is allowed with every listener's port, and alone for a listener on its scheme's
    ///   default port. A name given with a port (`authmock:8080`, `[::1]:9000`: a port mapping in front of
    ///   the server) is allowed as written.
    public init(loopback: Bool, token: String?, names: [String], listeners: [Listener]) {
        self.loopback = loopback
        self.token = token
        hosts = Self.authorities(names: names, listeners: listeners)
    }

    /// The `Host` values `names` allow on `listeners`.
    static func authorities(names: [String], listeners: [Listener]) -> Set<String> {
        var hosts: Set<String> = []
        for raw in names {
            let name = raw[...].trimmingOWS().lowercased()
            guard !name.isEmpty else { continue }
            switch Self.splitPort(name) {
            case (let host, .some):
                hosts.insert(host + name.dropFirst(host.count))
            case (let host, nil):
                for listener in listeners {
                    hosts.insert("\(host):\(listener.port)")
                    if listener.port == (listener.tls ? 443 : 80) { hosts.insert(host) }
                }
            }
        }
        return hosts
    }

    /// A name's host part (an IPv6 address in brackets) and its port, if it has one.
    static func splitPort(_ name: String) -> (host: String, port: Substring?) {
        if name.hasPrefix("[") {
            guard let close = name.firstIndex(of: "]") else { return (name, nil) }
            let host = String(name[...close])
            let rest = name[name.index(after: close)...]
            return rest.hasPrefix(":") ? (host, rest.dropFirst()) : (host, nil)
        }
        let colons = name.filter { $0 == ":" }.count
        if colons > 1 { return ("[\(name)]", nil) }  // an IPv6 address without brackets
        guard colons == 1, let colon = name.firstIndex(of: ":") else { return (name, nil) }
        return (String(name[..<colon]), name[name.index(after: colon)...])
    }

    // MARK: - The decision

    /// Why a control request was refused; the raw value starts the journal entry's detail.
    public enum Reason: String, Sendable, Equatable {
        case host
        case tokenMissing = "token-missing"
        case tokenWrong = "token-wrong"
        case contentType = "content-type"
    }

    /// A refused control request: its reason, the status and the sentence the answer and the journal carry.
    public struct Refusal: Sendable, Equatable {
        public var reason: Reason
        public var detail: String

        public var status: Int {
            switch reason {
            case .host: 403
            case .tokenMissing, .tokenWrong: 401
            case .contentType: 415
            }
        }
    }

    /// nil when `request` may use the control plane; otherwise why not.
    public func check(_ request: Request) -> Refusal? {
        if let refusal = checkHost(request) { return refusal }
        if let refusal = checkToken(request) { return refusal }
        return checkContentType(request)
    }

    private func checkHost(_ request: Request) -> Refusal? {
        let fields = request.headers.values("Host")
        guard fields.count == 1 else {
            let problem = fields.isEmpty ? "a request without Host" : "a request with \(fields.count) Host fields"
            return Refusal(reason: .host, detail: "\(problem) may not use the control plane")
        }
        let host = String(fields[0][...].trimmingOWS())
        guard !hosts.contains(host.lowercased()) else { return nil }
        let quoted = host.count > 200 ? String(host.prefix(200)) + "…" : host
        // The names (this machine's addresses among them) only to a caller on loopback: this answer comes
        // before the token is checked.
        let names = loopback ? " (names: \(hosts.sorted().joined(separator: ", ")))" : ""
        return Refusal(
            reason: .host,
            detail: "Host '\(quoted)' is not a name of this server\(names); "
                + "a container reached by another name is allowed with --control-host NAME"
        )
    }

    /// What the request presents as a control token.
    enum Presented: Equatable {
        case none
        case otherScheme(String)
        case bearer(Substring)
        case several
    }

    static func presented(_ request: Request) -> Presented {
        let fields = request.headers.values("Authorization")
        guard fields.count <= 1 else { return .several }
        guard let field = fields.first else { return .none }
        let (scheme, token) = Engine.schemeAndToken(field)
        guard scheme.equalsIgnoringASCIICase("Bearer") else { return .otherScheme(scheme) }
        return .bearer(token.trimmingOWS())
    }

    /// Whether `candidate` is the token, in time that does not depend on where they differ.
    /// An empty token (a library caller's `controlToken: ""`) matches nothing: the plane stays closed.
    func isToken(_ candidate: Substring) -> Bool {
        guard let token, !token.isEmpty, !candidate.isEmpty else { return false }
        return constantTimeEquals(Array(candidate.utf8), Array(token.utf8))
    }

    private func checkToken(_ request: Request) -> Refusal? {
        let needed = loopback ? "" : "this server listens beyond loopback, so "
        switch Self.presented(request) {
        case .bearer(let candidate):
            if isToken(candidate) { return nil }
            return Refusal(reason: .tokenWrong, detail: "the Bearer token is not this run's control token")
        case .several:
            return Refusal(reason: .tokenWrong, detail: "more than one Authorization field")
        case .none where loopback, .otherScheme where loopback:
            return nil
        case .none:
            return Refusal(
                reason: .tokenMissing,
                detail: needed + "control requests need Authorization: Bearer TOKEN (control_token in the ready line)"
            )
        case .otherScheme(let scheme):
            return Refusal(
                reason: .tokenMissing,
                detail: needed + "control requests need Authorization: Bearer TOKEN, not \(scheme)"
            )
        }
    }

    private func checkContentType(_ request: Request) -> Refusal? {
        guard request.method != "GET", request.method != "HEAD" else { return nil }
        let fields = request.headers.values("Content-Type")
        if fields.count == 1, Self.isJSON(fields[0]) { return nil }
        let sent = fields.isEmpty ? "no Content-Type" : "Content-Type '\(fields.joined(separator: ", ").prefix(100))'"
        return Refusal(
            reason: .contentType,
            detail: "\(request.method.prefix(20)) with \(sent): control requests other than GET and HEAD need "
                + "Content-Type: application/json"
        )
    }

    /// `application/json`, with or without parameters (`; charset=utf-8`), in any case.
    static func isJSON(_ value: String) -> Bool {
        let media = value.prefix { $0 != ";" }
        return String(media.trimmingOWS()).equalsIgnoringASCIICase("application/json")
    }

    // MARK: - The answer

    /// The answer to a refused request: 401 with the Bearer challenge, 403, or 415 with `Accept-Post`.
    public func response(to refusal: Refusal) -> Response {
        let status = refusal.status
        var response = Engine.plain(
            status: status, "\(status) \(Engine.reason(status)): \(refusal.reason.rawValue): \(refusal.detail)\n"
        )
        switch refusal.reason {
        case .tokenMissing:
            response.headers.append(HeaderField("WWW-Authenticate", "Bearer realm=\"\(Self.realm)\""))
        case .tokenWrong:
            response.headers.append(
                HeaderField("WWW-Authenticate", "Bearer realm=\"\(Self.realm)\", error=\"invalid_token\"")
            )
        case .contentType:
            response.headers.append(HeaderField("Accept-Post", "application/json"))
        case .host:
            break
        }
        response.headers.append(HeaderField("X-Authmock-Verdict", Verdict.controlRefused.rawValue))
        return response
    }

    /// The request's headers as the journal keeps them: the right token never, whatever else was wrong.
    func redacted(_ headers: [HeaderField]) -> [HeaderField] {
        headers.map { field in
            guard field.name.equalsIgnoringASCIICase("Authorization") else { return field }
            let (scheme, token) = Engine.schemeAndToken(field.value)
            guard scheme.equalsIgnoringASCIICase("Bearer"), isToken(token.trimmingOWS()) else { return field }
            return HeaderField(field.name, "Bearer (the control token)")
        }
    }

    // MARK: - Tokens

    /// A new control token: 32 bytes from `random` (256 bits), base64url without padding (43 characters).
    /// The shell passes the system's generator, never the scenario's seeded one: a seed makes nonces
    /// repeatable, and must not make the token guessable.
    public static func makeToken(using random: inout some RandomNumberGenerator) -> String {
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &random) }
        return Base64.encode(bytes, urlSafe: true)
    }

    /// Whether `token` can be sent as a Bearer token (RFC 6750's b64token): letters, digits, `-._~+/`, then
    /// `=` padding only.
    public static func isValidToken(_ token: String) -> Bool {
        let body = token.utf8.prefix { $0 != UInt8(ascii: "=") }
        guard !body.isEmpty, token.utf8.dropFirst(body.count).allSatisfy({ $0 == UInt8(ascii: "=") }) else {
            return false
        }
        return body.allSatisfy { byte in
            let letter = byte | 0x20
            return (letter >= UInt8(ascii: "a") && letter <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || "-._~+/".utf8.contains(byte)
        }
    }
}
