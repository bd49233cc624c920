#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Engine {
    /// How many entries the first page renders, newest first; the older ones are in `/_authmock/journal`.
    static let pageEntries = 200
    /// How many entries one `?after=N` answer carries at most (the newest): the script keeps no more than this
    /// many in the list either, so a page left open all day stays small.
    static let pageListCap = 500

    /// `GET /_authmock/`: the live page a person opens while debugging a client against `serve` — the
    /// scenario's links, TLS facts and users with their current passwords, and the journal newest first,
    /// rendered by ``JournalHTML`` as the conformance report renders a cell's exchanges. Its script
    /// (``pageScript``) polls `GET /_authmock/?after=N` (`?since=N` is the same), which answers the newer
    /// entries as HTML list items; it is styled by `GET /_authmock/style.css` (``HTMLStyle``, the report's).
    func page(_ request: Request, journal: Journal) -> Response {
        guard request.method == "GET" || request.method == "HEAD" else { return Self.methodNotAllowed(allow: "GET") }
        let entries = journal.entries
        let cursor = Self.queryItem("after", in: request.target) ?? Self.queryItem("since", in: request.target)
        if let after = cursor.flatMap(Int.init) {
            return Self.html(Self.listItems(entries, after: after))
        }
        let shown = entries.suffix(Self.pageEntries)
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>authmock — \(JournalHTML.escape(scenario.name))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <link rel="icon" href="data:,"><link rel="stylesheet" href="style.css"></head>
            <body><main><h1>authmock — <span id="scenario">\(JournalHTML.escape(scenario.name))</span></h1>

            """
        if !scenario.description.isEmpty {
            html += "<p class=\"description\">\(JournalHTML.escape(scenario.description))</p>\n"
        }
        html += facts() + usersTable()
        html += "<section id=\"exchanges\" aria-labelledby=\"journal-title\">"
            + "<h2 id=\"journal-title\">Journal, newest first</h2>\n" + Self.controls
        html += "<p id=\"status\" role=\"status\">Live: asking for new entries every second.</p>\n"
        let older = entries.count - shown.count
        if older > 0 || journal.evicted > 0 {
            html += "<p class=\"note\" id=\"older\">The newest \(shown.count) entries; \(older) older ones are in "
                + "<a href=\"journal\"><code>\(ControlPlane.prefix)journal</code></a>"
                + (journal.evicted > 0 ? ", and \(journal.evicted) were dropped from memory" : "") + ".</p>\n"
        }
        if entries.isEmpty { html += emptyState() }
        html += "<ol class=\"journal\" id=\"journal\" data-last=\"\(entries.last?.seq ?? 0)\" "
            + "data-cap=\"\(Self.pageListCap)\" aria-labelledby=\"journal-title\">\n"
        html += shown.reversed().map(JournalHTML.entry).joined()
        html += "</ol></section></main>\n<script>\(Self.pageScript)</script>\n</body></html>\n"
        return Self.html(html)
    }

    /// The entries after `seq`, newest first, as list items: at most ``pageListCap``, the newest.
    static func listItems(_ entries: [JournalEntry], after seq: Int) -> String {
        let newer = entries.reversed().prefix { $0.seq > seq }
        return newer.prefix(pageListCap).map(JournalHTML.entry).joined()
    }

    /// The links the scenario is served at, and its TLS facts.
    func facts() -> String {
        var html = "<section id=\"facts\"><h2>Where it listens</h2><dl>\n"
        for name in Self.linkNames {
            guard let link = links[name] else { continue }
            // What the address is for, in words; the ready line's key beside it for scripts.
            html += "<dt>\(Self.linkMeaning[name] ?? JournalHTML.escape(name))"
                + " <code class=\"key\">\(JournalHTML.escape(name))</code></dt>"
                + "<dd><code>\(JournalHTML.escape(link))</code></dd>\n"
        }
        html += "<dt>journal</dt><dd><a href=\"journal\"><code>\(JournalHTML.escape(ControlPlane.prefix))journal"
            + "</code></a> (JSON, every entry in memory)</dd></dl>\n"
        if let tls = scenarioState.tlsDescription {
            // The same facts as the ready line's `tls` (CA file, pins…), one per line.
            html += "<h3>TLS</h3>"
            if let facts = try? JSONDecoder().decode([String: JSONValue].self, from: Data(tls)) {
                html += "<dl id=\"tls\">\n"
                for key in facts.keys.sorted() {
                    html += "<dt>\(JournalHTML.escape(key))</dt>"
                        + "<dd><code>\(JournalHTML.escape(facts[key]!.text))</code></dd>\n"
                }
                html += "</dl>\n"
            } else {
                html += "<pre id=\"tls\">\(JournalHTML.escape(String(decoding: tls, as: UTF8.self)))</pre>\n"
            }
        }
        return html + "</section>\n"
    }

    /// The users with their passwords now (a change by the timeline or the control plane shows).
    func usersTable() -> String {
        var html = "<section id=\"users\"><h2>Users</h2><table>"
            + "<tr><th scope=\"col\">name</th><th scope=\"col\">password now</th><th scope=\"col\">state</th></tr>\n"
        for record in scenarioState.users {
            let status = UserStatus(record)
            let state = status.removed ? "removed" : status.enabled ? "enabled" : "locked"
            let password = status.password.map { "<code>\(JournalHTML.escape($0))</code>" }
                ?? "(only its \(JournalHTML.escape(status.hash ?? "stored")) hash is known)"
            html += "<tr><td><code>\(JournalHTML.escape(status.name))</code></td>"
                + "<td>\(password)</td><td>\(state)</td></tr>\n"
        }
        return html + "</table></section>\n"
    }

    /// The commands the banner prints, to paste while nothing has happened yet.
    var tryCommands: [String] {
        guard let bound = tryWhere ?? links["url"].map({ TryCommands.Where(url: $0) }) else { return [] }
        return TryCommands(scenario: scenario, where: bound).all
    }

    /// What an empty journal shows: the try commands, not a blank list.
    func emptyState() -> String {
        var html = "<div id=\"empty\" class=\"empty-state\"><p>No exchange yet. "
        let commands = tryCommands
        if commands.isEmpty { return html + "Point a client at the URL above.</p></div>\n" }
        html += "Try \(commands.count == 1 ? "this" : "these") in a terminal; each exchange appears below.</p>\n"
        for command in commands {
            html += "<pre class=\"try\"><code>\(JournalHTML.escape(command))</code></pre>\n"
        }
        return html + "</div>\n"
    }

    /// Filter, pause and clear: labelled, keyboard-usable, driven by ``pageScript``.
    static let controls = """
        <div class="controls" role="group" aria-label="Journal controls">\
        <label for="filter">Filter</label> \
        <input type="search" id="filter" placeholder="text in an entry, e.g. 401 or alice" autocomplete="off"> \
        <button type="button" id="pause" aria-pressed="false">Pause</button> \
        <button type="button" id="clear">Clear the list</button> \
        <span id="shown" class="muted" aria-live="off"></span></div>

        """

    /// `GET /_authmock/style.css`: the report's stylesheet and the live page's own rules.
    func pageStyle(_ request: Request) -> Response {
        guard request.method == "GET" || request.method == "HEAD" else { return Self.methodNotAllowed(allow: "GET") }
        return Response(
            status: 200,
            headers: [
                HeaderField("Content-Type", "text/css; charset=utf-8"), HeaderField("Cache-Control", "no-cache"),
            ],
            body: Array((HTMLStyle.stylesheet + HTMLStyle.live).utf8)
        )
    }

    /// The addresses of ``linkNames`` for people.
    static let linkMeaning: [String: String] = [
        "url": "the scenario",
        "other_host_url": "the same server by another host name (a redirect there leaves the origin)",
        "http_url": "plain HTTP beside HTTPS (same host, another port)",
        "second_url": "a second port, same protocol",
        "other_host_userinfo_url": "another host with credentials in the URL",
        "subdomain_url": "a subdomain of the origin",
        "sibling_url": "a sibling host under .localhost",
    ]

    /// HTML that only ever runs the page's own script: a hash names it (CSP level 2), so were a value ever
    /// rendered unescaped, a script in it would not run; styles come from the page's own `style.css` only.
    static func html(_ text: String) -> Response {
        Response(
            status: 200,
            headers: [
                HeaderField("Content-Type", "text/html; charset=utf-8"),
                HeaderField(
                    "Content-Security-Policy",
                    "default-src 'none'; style-src 'self'; img-src data:; connect-src 'self'; "
                        + "script-src '\(pageScriptHash)'"
                ),
                HeaderField("Cache-Control", "no-store"),
            ],
            body: Array(text.utf8)
        )
    }

    static let pageScriptHash = "sha256-" + Data(HashFunction.sha256.hash(pageScript.utf8)).base64EncodedString()
}
