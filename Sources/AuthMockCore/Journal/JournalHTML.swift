#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The journal as HTML, for people: the exchange view of the conformance report's cell pages and of the
/// live page `serve` answers at `GET /_authmock/`. One renderer for both, so a user sees the same thing in
/// CI's artifact and in their browser. Pure string building; every value from a client (paths, headers,
/// credentials, details quoting them) is escaped: in the hostile cases they are the attacker's.
public enum JournalHTML {
    /// `&`, `<`, `>`, `"` and `'` as entities: safe in text and in quoted attribute values.
    ///
    /// It walks Unicode scalars: `<` followed by a combining mark is one `Character` that is not `"<"`, and a
    /// client could otherwise slip a tag past it.
    public static func escape(_ text: String) -> String {
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result.append(contentsOf: "&amp;".unicodeScalars)
            case "<": result.append(contentsOf: "&lt;".unicodeScalars)
            case ">": result.append(contentsOf: "&gt;".unicodeScalars)
            case "\"": result.append(contentsOf: "&quot;".unicodeScalars)
            case "'": result.append(contentsOf: "&#39;".unicodeScalars)
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    /// A CSS class for a status or a verdict: `ok` (2xx, 3xx), `challenge` (401, 407 to a request without
    /// credentials for that hop), `rejected` (401, 407 to one with credentials: they were refused), `refused`
    /// (any other status).
    static func tone(_ entry: JournalEntry) -> String {
        if entry.requests != nil { return entry.verdict.rawValue == "tls.ok" ? "ok" : "refused" }
        switch entry.status {
        case 200..<400: return "ok"
        case 401, 407: return presented(entry) ? "rejected" : "challenge"
        default: return "refused"
        }
    }

    /// Whether the request carried credentials of the scheme the answer's header speaks for.
    static func presented(_ entry: JournalEntry) -> Bool {
        guard let credentials = entry.credentials, !credentials.scheme.isEmpty else { return false }
        return credentials.header.equalsIgnoringASCIICase(entry.status == 407 ? "Proxy-Authorization" : "Authorization")
    }

    /// The words for a tone, shown beside the status so that colour is never the only sign.
    static func toneLabel(_ tone: String) -> String {
        switch tone {
        case "ok": "answered"
        case "challenge": "challenge"
        case "rejected": "credentials refused"
        default: "refused"
        }
    }

    /// The entries as a list of exchanges, in the order given, each shown whole. Refused credentials are
    /// numbered (`credentials refused, retry 2`), and the entries `counted` names are marked with the
    /// findings that count them (1-based).
    public static func entries(_ entries: [JournalEntry], counted: [Int: [Int]] = [:]) -> String {
        guard !entries.isEmpty else { return "<p class=\"empty\">No exchange yet.</p>\n" }
        var retries = 0
        var html = "<ol class=\"journal\">\n"
        for item in entries {
            var retry: Int?
            if tone(item) == "rejected" {
                retries += 1
                retry = retries
            }
            html += entry(item, expanded: true, retry: retry, countedBy: counted[item.seq] ?? [])
        }
        return html + "</ol>\n"
    }

    /// One exchange, its headers folded (the live page's list).
    public static func entry(_ entry: JournalEntry) -> String {
        self.entry(entry, expanded: false)
    }

    /// One exchange: the request line with its protocol and time, every header of the request (credentials
    /// masked behind a reveal, their parameters decoded), the body's size, the answer's status and headers,
    /// and the verdict with its sentence.
    /// - Parameters:
    ///   - expanded: whether the headers show open (`<details open>`).
    ///   - retry: the how-manieth refused credentials this entry is, when it is one.
    ///   - countedBy: the findings (1-based) that count this entry.
    public static func entry(
        _ entry: JournalEntry, expanded: Bool, retry: Int? = nil, countedBy: [Int] = []
    ) -> String {
        let tone = tone(entry)
        let counted = countedBy.isEmpty ? "" : " counted"
        var html = "<li class=\"entry \(tone)\(counted)\" id=\"e\(entry.seq)\" data-seq=\"\(entry.seq)\">\n"
        if !countedBy.isEmpty {
            html +=
                "<div class=\"counted-by\">counted by finding "
                + countedBy.map { "<a href=\"#finding-\($0)\">\($0)</a>" }.joined(separator: ", ") + "</div>\n"
        }
        if entry.requests != nil {
            html += connectionLine(entry)
        } else {
            html += requestLine(entry, tone: tone, retry: retry)
            html += exchange(entry, expanded: expanded)
        }
        html += "<div class=\"verdict\"><span class=\"name\">\(escape(entry.verdict.rawValue))</span>"
        if let detail = entry.detail { html += " — \(escape(detail))" }
        html += "</div>\n"
        if let leaks = entry.leaks, !leaks.isEmpty {
            html += "<div class=\"leak\">LEAK: \(escape(leaks.joined(separator: ", ")))</div>\n"
        }
        if let fault = entry.fault { html += "<div class=\"fault\">fault: \(escape(fault))</div>\n" }
        if let hostile = entry.hostile { html += "<div class=\"fault\">hostile on purpose: \(escape(hostile))</div>\n" }
        return html + "</li>\n"
    }

    /// A TLS connection's entry: its number, its peer, and what the handshake settled.
    static func connectionLine(_ entry: JournalEntry) -> String {
        var html =
            "<div class=\"line\"><span class=\"seq\">#\(entry.seq)</span> "
            + (entry.hop == .proxy ? "proxy " : "") + "TLS connection \(entry.connection)"
        if let remote = entry.remote { html += " from \(escape(remote))" }
        html += " <span class=\"where\">\(clock(entry.time))</span></div>\n"
        if let facts = entry.tls, let summary = tlsSummary(facts) {
            html += "<div class=\"tls\">\(summary)</div>\n"
        }
        return html
    }

    /// `#3 connection 1, exchange 2 · 12:00:01.250 GET / HTTP/1.1 → 401 credentials refused, retry 2`.
    static func requestLine(_ entry: JournalEntry, tone: String, retry: Int?) -> String {
        let hop = entry.hop.map { $0 == .origin ? "" : "<span class=\"hop\">\($0.rawValue)</span> " } ?? ""
        var html =
            "<div class=\"line\"><span class=\"seq\">#\(entry.seq)</span> \(hop)"
            + "<span class=\"where\">connection \(entry.connection), exchange \(entry.exchange)"
            + (entry.stream.map { ", stream \($0)" } ?? "") + " · \(clock(entry.time))</span> "
        html +=
            "<code class=\"request\">\(escape(entry.method ?? "?")) \(escape(entry.target ?? "?"))"
            + " <span class=\"protocol\">\(escape(protocolName(entry)))</span></code>"
        let status =
            entry.socks5.map { "REP \($0.reply.map(String.init) ?? "–")" }
            ?? entry.reset.map { "RST_STREAM \($0)" } ?? "\(entry.status)"
        var label = toneLabel(tone)
        if let retry { label += ", retry \(retry)" }
        html += " → <span class=\"status\">\(escape(status))</span> <span class=\"tone\">\(label)</span></div>\n"
        return html
    }

    /// The protocol the request came in: `HTTP/2` for an h2 stream, else the request line's version.
    static func protocolName(_ entry: JournalEntry) -> String {
        if entry.httpProtocol == HTTPProtocol.h2.rawValue { return "HTTP/2" }
        return entry.version ?? (entry.hop == .socks5 ? "SOCKS5" : "")
    }

    /// `12:00:01.250` (UTC), the time of the decision.
    static func clock(_ time: Date) -> String {
        let text = Date.ISO8601FormatStyle(includingFractionalSeconds: true).format(time)
        guard let t = text.firstIndex(of: "T") else { return text }
        return String(text[text.index(after: t)...].prefix(12)) + " UTC"
    }

    /// What the TLS layer saw on a connection, in one line: version, cipher, the server name the client
    /// asked for (the client's bytes: escaped), its certificate, the certificate it was shown, the alert.
    static func tlsSummary(_ facts: TLSFacts) -> String? {
        var parts: [String] = []
        if let version = facts.version { parts.append(escape(version)) }
        if let cipher = facts.cipher { parts.append("<code>\(escape(cipher))</code>") }
        if let name = facts.serverName { parts.append("SNI <code>\(escape(name))</code>") }
        if let subject = facts.clientCertificate { parts.append("client certificate <code>\(escape(subject))</code>") }
        if let certificate = facts.certificateSHA256 {
            parts.append("shown certificate sha256 <code>\(escape(String(certificate.prefix(16))))…</code>")
        }
        if let alert = facts.alert { parts.append("alert <code>\(escape(alert))</code>") }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }
}
