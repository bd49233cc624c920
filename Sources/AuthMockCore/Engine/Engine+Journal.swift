import Foundation
internal import Crypto

extension Engine {
    /// Records a TLS connection when it closes: its handshake, and whether any request arrived on it.
    ///
    /// - Parameters:
    ///   - failure: why the handshake failed, or nil when it completed.
    ///   - requests: how many HTTP requests the connection carried.
    public mutating func recordTLSConnection(
        _ connection: ConnectionInfo, failure: String?, requests: Int, now: Date
    ) -> JournalEntry {
        let verdict: Verdict
        let detail: String
        if let failure {
            verdict = .tlsHandshakeFailed
            detail = failure
        } else if requests == 0 {
            verdict = .tlsNoRequest
            detail = "the handshake completed, then the client closed without sending a request"
        } else {
            verdict = .tlsOK
            detail = "\(requests) request(s) over \(connection.tls?.version ?? "TLS")"
        }
        return recordConnection(connection, verdict: verdict, detail: detail, requests: requests, now: now)
    }

    /// Records a connection the shell closed at once because it already held `limit` connections.
    public mutating func recordRefusedConnection(_ connection: ConnectionInfo, limit: Int, now: Date) -> JournalEntry {
        recordConnection(
            connection, verdict: .connectionLimit, detail: "closed at once: the server already holds \(limit) connections (--max-connections)",
            requests: nil, now: now
        )
    }

    /// A journal entry about a connection rather than a request: status 0, nothing was answered.
    mutating func recordConnection(
        _ connection: ConnectionInfo, verdict: Verdict, detail: String, requests: Int?, now: Date
    ) -> JournalEntry {
        let entry = JournalEntry(
            seq: 0, time: now, connection: connection.id, exchange: 0, remote: connection.remote, method: nil,
            target: nil, version: nil, headers: [], bodyBytes: 0, credentials: nil, verdict: verdict, detail: detail, status: 0,
            challenges: nil, tls: connection.tls, requests: requests
        )
        return log.append(entry)
    }

    /// Records a request the shell refused before it could be handed over whole (unparseable, headers too
    /// large, body too large), so that no exchange goes unjournaled.
    public mutating func reject(
        partial request: Request?, connection: ConnectionInfo, status: Int, verdict: Verdict, detail: String, now: Date
    ) -> Exchange {
        let response = Self.plain(status: status, "\(status) \(Self.reason(status)): \(detail)\n", close: true)
        var entry = JournalEntry(
            seq: 0, time: now, connection: connection.id, exchange: connection.exchange, remote: connection.remote,
            method: request?.method, target: request?.target, version: request?.version,
            headers: (request?.headers ?? []).map(Self.recorded), bodyBytes: request?.body.count ?? 0, credentials: nil,
            verdict: verdict, detail: detail, status: status, challenges: nil, tls: connection.tls
        )
        entry = log.append(entry)
        return Exchange(response: response, entry: entry)
    }

    /// Appends entries another engine decided (the proxy's) to this journal, and continues the sequence
    /// after them, so that one journal tells both hops in order.
    public mutating func adopt(_ entries: [JournalEntry]) {
        log.adopt(entries)
    }

    /// Continues numbering journal entries at `seq` (see ``adopt(_:)``).
    public mutating func continueSequence(at seq: Int) {
        log.continueSequence(at: seq)
    }

    mutating func record(
        request: Request, now: Date, credentials: PresentedCredentials?, verdict: Verdict, detail: String?, response: Response
    ) -> JournalEntry {
        let challenges = response.headers.values(challengeHeader)
        var entry = JournalEntry(
            seq: 0, time: now, connection: request.connection.id, exchange: request.connection.exchange,
            remote: request.connection.remote, method: request.method, target: request.target, version: request.version,
            headers: request.headers.map(Self.recorded), bodyBytes: request.body.count, credentials: credentials,
            verdict: verdict, detail: detail, status: response.status, challenges: challenges.isEmpty ? nil : challenges,
            tls: request.connection.tls, hop: role == .proxy ? "proxy" : nil, leaks: Self.leaks(in: request, role: role),
            bodySHA256: request.body.isEmpty ? nil : SHA256.hash(data: request.body).hexString
        )
        entry.fault = response.fault?.journalText
        return log.append(entry)
    }

    static let credentialHeaders: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Credentials sent to the wrong party: proxy credentials reaching the origin, or origin credentials
    /// sent to the proxy on CONNECT (where they are never needed and the proxy can read them).
    static func leaks(in request: Request, role: Role) -> [String]? {
        var leaks: [String] = []
        if role == .origin, !request.headers.values("Proxy-Authorization").isEmpty {
            leaks.append("Proxy-Authorization reached the origin")
        }
        if role == .proxy, request.method == "CONNECT", !request.headers.values("Authorization").isEmpty {
            leaks.append("Authorization (origin credentials) was sent to the proxy on CONNECT")
        }
        return leaks.isEmpty ? nil : leaks
    }

    static func recorded(_ field: HeaderField) -> JournalEntry.RecordedHeader {
        JournalEntry.RecordedHeader(
            name: field.name, value: field.value, credential: credentialHeaders.contains(field.name.lowercased()) ? true : nil
        )
    }
}
