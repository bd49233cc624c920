#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Engine {
    /// `GET /_authmock/`: the live page a person opens while debugging a client against `serve` — the
    /// scenario's links, TLS facts and users with their current passwords, and the journal newest first,
    /// rendered by ``JournalHTML`` as the conformance report renders a cell's exchanges. A few lines of
    /// script poll `GET /_authmock/?since=N`, which answers the newer entries as HTML list items.
    func page(_ request: Request, journal: Journal) -> Response {
        guard request.method == "GET" || request.method == "HEAD" else { return Self.methodNotAllowed(allow: "GET") }
        let entries = journal.entries
        if let since = Self.queryItem("since", in: request.target).flatMap(Int.init) {
            let newer = entries.filter { $0.seq > since }.reversed().map(JournalHTML.entry).joined()
            return Self.html(newer)
        }
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>authmock — \(JournalHTML.escape(scenario.name))</title>
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <style>\(Self.pageStyle)</style></head>
            <body><h1>authmock — <span id="scenario">\(JournalHTML.escape(scenario.name))</span></h1>

            """
        if !scenario.description.isEmpty {
            html += "<p class=\"description\">\(JournalHTML.escape(scenario.description))</p>\n"
        }
        html += "<section id=\"facts\"><h2>Where it listens</h2><dl>\n"
        for name in Self.linkNames {
            guard let link = links[name] else { continue }
            html += "<dt>\(JournalHTML.escape(name))</dt><dd><code>\(JournalHTML.escape(link))</code></dd>\n"
        }
        html += "<dt>journal</dt><dd><code>\(JournalHTML.escape(ControlPlane.prefix))journal</code> (JSON)</dd></dl>\n"
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
        html += "</section>\n<section id=\"users\"><h2>Users</h2>"
            + "<table><tr><th>name</th><th>password now</th><th>state</th></tr>\n"
        for record in scenarioState.users {
            let status = UserStatus(record)
            let state = status.removed ? "removed" : status.enabled ? "enabled" : "locked"
            let password = status.password.map { "<code>\(JournalHTML.escape($0))</code>" }
                ?? "(only its \(JournalHTML.escape(status.hash ?? "stored")) hash is known)"
            html += "<tr><td><code>\(JournalHTML.escape(status.name))</code></td>"
                + "<td>\(password)</td><td>\(state)</td></tr>\n"
        }
        html += "</table></section>\n"
        let last = entries.last?.seq ?? 0
        html += "<section id=\"exchanges\"><h2>Journal, newest first</h2>"
        html += "<p class=\"note\">Refreshed every second; \(journal.evicted) "
            + "older entries were dropped from memory.</p>\n"
        html += "<ol class=\"journal\" id=\"journal\" data-last=\"\(last)\">\n"
        html += entries.reversed().map(JournalHTML.entry).joined()
        html += "</ol></section>\n<script>\(Self.pageScript)</script>\n</body></html>\n"
        return Self.html(html)
    }

    /// HTML that only ever runs the page's own script: a hash names it (CSP level 2), so were a value ever
    /// rendered unescaped, a script in it would not run.
    static func html(_ text: String) -> Response {
        Response(
            status: 200,
            headers: [
                HeaderField("Content-Type", "text/html; charset=utf-8"),
                HeaderField(
                    "Content-Security-Policy",
                    "default-src 'none'; style-src 'unsafe-inline'; connect-src 'self'; script-src '\(pageScriptHash)'"
                ),
                HeaderField("Cache-Control", "no-store"),
            ],
            body: Array(text.utf8)
        )
    }

    /// Polls for entries newer than the newest shown and puts them on top.
    static let pageScript = """
        (function () {
          var list = document.getElementById("journal");
          document.documentElement.dataset.live = "polling";
          function poll() {
            fetch("?since=" + list.dataset.last, {cache: "no-store"}).then(function (r) { return r.text(); })\
        .then(function (html) {
              if (html) {
                list.insertAdjacentHTML("afterbegin", html);
                var first = list.querySelector("li[data-seq]");
                if (first) { list.dataset.last = first.dataset.seq; }
                var empty = document.querySelector("p.empty");
                if (empty) { empty.remove(); }
              }
            }).catch(function () {}).then(function () { setTimeout(poll, 1000); });
          }
          setTimeout(poll, 1000);
        })();
        """

    static let pageScriptHash = "sha256-" + Data(HashFunction.sha256.hash(pageScript.utf8)).base64EncodedString()

    static let pageStyle = """
        body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}code,pre{font-family:ui-monospace,monospace}
        ol.journal{list-style:none;padding:0}\
        li.entry{border-left:4px solid #999;margin:.4em 0;padding:.3em .6em;background:#fafafa}
        li.ok{border-color:#2a8}li.challenge{border-color:#d90}li.refused{border-color:#c33}.seq{font-weight:bold}
        .where,.note{color:#666}.verdict .name{font-weight:bold}.leak{color:#c33;font-weight:bold}\
        td,th{padding:.2em .8em;text-align:left}
        """
}
