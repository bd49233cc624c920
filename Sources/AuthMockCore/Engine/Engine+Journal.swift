#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Engine {
    /// Keeps an entry in the journal. Every entry an engine produces passes here: the log gives it its
    /// `seq`, and a proxy's engine marks it `hop: proxy`.
    func append(_ entry: consuming JournalEntry, to journal: inout JournalLog) -> JournalEntry {
        if hop == .proxy { entry.hop = .proxy }
        // Handed on, not copied: a copy still alive here would make the log's numbering copy the entry's box.
        return journal.append(consume entry)
    }

    /// Journals a decided exchange: with what the request leaked and the fault played on the answer.
    mutating func record(
        request: Request, now: Date, credentials: PresentedCredentials?, verdict: Verdict, detail: String?,
        response: Response, journal: inout JournalLog
    ) -> JournalEntry {
        let challenges = response.headers.values(challengeHeader)
        var entry = JournalEntry(
            request: request, connection: request.connection, time: now, verdict: verdict, detail: detail,
            status: response.status, credentials: credentials,
            challenges: challenges.isEmpty ? nil : Self.journaled(challenges)
        )
        entry.responseHeaders = Self.journaled(response.headers)
        entry.leaks = Self.leaks(in: request, hop: hop, foreignUsers: foreignUsers)
        if verdict == .bearerRefreshToken {
            entry.leaks = (entry.leaks ?? []) + ["a refresh token was sent to the resource server"]
        }
        entry.fault = response.fault?.journalText(over: request.connection.httpProtocol)
        entry.reset = response.streamReset?.rawValue
        entry.hostile = response.hostile
        entry.cookies = returnedCookies(in: request)
        if verdict == .ntlmConnectionAuthenticated { entry.connectionUser = ntlmUser(on: request.connection.id) }
        return append(consume entry, to: &journal)  // moved, so the log numbers it in place
    }

    /// The scenario's cookies that came back in `Cookie` (the journal's `cookies`); nil when none did.
    func returnedCookies(in request: Request) -> [String]? {
        guard hop == .origin, !serverCookies.isEmpty else { return nil }
        let names = SetCookie.returned(serverCookies, inCookieFields: request.headers.values("Cookie"))
        return names.isEmpty ? nil : names
    }

    /// The challenges as the journal keeps them: at most 32 fields, each cut to 512 bytes, saying what was
    /// left out. A hostile scenario sends megabytes; the entry's `hostile` describes all of it.
    static func journaled(_ challenges: [String]) -> [String] {
        guard challenges.count > 32 || challenges.contains(where: { $0.utf8.count > 512 }) else { return challenges }
        var kept = challenges.prefix(32).map { value in
            value.utf8.count > 512
                ? String(decoding: value.utf8.prefix(256), as: UTF8.self) + "… (\(value.utf8.count) bytes)" : value
        }
        if challenges.count > 32 { kept.append("… \(challenges.count - 32) more fields") }
        return kept
    }

    /// The answer's fields as the journal keeps them: shared with the response (no copy) unless a hostile
    /// answer needs them bounded like ``journaled(_:)-([String])``; nil when there are none.
    static func journaled(_ fields: [HeaderField]) -> [HeaderField]? {
        if fields.isEmpty { return nil }
        guard fields.count > 32 || fields.contains(where: { $0.value.utf8.count > 512 }) else { return fields }
        let values = journaled(fields.prefix(32).map(\.value))
        var kept = zip(fields.prefix(32), values).map { HeaderField($0.name, $1) }
        if fields.count > 32 { kept.append(HeaderField("…", "\(fields.count - 32) more fields")) }
        return kept
    }

    /// Records a request the shell refused (unparseable, headers or body too large, a header timeout, a proxy
    /// target the proxy may not reach), so that no exchange goes unjournaled. The answer says
    /// `Connection: close`; ``EnginePair/reject(_:connection:hop:status:verdict:detail:close:now:)`` decides
    /// whether it really closes.
    public mutating func reject(
        partial request: Request?, connection: ConnectionInfo, status: Int, verdict: Verdict, detail: String, now: Date,
        journal: inout JournalLog
    ) -> Exchange {
        var response = Self.plain(status: status, "\(status) \(Self.reason(status)): \(detail)\n", close: true)
        if let oauth = scenario.oauth, request?.resourcePath == oauth.tokenPath {
            // A token request the shell refused (a body over its limit) is still answered as RFC 6749 §5.2 says.
            response = TokenError(.invalidRequest, verdict, detail, status: status).response(realm: scenario.realm)
            response.closeConnection = true
        }
        var entry = JournalEntry(
            request: request, connection: connection, time: now, verdict: verdict, detail: detail, status: status
        )
        // A refusal records the body's size, not its hash: the hash is for bodies the engine judged.
        entry.bodySHA256 = nil
        entry.responseHeaders = Self.journaled(response.headers)
        entry = append(consume entry, to: &journal)
        return Exchange(response: response, entry: entry)
    }

    /// Records an HTTP/2 stream or connection the shell ended with an error instead of an answer (a stream
    /// refused after GOAWAY, a malformed stream, a connection error, a stream the client reset before its
    /// request was whole), so that no stream goes unjournaled. Status 0: no response was sent.
    ///
    /// - Parameters:
    ///   - request: the request as far as it was read; nil when its header block never made one.
    ///   - reset: the `RST_STREAM` error code sent (`REFUSED_STREAM`), if any.
    ///   - goaway: the `GOAWAY` error code sent (`PROTOCOL_ERROR`), if any.
    public mutating func recordHTTP2Failure(
        _ request: Request?, connection: ConnectionInfo, reset: String?, goaway: String?, verdict: Verdict,
        detail: String, now: Date, journal: inout JournalLog
    ) -> JournalEntry {
        var entry = JournalEntry(
            request: request, connection: connection, time: now, verdict: verdict, detail: detail, status: 0
        )
        entry.bodySHA256 = nil
        entry.reset = reset
        entry.goaway = goaway
        return append(consume entry, to: &journal)
    }

    /// Records a TLS connection when it closes: its handshake, and whether any request arrived on it.
    ///
    /// - Parameters:
    ///   - failure: why the handshake failed, or nil when it completed.
    ///   - requests: how many HTTP requests the connection carried.
    ///   - plainHTTP: the failure was plain HTTP where TLS was expected (`tls.plain-http`).
    public mutating func recordTLSConnection(
        _ connection: ConnectionInfo, failure: String?, requests: Int, plainHTTP: Bool = false, now: Date,
        journal: inout JournalLog
    ) -> JournalEntry {
        let verdict: Verdict
        let detail: String
        if let failure {
            verdict = plainHTTP ? .tlsPlainHTTP : .tlsHandshakeFailed
            detail = failure
        } else if requests == 0 {
            verdict = .tlsNoRequest
            detail = "the handshake completed, then the client closed without sending a request"
        } else {
            verdict = .tlsOK
            detail = "\(requests) request(s) over \(connection.tls?.version ?? "TLS")"
        }
        let entry = JournalEntry(
            connection: connection, time: now, verdict: verdict, detail: detail, requests: requests
        )
        return append(consume entry, to: &journal)
    }

    /// Records a connection the shell closed at once because it already held `limit` connections.
    public func recordRefusedConnection(
        _ connection: ConnectionInfo, limit: Int, now: Date, journal: inout JournalLog
    ) -> JournalEntry {
        append(JournalEntry(
            connection: connection, time: now, verdict: .connectionLimit,
            detail: "closed at once: the server already holds \(limit) connections (--max-connections)", requests: nil
        ), to: &journal)
    }

    static let credentialHeaders = ["authorization", "proxy-authorization", "cookie"]

    /// Credentials sent to the wrong party: proxy credentials reaching the origin, origin credentials sent
    /// to the proxy on CONNECT (where they are never needed and the proxy can read them), or the origin's
    /// user and password in the proxy's own header (a client that took one for the other).
    static func leaks(in request: Request, hop: Hop, foreignUsers: [User] = []) -> [String]? {
        var leaks: [String] = []
        if hop == .origin, request.headers.first("Proxy-Authorization") != nil {
            leaks.append("Proxy-Authorization reached the origin")
        }
        if hop == .proxy, request.method == "CONNECT", request.headers.first("Authorization") != nil {
            leaks.append("Authorization (origin credentials) was sent to the proxy on CONNECT")
        }
        if !foreignUsers.isEmpty {
            for value in request.headers.values(hop.credentialsHeader) {
                guard let basic = BasicCredentials(field: value) else { continue }
                // Every foreign user is compared, in constant time, so the time says nothing of which matched.
                let matched = foreignUsers.reduce(into: [String]()) { names, user in
                    let sameName = constantTimeEquals(Array(user.name.utf8), Array(basic.user.utf8))
                    let samePassword = constantTimeEquals(Array(user.password.utf8), basic.password)
                    if sameName && samePassword {
                        names.append(user.name)
                    }
                }
                if let name = matched.first {
                    leaks.append(
                        "\(hop.credentialsHeader) carried the origin's credentials (user \(name)), not the proxy's"
                    )
                }
            }
        }
        return leaks.isEmpty ? nil : leaks
    }

    /// A header as the journal records it, marked when it carries a credential.
    static func recorded(_ field: HeaderField) -> JournalEntry.RecordedHeader {
        JournalEntry.RecordedHeader(
            name: field.name, value: field.value,
            credential: credentialHeaders.contains { $0.equalsIgnoringASCIICase(field.name) } ? true : nil
        )
    }
}
