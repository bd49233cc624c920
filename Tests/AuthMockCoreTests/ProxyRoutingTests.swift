@testable import AuthMockCore
import Testing

/// Where the forward proxy may take a request, from its target alone: the refusals a client meets
/// before the proxy asks for credentials, and the two ways through.
@Suite
struct ProxyRoutingTests {
    /// The server's origins in these tests: plain HTTP on 8080, HTTPS on 8443.
    static func origin(_ port: Int) -> ProxyRouting.Origin? {
        switch port {
        case 8080: .http
        case 8443: .https
        default: nil
        }
    }

    static func decide(_ method: String, _ target: String) -> ProxyRouting {
        ProxyRouting.decide(method: method, target: target, origin: origin)
    }

    /// A CONNECT to one of the origins, plain or TLS, opens a tunnel.
    @Test(arguments: ["127.0.0.1:8080", "localhost:8443", "[::1]:8443"])
    func connectToAnOriginTunnels(target: String) throws {
        guard case .tunnel(let parsed) = Self.decide("CONNECT", target) else {
            Issue.record("expected a tunnel, got \(Self.decide("CONNECT", target))")
            return
        }
        #expect(parsed.isConnect)
    }

    /// An absolute-form request to the plain origin is forwarded in origin-form, query included.
    @Test func absoluteFormToThePlainOriginIsForwardedInOriginForm() {
        let routing = Self.decide("GET", "http://127.0.0.1:8080/a?b=c")
        #expect(routing == .forward(ProxyTarget(host: "127.0.0.1", port: 8080, isConnect: false, originForm: "/a?b=c")))
    }

    /// Each refusal has its status and verdict, and a detail that says what would be right.
    @Test(arguments: [
        ("GET", "http://127.0.0.1:8443/", 400, Verdict.proxyBadTarget, "send CONNECT for it"),
        ("GET", "https://127.0.0.1:8443/", 400, .proxyBadTarget, "use CONNECT for HTTPS"),
        ("GET", "/relative", 400, .proxyBadTarget, "needs absolute-form"),
        ("CONNECT", "example.com:443", 403, .proxyTargetRefused, "not a loopback address"),
        ("CONNECT", "127.0.0.1:9", 403, .proxyTargetRefused, "not one of this scenario's origins"),
        ("GET", "http://127.0.0.1:8080/" + String(repeating: "a", count: ProxyTarget.maxLength), 414, .proxyBadTarget, "more than"),
    ])
    func refusals(method: String, target: String, status: Int, verdict: Verdict, says: String) {
        guard case .refuse(let gotStatus, let gotVerdict, let detail) = Self.decide(method, target) else {
            Issue.record("\(method) \(target.prefix(60)) was not refused")
            return
        }
        #expect(gotStatus == status)
        #expect(gotVerdict == verdict)
        #expect(detail.contains(says), "\(detail)")
    }
}
