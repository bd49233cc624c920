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

    /// A CSS class for a status or a verdict: `ok` (2xx, 3xx), `challenge` (401, 407), `refused` (other).
    static func tone(_ entry: JournalEntry) -> String {
        if entry.requests != nil { return entry.verdict.rawValue == "tls.ok" ? "ok" : "refused" }
        switch entry.status {
        case 200..<400: return "ok"
        case 401, 407: return "challenge"
        default: return "refused"
        }
    }

    /// The entries as a list of exchanges, in the order given.
    public static func entries(_ entries: [JournalEntry]) -> String {
        guard !entries.isEmpty else { return "<p class=\"empty\">No exchange yet.</p>\n" }
        return "<ol class=\"journal\">\n" + entries.map(entry).joined() + "</ol>\n"
    }

    /// One exchange: the request line, its credentials decoded where that is safe, the answer with its
    /// challenges, and the verdict with its sentence.
    public static func entry(_ entry: JournalEntry) -> String {
        var html = "<li class=\"entry \(tone(entry))\" id=\"e\(entry.seq)\" data-seq=\"\(entry.seq)\">\n"
        if entry.requests != nil {
            html += "<div class=\"line\"><span class=\"seq\">#\(entry.seq)</span> "
                + (entry.hop == .proxy ? "proxy " : "") + "TLS connection \(entry.connection)"
            if let remote = entry.remote { html += " from \(escape(remote))" }
            html += "</div>\n"
            if let facts = entry.tls, let summary = tlsSummary(facts) {
                html += "<div class=\"tls\">\(summary)</div>\n"
            }
        } else {
            let hop = entry.hop.map { $0 == .origin ? "" : "<span class=\"hop\">\($0.rawValue)</span> " } ?? ""
            html += "<div class=\"line\"><span class=\"seq\">#\(entry.seq)</span> \(hop)"
                + "<span class=\"where\">connection \(entry.connection), exchange \(entry.exchange)</span> "
            html += "<code class=\"request\">\(escape(entry.method ?? "?")) \(escape(entry.target ?? "?"))</code>"
            let status = entry.socks5.map { "REP \($0.reply.map(String.init) ?? "–")" } ?? "\(entry.status)"
            html += " → <span class=\"status\">\(status)</span></div>\n"
            if let host = entry.headers.first(where: { $0.name.lowercased() == "host" }) {
                html += "<div class=\"host\">Host: <code>\(escape(host.value))</code></div>\n"
            }
            if let credentials = entry.credentials, !credentials.scheme.isEmpty {
                html += "<div class=\"credentials\">\(escape(credentials.header)): "
                    + Self.credentials(credentials) + "</div>\n"
            }
            for challenge in entry.challenges ?? [] {
                html += "<div class=\"challenge\">challenge: <code>\(escape(challenge))</code></div>\n"
            }
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

    /// What a credential says, decoded: the scheme, the user, and the scheme's parameters (Digest's,
    /// NTLM's message type and flags). A Basic password is shown masked: the journal has it, a page
    /// shared as a CI artifact need not.
    static func credentials(_ credentials: PresentedCredentials) -> String {
        var parts = ["<span class=\"scheme\">\(escape(credentials.scheme))</span>"]
        if let user = credentials.user { parts.append("user <code>\(escape(user))</code>") }
        if let password = credentials.password {
            parts.append("password " + String(repeating: "•", count: min(password.count, 12)))
        }
        if let params = credentials.params, !params.isEmpty {
            let shown = params.keys.sorted().filter { $0 != "response" }.map {
                "\(escape($0))=<code>\(escape(params[$0]!))</code>"
            }
            parts.append(shown.joined(separator: " "))
        }
        return parts.joined(separator: " · ")
    }
}
