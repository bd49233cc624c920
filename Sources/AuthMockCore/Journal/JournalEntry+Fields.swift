#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The JSON of an entry's fields (the `--journal` file's lines, `/_authmock/journal`, the live page); in an
/// extension, so that Fields keeps its memberwise initializer.
extension JournalEntry.Fields {
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(Int.self, forKey: .seq)
        let timeText = try container.decode(String.self, forKey: .time)
        guard let parsed = try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(timeText) else {
            throw DecodingError.dataCorruptedError(
                forKey: .time, in: container, debugDescription: "not an ISO 8601 time: \(timeText)"
            )
        }
        time = parsed
        connection = try container.decode(UInt64.self, forKey: .connection)
        exchange = try container.decode(Int.self, forKey: .exchange)
        remote = try container.decodeIfPresent(String.self, forKey: .remote)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        target = try container.decodeIfPresent(String.self, forKey: .target)
        version = try container.decodeIfPresent(String.self, forKey: .version)
        headers = RecordedHeaders(try container.decode([JournalEntry.RecordedHeader].self, forKey: .headers))
        bodyBytes = try container.decode(Int.self, forKey: .bodyBytes)
        bodySHA256 = try container.decodeIfPresent(String.self, forKey: .bodySHA256)
        credentials = try container.decodeIfPresent(PresentedCredentials.self, forKey: .credentials)
        verdict = try container.decode(Verdict.self, forKey: .verdict)
        detail = try container.decodeIfPresent(String.self, forKey: .detail)
        status = try container.decode(Int.self, forKey: .status)
        challenges = try container.decodeIfPresent([String].self, forKey: .challenges)
        tls = try container.decodeIfPresent(TLSFacts.self, forKey: .tls)
        requests = try container.decodeIfPresent(Int.self, forKey: .requests)
        hop = try container.decodeIfPresent(Hop.self, forKey: .hop)
        leaks = try container.decodeIfPresent([String].self, forKey: .leaks)
        fault = try container.decodeIfPresent(String.self, forKey: .fault)
        httpProtocol = try container.decodeIfPresent(String.self, forKey: .httpProtocol)
        stream = try container.decodeIfPresent(Int.self, forKey: .stream)
        reset = try container.decodeIfPresent(String.self, forKey: .reset)
        goaway = try container.decodeIfPresent(String.self, forKey: .goaway)
        hostile = try container.decodeIfPresent(String.self, forKey: .hostile)
        cookies = try container.decodeIfPresent([String].self, forKey: .cookies)
        socks5 = try container.decodeIfPresent(SOCKS5Facts.self, forKey: .socks5)
        connectionUser = try container.decodeIfPresent(String.self, forKey: .connectionUser)
        responseHeaders = try container.decodeIfPresent([HeaderField].self, forKey: .responseHeaders)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(time), forKey: .time)
        try container.encode(connection, forKey: .connection)
        try container.encode(exchange, forKey: .exchange)
        try container.encodeIfPresent(remote, forKey: .remote)
        try container.encodeIfPresent(method, forKey: .method)
        try container.encodeIfPresent(target, forKey: .target)
        try container.encodeIfPresent(version, forKey: .version)
        try container.encode(headers.recorded, forKey: .headers)
        try container.encode(bodyBytes, forKey: .bodyBytes)
        try container.encodeIfPresent(bodySHA256, forKey: .bodySHA256)
        try container.encodeIfPresent(credentials, forKey: .credentials)
        try container.encode(verdict, forKey: .verdict)
        try container.encodeIfPresent(detail, forKey: .detail)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(challenges, forKey: .challenges)
        try container.encodeIfPresent(tls, forKey: .tls)
        try container.encodeIfPresent(requests, forKey: .requests)
        try container.encodeIfPresent(hop, forKey: .hop)
        try container.encodeIfPresent(leaks, forKey: .leaks)
        try container.encodeIfPresent(fault, forKey: .fault)
        try container.encodeIfPresent(httpProtocol, forKey: .httpProtocol)
        try container.encodeIfPresent(stream, forKey: .stream)
        try container.encodeIfPresent(reset, forKey: .reset)
        try container.encodeIfPresent(goaway, forKey: .goaway)
        try container.encodeIfPresent(hostile, forKey: .hostile)
        try container.encodeIfPresent(cookies, forKey: .cookies)
        try container.encodeIfPresent(socks5, forKey: .socks5)
        try container.encodeIfPresent(connectionUser, forKey: .connectionUser)
        try container.encodeIfPresent(responseHeaders, forKey: .responseHeaders)
    }
}

/// An entry's headers: as recorded (decoded from JSON, or given), or the request's own fields, shared with
/// the request and marked (`credential: true`) only when read. Marking every field of every request as it
/// was journaled cost an array and a dozen name comparisons per request, for entries mostly never read.
/// Equal when they read the same.
struct RecordedHeaders: Sendable, Equatable {
    private enum Storage: Sendable {
        case recorded([JournalEntry.RecordedHeader])
        case request([HeaderField])
    }

    private let storage: Storage

    init(_ recorded: [JournalEntry.RecordedHeader]) { storage = .recorded(recorded) }
    init(request fields: [HeaderField]) { storage = .request(fields) }

    var recorded: [JournalEntry.RecordedHeader] {
        switch storage {
        case .recorded(let headers): headers
        case .request(let fields): fields.map(Engine.recorded)
        }
    }

    static func == (lhs: RecordedHeaders, rhs: RecordedHeaders) -> Bool {
        if case .request(let left) = lhs.storage, case .request(let right) = rhs.storage { return left == right }
        return lhs.recorded == rhs.recorded
    }
}
