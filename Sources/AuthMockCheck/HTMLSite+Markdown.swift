import AuthMockCore

/// The Markdown of the profiles' `notes:` and `cells:` (and the references and findings of the reports) as
/// HTML: paragraphs, `-` lists, `` `code` ``, `**bold**`, `[text](https://…)`, and links made where the text
/// names an RFC (`RFC 7616 §3.4`), a CVE (`CVE-2023-38545`), a GitHub issue (`curl/curl#3341`) or gives a
/// bare `https://` URL. Everything else is escaped: the reports' text quotes what clients sent.
extension HTMLSite {
    /// Blocks: a paragraph per blank-line-separated run of lines (joined as Markdown joins them), a list
    /// where lines start with `- ` or `* ` (a line indented under an item continues it).
    static func markdown(_ text: String) -> String {
        var html = ""
        for block in paragraphBlocks(text) {
            let lines = block.split(separator: "\n", omittingEmptySubsequences: false)
            guard lines.contains(where: isItem) else {
                html += "<p>" + inline(lines.map { $0.trimmingBlanks() }.joined(separator: " ")) + "</p>\n"
                continue
            }
            var lead: [String] = []
            var items: [[String]] = []
            for line in lines {
                if isItem(line) {
                    items.append([String(line.trimmingBlanks().dropFirst(2))])
                } else if items.isEmpty {
                    lead.append(line.trimmingBlanks())
                } else {
                    items[items.count - 1].append(line.trimmingBlanks())
                }
            }
            if !lead.isEmpty { html += "<p>" + inline(lead.joined(separator: " ")) + "</p>\n" }
            html += "<ul>\n" + items.map { "<li>" + inline($0.joined(separator: " ")) + "</li>\n" }.joined() + "</ul>\n"
        }
        return html
    }

    private static func isItem(_ line: Substring) -> Bool {
        let trimmed = line.trimmingBlanks()
        return trimmed.hasPrefix("- ") || trimmed.hasPrefix("* ")
    }

    /// Blank-line-separated paragraphs, each with its line breaks.
    static func paragraphBlocks(_ text: String) -> [String] {
        var blocks: [[Substring]] = [[]]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.trimmingBlanks().isEmpty {
                if !(blocks.last?.isEmpty ?? true) { blocks.append([]) }
            } else {
                blocks[blocks.count - 1].append(line)
            }
        }
        return blocks.filter { !$0.isEmpty }.map { $0.joined(separator: "\n") }
    }

    /// The opening of a why as plain text for a tooltip: its first line, at most 160 characters.
    static func opening(_ text: String) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > 160 ? String(flat.prefix(159)) + "…" : flat
    }

    /// A link to `url` (an http(s) URL: the profile loader refuses others) showing the URL.
    static func link(_ url: String) -> String {
        "<a href=\"\(escape(url))\">\(escape(url))</a>"
    }

    /// Inline Markdown: `` `code` ``, `[text](url)` with an http(s) URL, `**bold**`, and the references
    /// ``linked(_:)`` finds in the rest; everything else escaped.
    static func inline(_ text: String) -> String {
        var html = ""
        var plain = ""
        var rest = Substring(text)
        func flush() {
            html += linked(plain)
            plain = ""
        }
        while let index = rest.firstIndex(where: { $0 == "`" || $0 == "[" || $0 == "*" }) {
            plain += rest[..<index]
            rest = rest[index...]
            if rest.hasPrefix("`"), let close = rest.dropFirst().firstIndex(of: "`") {
                flush()
                html += "<code>" + escape(String(rest[rest.index(after: rest.startIndex)..<close])) + "</code>"
                rest = rest[rest.index(after: close)...]
            } else if rest.hasPrefix("**"), let close = rest.dropFirst(2).firstRange(of: "**"),
                close.lowerBound > rest.index(rest.startIndex, offsetBy: 2)
            {
                flush()
                html +=
                    "<strong>" + inline(String(rest[rest.index(rest.startIndex, offsetBy: 2)..<close.lowerBound]))
                    + "</strong>"
                rest = rest[close.upperBound...]
            } else if rest.hasPrefix("["), let middle = rest.firstRange(of: "]("),
                let close = rest[middle.upperBound...].firstIndex(of: ")"),
                !rest[..<middle.lowerBound].dropFirst().contains("["),
                ClientProfile.isLink(String(rest[middle.upperBound..<close]))
            {
                flush()
                let label = String(rest[rest.index(after: rest.startIndex)..<middle.lowerBound])
                html +=
                    "<a href=\"\(escape(String(rest[middle.upperBound..<close])))\">"
                    + escape(label) + "</a>"
                rest = rest[rest.index(after: close)...]
            } else {
                plain += rest.prefix(1)
                rest = rest.dropFirst()
            }
        }
        plain += rest
        flush()
        return html
    }

    /// Plain text escaped, with links where it names an RFC (and section), a CVE, a GitHub issue or pull
    /// request (`owner/repo#N`), or gives an `https://` URL. The URLs are built from the digits and names
    /// matched, never from anything else in the text.
    static func linked(_ text: String) -> String {
        var html = ""
        var rest = Substring(text)
        var atWordStart = true
        while let first = rest.first {
            if atWordStart, let (length, url) = reference(at: rest) {
                html += "<a href=\"\(escape(url))\">\(escape(String(rest.prefix(length))))</a>"
                rest = rest.dropFirst(length)
                atWordStart = false
            } else {
                html += escape(String(first))
                rest = rest.dropFirst()
                atWordStart = !(first.isLetter || first.isNumber || "/_.-".contains(first))
            }
        }
        return html
    }

    /// The reference that starts `text`, if any: its length in characters and its URL. A regex literal is
    /// parsed each time it is evaluated, so the patterns are kept, and each is tried only where its first
    /// characters stand (this runs at every word of every finding of a matrix's thousands of pages).
    static func reference(at text: Substring) -> (Int, String)? {
        if text.hasPrefix("RFC"), let match = text.prefixMatch(of: References.rfc) {
            let section = match.2.map { "#section-\($0)" } ?? ""
            return (match.0.count, "https://www.rfc-editor.org/rfc/rfc\(match.1)\(section)")
        }
        if text.hasPrefix("CVE-"), let match = text.prefixMatch(of: References.cve) {
            return (match.0.count, "https://www.cve.org/CVERecord?id=\(match.0)")
        }
        if text.hasPrefix("https://"), let match = text.prefixMatch(of: References.url) {
            let url = String(match.0).trimmingTrailing { ".,;:)'".contains($0) }
            return (url.count, url)
        }
        let word = text.prefix { !$0.isWhitespace }
        if word.contains("/"), word.contains("#"), let match = text.prefixMatch(of: References.issue) {
            return (match.0.count, "https://github.com/\(match.1)/\(match.2)/issues/\(match.3)")
        }
        return nil
    }

    /// The patterns of ``reference(at:)``, parsed once.
    enum References {
        nonisolated(unsafe) static let rfc = /RFC ?([0-9]{3,5})(?: ?§ ?([0-9]+(?:\.[0-9]+)*))?/
        nonisolated(unsafe) static let cve = /CVE-[0-9]{4}-[0-9]{4,7}/
        nonisolated(unsafe) static let url = /https:\/\/[A-Za-z0-9._~:\/?#@!$&'*+,;=%-]+/
        nonisolated(unsafe) static let issue = /([A-Za-z0-9][A-Za-z0-9_.-]*)\/([A-Za-z0-9_.-]+)#([0-9]+)/
        /// Where a finding starts quoting the journal (``sentence(_:)``).
        nonisolated(unsafe) static let quote = #/[:;] (?:last in the journal: |the client sent: )?\#[0-9]+ /#
        /// An entry's `#N` in a finding (``findingText(_:shown:)``).
        nonisolated(unsafe) static let seq = /(^|[ (\[;:])#([0-9]+)\b/
    }
}

extension String {
    /// The string without the trailing characters `drop` says so of.
    fileprivate func trimmingTrailing(while drop: (Character) -> Bool) -> String {
        var result = self
        while let last = result.last, drop(last) { result.removeLast() }
        return result
    }
}
