#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `/_authmock/` endpoints, routed from one table, outside the engines that decide exchanges.
///
/// Control requests are not exchanges under test and are not journaled themselves; the user changes they
/// make are, through the pair's journal. Every route answers for a hop: the origin's endpoints, and the
/// proxy's users at `/_authmock/proxy/users…`, which the table hands to the proxy's engine.
///
/// | route | methods | answer |
/// |---|---|---|
/// | `/_authmock/[?after=N]` | GET, HEAD | the live page (``Engine/page(_:journal:)``), or its entries after N |
/// | `/_authmock/style.css` | GET, HEAD | the live page's stylesheet (the report's, ``HTMLStyle``) |
/// | `/_authmock/journal[?since=N]` | GET | the retained journal entries newer than N |
/// | `/_authmock/reset` | POST | both engines and the journal start over |
/// | `/_authmock/tls` | GET | the shell's TLS description (404 without TLS) |
/// | `/_authmock/tls/rotate[?keep-key=false]` | POST | asks the shell to rotate the certificate |
/// | `/_authmock/users`, `/_authmock/users/NAME` | GET, POST | the users, a change of one |
/// | `/_authmock/proxy/users…` | GET, POST | the same, for the proxy's users |
///
/// Before any route, the pair's ``ControlGuard`` (installed by the server) checks the request's Host, control
/// token and content type; a refusal is the one control answer that is journaled (`control.refused`).
public enum ControlPlane {
    /// The reserved path prefix; scenarios cannot serve paths under it.
    public static let prefix = "/_authmock/"
    /// The prefix without its slash, made once: every request is asked whether it is the control plane's.
    static let root = String(prefix.dropLast())

    /// Whether the path is the control plane's: under the prefix, or the prefix without its slash.
    public static func isControl(_ path: String) -> Bool {
        path.hasPrefix(prefix) || path == root
    }

    /// One route: the endpoints it serves (after the prefix) and its answer.
    struct Route: Sendable {
        enum Match: Sendable {
            case exact(String)
            case prefix(String)

            func matches(_ endpoint: Substring) -> Bool {
                switch self {
                case .exact(let name): endpoint == name
                case .prefix(let start): endpoint.hasPrefix(start)
                }
            }
        }

        var match: [Match]
        var answer: @Sendable (inout EnginePair, Hop, Request, Substring, Date) -> Exchange
    }

    /// The table, in the order it is searched.
    static let routes: [Route] = [
        Route(match: [.prefix("proxy/users")], answer: proxyUsers),
        Route(match: [.exact("users"), .prefix("users/")], answer: users),
        Route(match: [.exact("")], answer: page),
        Route(match: [.exact("style.css")], answer: style),
        Route(match: [.exact("tls")], answer: tls),
        Route(match: [.exact("tls/rotate")], answer: rotate),
        Route(match: [.exact("journal")], answer: journal),
        Route(match: [.exact("reset")], answer: reset),
    ]

    /// Answers a control request to `hop`: refused by the pair's ``ControlGuard`` (and journaled), or routed.
    static func answer(_ request: Request, hop: Hop, pair: inout EnginePair, now: Date) -> Exchange {
        if let controlGuard = pair.controlGuard, let refusal = controlGuard.check(request) {
            return refuse(request, refusal, guard: controlGuard, hop: hop, pair: &pair, now: now)
        }
        return route(request, hop: hop, pair: &pair, now: now)
    }

    /// A refused control request, journaled as `hop`'s exchange with verdict `control.refused`; the entry
    /// never shows the right token.
    static func refuse(
        _ request: Request, _ refusal: ControlGuard.Refusal, guard controlGuard: ControlGuard, hop: Hop,
        pair: inout EnginePair, now: Date
    ) -> Exchange {
        let response = controlGuard.response(to: refusal)
        var recorded = request
        recorded.headers = controlGuard.redacted(request.headers)
        return pair.onEngine(hop) { engine, _, journal in
            var entry = JournalEntry(
                request: recorded, connection: request.connection, time: now, verdict: .controlRefused,
                detail: "\(refusal.reason.rawValue): \(refusal.detail)", status: refusal.status
            )
            entry.bodySHA256 = nil
            return Exchange(response: response, entry: engine.append(entry, to: &journal))
        } ?? EnginePair.noProxy
    }

    /// Routes an allowed control request to its endpoint.
    static func route(_ request: Request, hop: Hop, pair: inout EnginePair, now: Date) -> Exchange {
        let path = request.path
        let endpoint = path.dropFirst(min(prefix.count, path.count))
        for route in routes where route.match.contains(where: { $0.matches(endpoint) }) {
            // The proxy's users are reached through the origin's prefix only.
            if hop == .proxy, case .prefix("proxy/users") = route.match[0] { continue }
            return route.answer(&pair, hop, request, endpoint, now)
        }
        return Exchange(response: Engine.plain(status: 404, notFound(path)))
    }

    static func notFound(_ path: String) -> String {
        "404 Not Found: no control endpoint \(path) (have: GET /_authmock/ (the live page), "
            + "GET /_authmock/style.css, GET /_authmock/journal, "
            + "POST /_authmock/reset, GET /_authmock/tls, POST /_authmock/tls/rotate, GET /_authmock/users, "
            + "POST /_authmock/users/NAME)\n"
    }

    // MARK: - Routes

    /// `/_authmock/proxy/users…`: the proxy's `/_authmock/users…`; a 404 without a proxy.
    static func proxyUsers(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        var forwarded = request
        forwarded.target = prefix + String(request.target.dropFirst((prefix + "proxy/").count))
        // Routed, not answered again: the guard checked the request once, at the origin.
        guard pair.hasEngine(.proxy) else { return EnginePair.noProxy }
        return route(forwarded, hop: .proxy, pair: &pair, now: now)
    }

    static func users(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        let name = endpoint == "users" ? nil : String(endpoint.dropFirst("users/".count))
        return pair.onEngine(hop) { engine, _, journal in
            // Steps that came due while no request arrived apply first, so the answer is current.
            engine.startIfIdle(at: now)
            let due = engine.applyStepsBeforeRequest(now: now, journal: &journal)
            var exchange = engine.usersControl(request, name: name, now: now, journal: &journal)
            exchange.events = due + exchange.events
            return exchange
        } ?? EnginePair.noProxy
    }

    static func page(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        let journal = pair.journal
        return pair.onEngine(hop) { engine, _, _ in Exchange(response: engine.page(request, journal: journal)) }
            ?? EnginePair.noProxy
    }

    static func style(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        pair.onEngine(hop) { engine, _, _ in Exchange(response: engine.pageStyle(request)) } ?? EnginePair.noProxy
    }

    static func tls(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        guard request.method == "GET" else { return Exchange(response: Engine.methodNotAllowed(allow: "GET")) }
        guard let description = pair.engine(hop)?.tlsDescription else { return Exchange(response: noTLS) }
        let json = [HeaderField("Content-Type", "application/json")]
        return Exchange(response: Response(status: 200, headers: json, body: description))
    }

    static func rotate(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        guard request.method == "POST" else { return Exchange(response: Engine.methodNotAllowed(allow: "POST")) }
        guard let engine = pair.engine(hop), engine.tlsDescription != nil else { return Exchange(response: noTLS) }
        let asked = Engine.queryItem("keep-key", in: request.target).map { $0 != "false" }
        let keepKey = asked ?? (engine.scenario.tls?.rotateKeepsKey ?? true)
        return Exchange(
            response: Engine.json(["rotating": true, "keep_key": keepKey]),
            actions: [.rotateCertificate(keepKey: keepKey)]
        )
    }

    static func journal(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        guard let since = Engine.journalPageRequest(request) else {
            return Exchange(response: Engine.methodNotAllowed(allow: "GET"))
        }
        return Exchange(response: Engine.json(pair.journalPage(since: since)))
    }

    static func reset(_ pair: inout EnginePair, _ hop: Hop, _ request: Request, _ endpoint: Substring, _ now: Date)
        -> Exchange
    {
        guard request.method == "POST" else { return Exchange(response: Engine.methodNotAllowed(allow: "POST")) }
        pair.resetByControl(hop, at: now)
        return Exchange(response: Engine.json(["reset": true]))
    }

    static var noTLS: Response { Engine.plain(status: 404, "404 Not Found: this scenario serves no TLS\n") }
}
