/// Where the forward proxy may take a request, decided from its target alone, before the proxy's
/// engine looks at credentials.
///
/// authmock's proxy reaches only the server's own origin listeners: anything else is refused here
/// with the status and verdict a client under test should meet (400, 403 or 414). Pure, so that every
/// refusal is testable without a socket.
///
/// ```swift
/// let routing = ProxyRouting.decide(method: "CONNECT", target: "localhost:8443") { port in
///     port == 8443 ? .https : nil
/// }
/// // routing == .tunnel(ProxyTarget(host: "localhost", port: 8443, isConnect: true, originForm: ""))
/// ```
public enum ProxyRouting: Sendable, Equatable {
    /// An absolute-form request to a plain-HTTP origin: forwarded in origin-form once the proxy grants it.
    case forward(ProxyTarget)
    /// A CONNECT to one of the origins: a tunnel opens once the proxy grants it.
    case tunnel(ProxyTarget)
    /// Refused before authentication.
    case refuse(status: Int, verdict: Verdict, detail: String)

    /// What an origin listener speaks, as the proxy sees it.
    public enum Origin: Sendable, Equatable {
        case http
        case https
    }

    /// - Parameter origin: the origin listening on a port, or nil when the port is none of the server's.
    public static func decide(method: String, target: String, origin: (Int) -> Origin?) -> ProxyRouting {
        let parsed: ProxyTarget
        do throws(ProxyTargetError) {
            parsed = try ProxyTarget.parse(method: method, target: target)
        } catch {
            return .refuse(status: error.status == 414 ? 414 : 400, verdict: .proxyBadTarget, detail: error.reason)
        }
        guard parsed.isLoopback else {
            let detail = "\(parsed.host):\(parsed.port) is not a loopback address; "
                + "authmock's proxy only reaches its own origins"
            return .refuse(status: 403, verdict: .proxyTargetRefused, detail: detail)
        }
        guard let listener = origin(parsed.port) else {
            return .refuse(
                status: 403, verdict: .proxyTargetRefused,
                detail: "\(parsed.host):\(parsed.port) is not one of this scenario's origins"
            )
        }
        if parsed.isConnect { return .tunnel(parsed) }
        guard listener == .http else {
            let detail = "port \(parsed.port) speaks HTTPS; send CONNECT for it, not an http:// request"
            return .refuse(status: 400, verdict: .proxyBadTarget, detail: detail)
        }
        return .forward(parsed)
    }
}
