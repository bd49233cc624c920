import AuthMockCore

/// A cell page's account of the client's run (its command, how it ended, its output) and how to run the
/// cell again.
extension HTMLSite {
    /// How to run this cell again: the `authmock check` command of the run with `--case`, and the
    /// AUTHMOCK_* inputs this run gave the client (its URL's port and files were the run's own).
    static func reproduce(_ report: CaseReport, suite: SuiteReport) -> String {
        var html = "<section class=\"reproduce\">\n<h2>Reproduce this cell</h2>\n"
        let naming = suite.invocation ?? ["--client", suite.client]
        let line = (["authmock", "check", "--case", report.id] + naming).map(shellQuoted).joined(separator: " ")
        html += "<pre class=\"command\">\(escape(line))</pre>\n"
        html +=
            "<p class=\"muted\">Add <code>--html DIR</code> for this page again, <code>--json FILE</code> for"
            + " the whole journal; <code>authmock serve</code> with the case's scenario replays the server alone.</p>\n"
        if let inputs = report.inputs, !inputs.isEmpty {
            html +=
                "<details class=\"inputs\"><summary>The \(inputs.count) AUTHMOCK_* input(s) the client got"
                + "</summary>\n<table class=\"headers\"><tbody>\n"
            for name in inputs.keys.sorted() {
                html +=
                    "<tr><th scope=\"row\"><code>\(escape(name))</code></th>"
                    + "<td><code>\(escape(inputs[name]!))</code></td></tr>\n"
            }
            html += "</tbody></table>\n</details>\n"
        }
        return html + "</section>\n"
    }

    /// The client's command, how it ended, and the tails of its output.
    static func run(_ report: CaseReport) -> String {
        var html = "<section class=\"run\">\n<h2>The client's run</h2>\n"
        if let command = report.command {
            let line = command.map(shellQuoted).joined(separator: " ")
            html += "<h3>Command</h3>\n<pre class=\"command\">\(escape(line))</pre>\n"
        } else {
            html += "<p class=\"muted\">The client was not run for this case.</p>\n"
        }
        if let outcome = report.outcome {
            let ended =
                outcome.timedOut
                ? "killed after its timeout"
                : outcome.exitStatus.map { "exited \($0)" } ?? "ended on a signal"
            html += "<p class=\"outcome\">It \(ended) after \(TextFormat.fixed(outcome.seconds, places: 2)) s.</p>\n"
        }
        for (name, text) in [("stdout", report.stdout), ("stderr", report.stderr)] {
            guard let text else { continue }
            let (shown, dropped) = tail(text)
            let cut = " <span class=\"muted\">(the last lines; \(dropped) line(s) before them not shown)</span>"
            html += "<h3>\(name)" + (dropped > 0 ? cut : "") + "</h3>\n"
            html +=
                text.isEmpty
                ? "<p class=\"muted\">(empty)</p>\n" : "<pre class=\"\(name)\">\(escape(shown))</pre>\n"
        }
        return html + "</section>\n"
    }

    static let tailLines = 80
    static let tailCharacters = 12_000

    /// The end of a client's output: its last ``tailLines`` lines, at most ``tailCharacters`` characters,
    /// and how many lines were left out.
    static func tail(_ text: String) -> (String, Int) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var kept = lines.suffix(tailLines).joined(separator: "\n")
        var dropped = max(0, lines.count - tailLines)
        if kept.count > tailCharacters {
            kept = String(kept.suffix(tailCharacters))
            dropped = lines.count - kept.split(separator: "\n", omittingEmptySubsequences: false).count
        }
        return (kept, dropped)
    }

    /// An argument as a shell would need it, so that the command can be pasted.
    static func shellQuoted(_ argument: String) -> String {
        let plain = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./_-".unicodeScalars)
        if !argument.isEmpty, argument.unicodeScalars.allSatisfy(plain.contains) { return argument }
        // Control characters (a `-w '%{http_code}\n'`) as bash's $'…', so the command stays on one line.
        if argument.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            var quoted = "$'"
            for scalar in argument.unicodeScalars {
                switch scalar {
                case "\n": quoted += "\\n"
                case "\t": quoted += "\\t"
                case "\r": quoted += "\\r"
                case "'": quoted += "\\'"
                case "\\": quoted += "\\\\"
                case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                    quoted += "\\x" + TextFormat.hex(scalar.value, width: 2)
                default: quoted.unicodeScalars.append(scalar)
                }
            }
            return quoted + "'"
        }
        return "'" + argument.replacing("'", with: "'\\''") + "'"
    }
}
