#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The answers the control plane (``ControlPlane``) builds from, and the journal page's shape.
extension Engine {
    /// Made once: every request is asked whether it is this one (the joined path is too long to be a
    /// small string, so joining it per request allocated).
    static let journalPath = ControlPlane.prefix + "journal"

    /// For `GET /_authmock/journal[?since=N]`, the `since` value (0 when absent); nil for any other request.
    /// The server uses it to encode the page outside its lock.
    public static func journalPageRequest(_ request: Request) -> Int? {
        guard request.method == "GET", request.path == journalPath else { return nil }
        return queryItem("since", in: request.target).flatMap(Int.init) ?? 0
    }

    /// The retained entries of `journal` newer than `since`.
    static func journalPage(_ journal: Journal, since: Int) -> JournalPage {
        JournalPage(entries: journal.entries.filter { $0.seq > since }, evicted: journal.evicted)
    }

    /// What `GET /_authmock/tls` serves, set by the shell.
    var tlsDescription: [UInt8]? { scenarioState.tlsDescription }

    /// Marks the start of the scenario at `now` unless a request already did.
    mutating func startIfIdle(at now: Date) {
        if scenarioState.startedAt == nil { scenarioState.startedAt = now }
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
