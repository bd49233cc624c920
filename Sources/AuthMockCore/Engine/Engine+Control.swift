import Foundation

extension Engine {
    /// The control endpoints under `/_authmock/`. They are not exchanges under test and are not journaled.
    mutating func control(_ request: Request, now: Date) -> Exchange {
        let endpoint = String(request.path.dropFirst(Self.controlPrefix.count))
        if endpoint == "users" || endpoint.hasPrefix("users/") {
            // Steps that came due while no request arrived apply first, so the answer is current.
            if scenarioState.startedAt == nil { scenarioState.startedAt = now }
            let due = applyStepsBeforeRequest(now: now)
            var exchange = usersControl(request, name: endpoint == "users" ? nil : String(endpoint.dropFirst("users/".count)), now: now)
            exchange.events = due + exchange.events
            return exchange
        }
        switch endpoint {
        case "":
            return Exchange(response: page(request))
        case "tls":
            guard request.method == "GET" else { return Exchange(response: Self.methodNotAllowed(allow: "GET")) }
            guard let description = scenarioState.tlsDescription else {
                return Exchange(response: Self.plain(status: 404, "404 Not Found: this scenario serves no TLS\n"))
            }
            return Exchange(response: Response(status: 200, headers: [HeaderField("Content-Type", "application/json")], body: description))
        case "tls/rotate":
            guard request.method == "POST" else { return Exchange(response: Self.methodNotAllowed(allow: "POST")) }
            guard scenarioState.tlsDescription != nil else {
                return Exchange(response: Self.plain(status: 404, "404 Not Found: this scenario serves no TLS\n"))
            }
            let keepKey = Self.queryItem("keep-key", in: request.target).map { $0 != "false" } ?? (scenario.tls?.rotateKeepsKey ?? true)
            return Exchange(response: Self.json(["rotating": true, "keep_key": keepKey]), actions: [.rotateCertificate(keepKey: keepKey)])
        default:
            return Exchange(response: controlResponse(request, now: now))
        }
    }

    private mutating func controlResponse(_ request: Request, now: Date) -> Response {
        let endpoint = String(request.path.dropFirst(Self.controlPrefix.count))
        switch endpoint {
        case "journal":
            guard let since = Self.journalPageRequest(request) else { return Self.methodNotAllowed(allow: "GET") }
            return Self.json(journalPage(since: since))
        case "reset":
            guard request.method == "POST" else { return Self.methodNotAllowed(allow: "POST") }
            reset(at: now)
            return Self.json(["reset": true])
        default:
            return Self.plain(status: 404, "404 Not Found: no control endpoint \(request.path) (have: GET /_authmock/ (the live page), GET /_authmock/journal, POST /_authmock/reset, GET /_authmock/tls, POST /_authmock/tls/rotate, GET /_authmock/users, POST /_authmock/users/NAME)\n")
        }
    }

    /// For `GET /_authmock/journal[?since=N]`, the `since` value (0 when absent); nil for any other request.
    /// The server uses it to encode the page outside its lock.
    public static func journalPageRequest(_ request: Request) -> Int? {
        guard request.method == "GET", request.path == controlPrefix + "journal" else { return nil }
        return queryItem("since", in: request.target).flatMap(Int.init) ?? 0
    }

    /// The retained journal entries newer than `since`.
    public func journalPage(since: Int) -> JournalPage {
        JournalPage(entries: log.journal.entries.filter { $0.seq > since }, evicted: log.journal.evicted)
    }

    /// The body of `GET /_authmock/journal`.
    public struct JournalPage: Codable, Sendable, Equatable {
        public var entries: [JournalEntry]
        /// How many entries fell out of the in-memory ring since start or the last reset.
        public var evicted: Int
    }

    public static func json(_ value: some Encodable) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let body = (try? encoder.encode(value)).map { Array($0) + [UInt8(ascii: "\n")] } ?? Array("{}\n".utf8)
        return Response(status: 200, headers: [HeaderField("Content-Type", "application/json")], body: body)
    }

    static func methodNotAllowed(allow: String) -> Response {
        var response = plain(status: 405, "405 Method Not Allowed\n")
        response.headers.append(HeaderField("Allow", allow))
        return response
    }

    static func queryItem(_ name: String, in target: String) -> String? {
        guard let query = target.split(separator: "?", maxSplits: 1).dropFirst().first else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.first == Substring(name) { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }
}
