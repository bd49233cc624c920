/// The whole of an exchange on a journal entry: every request header, the credentials decoded beside their
/// raw value, the body's size, the answer's status line and header fields.
extension JournalHTML {
    /// The request's and the answer's header fields, folded in a `<details>` (open when `expanded`).
    static func exchange(_ entry: JournalEntry, expanded: Bool) -> String {
        let response = entry.responseHeaders ?? []
        // The summary names the credentials, so that a folded entry (the live page's) still says who asked.
        let who =
            entry.credentials.flatMap { credentials in
                credentials.scheme.isEmpty
                    ? nil
                    : " · \(escape(credentials.header)): \(escape(credentials.scheme))"
                        + (credentials.user.map { " <code>\(escape($0))</code>" } ?? "")
            } ?? ""
        var html =
            "<details class=\"exchange\"\(expanded ? " open" : "")><summary>headers: "
            + "\(entry.headers.count) sent, \(response.count) answered · body \(entry.bodyBytes) byte(s)"
            + "\(who)</summary>\n"
        html += "<table class=\"headers request\"><caption>request</caption>\n<tbody>\n"
        for header in entry.headers {
            html += "<tr><th scope=\"row\">\(escape(header.name))</th><td>"
            if header.credential == true {
                let isAuthorization = header.name.lowercased().hasSuffix("authorization")
                html += secret(header.value, shown: isAuthorization ? String(header.value.prefix { $0 != " " }) : "")
            } else {
                html += "<code>\(escape(header.value))</code>"
            }
            if header.credential == true, let credentials = entry.credentials,
                header.name.equalsIgnoringASCIICase(credentials.header)
            {
                html += decoded(credentials)
            }
            html += "</td></tr>\n"
        }
        if entry.headers.isEmpty { html += "<tr><td colspan=\"2\" class=\"muted\">no header field</td></tr>\n" }
        html +=
            "<tr><th scope=\"row\" class=\"meta\">body</th><td>\(entry.bodyBytes) byte(s)"
            + (entry.bodySHA256.map { ", sha256 <code>\(escape(String($0.prefix(16))))…</code>" } ?? "")
            + "</td></tr>\n</tbody></table>\n"
        guard entry.status != 0 else { return html + "</details>\n" }
        html +=
            "<table class=\"headers response\"><caption>answer: <code>\(entry.status)"
            + " \(escape(Engine.reason(entry.status)))</code></caption>\n<tbody>\n"
        for header in response {
            html +=
                "<tr><th scope=\"row\">\(escape(header.name))</th>"
                + "<td><code>\(escape(header.value))</code></td></tr>\n"
        }
        if response.isEmpty {
            // Entries journaled before answers were, or in a report written by an older authmock: the challenges.
            for challenge in entry.challenges ?? [] {
                html += "<tr><th scope=\"row\">challenge</th><td><code>\(escape(challenge))</code></td></tr>\n"
            }
        }
        return html + "</tbody></table>\n</details>\n"
    }

    /// A credential's raw value, masked until the reader asks for it: a `<details>` element, no script.
    /// - Parameter shown: what may show while masked (a scheme's name).
    static func secret(_ value: String, shown: String = "") -> String {
        "<details class=\"secret\"><summary><code>\(shown.isEmpty ? "" : escape(shown) + " ")"
            + "\(String(repeating: "•", count: 8))</code> <span class=\"reveal\">reveal</span></summary>"
            + "<code class=\"raw\">\(escape(value))</code></details>"
    }

    /// What a credential says, decoded: the scheme, the user, the password masked (revealed on demand),
    /// and every parameter of the scheme (Digest's `response=` included, what a wrong hash is read from;
    /// NTLM's message type and flags).
    static func decoded(_ credentials: PresentedCredentials) -> String {
        var html = "<dl class=\"decoded\"><dt>scheme</dt><dd>\(escape(credentials.scheme))</dd>"
        if let user = credentials.user { html += "<dt>user</dt><dd><code>\(escape(user))</code></dd>" }
        if let password = credentials.password {
            html += "<dt>password</dt><dd>\(secret(password))</dd>"
        }
        if let params = credentials.params {
            for key in params.keys.sorted() {
                html += "<dt>\(escape(key))</dt><dd><code>\(escape(params[key]!))</code></dd>"
            }
        }
        return html + "</dl>"
    }
}
