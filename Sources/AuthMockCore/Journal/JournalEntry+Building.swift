#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The three kinds of entries the engine journals, built in one place each. They leave `seq` at 0 and
/// `hop` unset: ``Engine/append(_:)`` sets both when the entry is kept.
extension JournalEntry {
    /// An exchange: the request as far as it was read (nil when not even its head was), what the engine
    /// made of it and the status sent back.
    init(
        request: Request?, connection: ConnectionInfo, time: Date, verdict: Verdict, detail: String?, status: Int,
        credentials: PresentedCredentials? = nil, challenges: [String]? = nil
    ) {
        let body = request?.body ?? []
        // The request's header fields as they came, marked when read (see ``RecordedHeaders``).
        self.init(fields: Fields(
            seq: 0, time: time, connection: connection.id, exchange: connection.exchange, remote: connection.remote,
            method: request?.method, target: request?.target, version: request?.version,
            headers: RecordedHeaders(request: request?.headers ?? []), bodyBytes: body.count,
            bodySHA256: body.isEmpty ? nil : HashFunction.sha256.hash(body).hexString, credentials: credentials,
            verdict: verdict, detail: detail, status: status, challenges: challenges, tls: connection.tls,
            httpProtocol: connection.httpProtocol.rawValue, stream: connection.stream
        ))
    }

    /// A connection rather than a request (a TLS handshake, a refused connection): status 0, nothing was
    /// answered.
    init(connection: ConnectionInfo, time: Date, verdict: Verdict, detail: String, requests: Int?) {
        self.init(
            seq: 0, time: time, connection: connection.id, exchange: 0, remote: connection.remote, method: nil,
            target: nil, version: nil, headers: [], bodyBytes: 0, credentials: nil, verdict: verdict, detail: detail,
            status: 0, challenges: nil, tls: connection.tls, requests: requests
        )
    }

    /// A change to a user (a timeline step, the control endpoint, the host): status 0, on no connection.
    init(userChange user: String, time: Date, verdict: Verdict, detail: String) {
        self.init(
            seq: 0, time: time, connection: 0, exchange: 0, remote: nil, method: nil, target: nil, version: nil,
            headers: [], bodyBytes: 0, credentials: PresentedCredentials(header: "", scheme: "", user: user),
            verdict: verdict, detail: detail, status: 0, challenges: nil
        )
    }
}
