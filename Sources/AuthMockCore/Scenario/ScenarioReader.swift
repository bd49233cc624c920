
/// A mapping's entries by key, keeping the key nodes for positions.
package struct Fields {
    package var node: YAMLNode
    package var entries: [String: (key: YAMLNode, value: YAMLNode)] = [:]

    package subscript(key: String) -> YAMLNode? { entries[key]?.value }
}

/// The strict YAML reading that scenario files, conformance cases and client profiles share: typed access
/// to nodes, and every problem collected as a positioned diagnostic, so that all of a file's problems are
/// reported at once. `package`-visible, so that the runner (AuthMockCheck) reads its own sections with it.
package final class ScenarioReader {
    package let file: String
    /// Reads the files a scenario names (user files).
    package let files: ScenarioFileReader
    package var diagnostics: [ScenarioDiagnostic] = []

    package init(file: String, files: ScenarioFileReader) {
        self.file = file
        self.files = files
    }

    /// Composes `text` and reads its root with `read`. Every problem is thrown at once, and a file with
    /// any problem yields nothing; `empty` says what to write when there is nothing to read.
    package func read<T>(
        _ text: String, empty: (message: String, hint: String), _ read: (ScenarioReader) -> (YAMLNode) -> T?
    ) throws(ScenarioLoadError) -> T {
        let root: YAMLNode?
        do {
            root = try YAMLParser.compose(text)
        } catch {
            throw ScenarioLoadError(diagnostics: [diagnostic(forYAMLError: error, text: text)])
        }
        guard let root, let value = read(self)(root), diagnostics.isEmpty else {
            throw ScenarioLoadError(
                diagnostics: diagnostics.isEmpty
                    ? [ScenarioDiagnostic(file: file, line: 1, column: 1, message: empty.message, hint: empty.hint)]
                    : diagnostics
            )
        }
        return value
    }

    /// The names of the `{name}` placeholders in a text, in order (braces without a closing one end it).
    package static func placeholderNames(in text: String) -> [String] {
        var names: [String] = []
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            let after = rest[rest.index(after: open)...]
            guard let close = after.firstIndex(of: "}") else { break }
            names.append(String(after[..<close]))
            rest = after[after.index(after: close)...]
        }
        return names
    }

    // MARK: - Diagnostics

    package func report(_ node: YAMLNode?, _ message: String, hint: String? = nil) {
        let mark = node?.mark
        diagnostics.append(
            ScenarioDiagnostic(
                file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, message: message, hint: hint
            )
        )
    }

    func diagnostic(forYAMLError error: YAMLError, text: String) -> ScenarioDiagnostic {
        switch error {
        case .duplicatedKeysInMapping(let duplicates, let first):
            // The composer reports the first occurrence; point at the second, which is the one to remove.
            let key = duplicates.first ?? "?"
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            let indent = String(repeating: " ", count: max(0, first.column - 1))
            let second = lines.indices.dropFirst(first.line).first { index in
                let line = lines[index]
                return line.hasPrefix(indent + key + ":") || line.hasPrefix(indent + "\"" + key + "\":")
            }
            return ScenarioDiagnostic(
                file: file, line: second.map { $0 + 1 } ?? first.line, column: first.column,
                message: "key '\(key)' appears twice in the same mapping",
                hint: "keep one; the first is on line \(first.line)"
            )
        case .scanner(let context, let problem, let mark), .parser(let context, let problem, let mark),
            .composer(let context, let problem, let mark):
            let where_ = context.map { " (\($0.text))" } ?? ""
            return ScenarioDiagnostic(
                file: file, line: mark.line, column: mark.column, message: "YAML syntax: \(problem)\(where_)",
                hint: "check indentation and quoting on this line"
            )
        case .memory, .reader:
            return ScenarioDiagnostic(
                file: file, line: 1, column: 1, message: "YAML syntax: \(error)", hint: "the file must be valid YAML"
            )
        }
    }

    // MARK: - Typed access

    package func describe(_ node: YAMLNode) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .scalar(let scalar):
            return isNull(scalar) ? "nothing (null)" : "'\(scalar.string)'"
        }
    }

    package func isNull(_ scalar: YAMLNode.Scalar) -> Bool {
        scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    package func mapping(_ node: YAMLNode, _ what: String, allowed: [String], required: [String] = []) -> Fields? {
        guard case .mapping(let mapping) = node else {
            report(
                node, "\(what) must be a mapping, found \(describe(node))",
                hint: "write it as `key: value` lines, keys: \(allowed.joined(separator: ", "))"
            )
            return nil
        }
        var fields = Fields(node: node)
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let key) = keyNode else {
                report(keyNode, "keys of \(what) must be plain words, found \(describe(keyNode))")
                continue
            }
            guard allowed.contains(key.string) else {
                report(
                    keyNode, "unknown key '\(key.string)' in \(what)",
                    hint: Suggestion.hint(for: key.string, in: allowed, noun: "keys")
                )
                continue
            }
            if let first = fields.entries[key.string] {
                let line = first.key.mark?.line ?? 0
                report(
                    keyNode, "key '\(key.string)' appears twice in \(what)",
                    hint: "keep one; the first is on line \(line)"
                )
                continue
            }
            fields.entries[key.string] = (keyNode, valueNode)
        }
        for key in required where fields.entries[key] == nil {
            report(node, "\(what) has no '\(key)'", hint: "add `\(key): …`")
        }
        return fields
    }

    package func string(_ node: YAMLNode, _ what: String, allowEmpty: Bool = false) -> String? {
        guard case .scalar(let scalar) = node, !isNull(scalar) || (allowEmpty && scalar.style != .plain) else {
            report(
                node, "\(what) must be a string, found \(describe(node))",
                hint: "quote it if it looks like something else, e.g. \"…\""
            )
            return nil
        }
        if !allowEmpty && scalar.string.isEmpty {
            report(node, "\(what) must not be empty")
            return nil
        }
        return scalar.string
    }

    package func bool(_ node: YAMLNode, _ what: String) -> Bool? {
        if case .scalar(let scalar) = node, scalar.style == .plain {
            switch scalar.string {
            case "true", "True", "TRUE": return true
            case "false", "False", "FALSE": return false
            default: break
            }
        }
        report(node, "\(what) must be true or false, found \(describe(node))", hint: "write true or false, unquoted")
        return nil
    }

    package func int(_ node: YAMLNode, _ what: String, in range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            report(
                node, "\(what) must be a whole number, found \(describe(node))",
                hint: "write a number from \(range.lowerBound) to \(range.upperBound)"
            )
            return nil
        }
        guard range.contains(value) else {
            report(
                node, "\(what) is \(value), out of range",
                hint: "use a number from \(range.lowerBound) to \(range.upperBound)"
            )
            return nil
        }
        return value
    }

    /// `30s`, `2m`, `500ms`, `1h`, or a bare number of seconds.
    package func duration(_ node: YAMLNode, _ what: String) -> Double? {
        let hint = "write a duration such as 30s, 500ms, 2m or 1h"
        guard case .scalar(let scalar) = node, !isNull(scalar) else {
            report(node, "\(what) must be a duration, found \(describe(node))", hint: hint)
            return nil
        }
        let text = Self.trimmed(scalar.string)
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = Substring(text)
        var factor = 1.0
        for (suffix, scale) in units where text.hasSuffix(suffix) {
            number = text.dropLast(suffix.count)
            factor = scale
            break
        }
        guard let value = Double(number), value > 0, value.isFinite else {
            report(node, "\(what) '\(text)' is not a positive duration", hint: hint)
            return nil
        }
        return value * factor
    }

    package func sequence(_ node: YAMLNode, _ what: String) -> [YAMLNode]? {
        guard case .sequence(let sequence) = node else {
            report(node, "\(what) must be a list, found \(describe(node))", hint: "write one `- ` item per line")
            return nil
        }
        return Array(sequence)
    }

    /// A list of strings each of which `problem` accepts (nil); every other is reported where it stands,
    /// with its message and hint, and left out. nil when the node is not a list.
    package func checkedStrings(
        _ node: YAMLNode, _ what: String, item: String, problem: (String) -> (message: String, hint: String)?
    ) -> [String]? {
        guard let items = sequence(node, what) else { return nil }
        var result: [String] = []
        for node in items {
            guard let value = string(node, item) else { continue }
            if let (message, hint) = problem(value) {
                report(node, message, hint: hint)
            } else {
                result.append(value)
            }
        }
        return result
    }

    package func choice<T: RawRepresentable & CaseIterable>(_ node: YAMLNode, _ what: String, _ type: T.Type) -> T?
    where T.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let value = T(rawValue: text.lowercased()) { return value }
        report(node, "\(what) '\(text)' is not known", hint: Suggestion.hint(for: text, in: T.allCases.map(\.rawValue)))
        return nil
    }

    // MARK: - Text rules

    /// `text` without leading and trailing white space as Foundation's `CharacterSet.whitespaces` has it
    /// (tab and the space separators), and with `newlines` also line ends (LF, VT, FF, CR, NEL, LS, PS).
    package static func trimmed(_ text: some StringProtocol, newlines: Bool = false) -> String {
        func blank(_ scalar: Unicode.Scalar) -> Bool {
            scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator
                || newlines && ((0x0A...0x0D).contains(scalar.value) || [0x85, 0x2028, 0x2029].contains(scalar.value))
        }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !blank($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !blank($0) })!
        return String(String.UnicodeScalarView(scalars[first...last]))
    }

    /// Control characters other than tab, which HTTP forbids in header values (RFC 9110 §5.5).
    package static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }

    static func isIdentifier(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy {
            $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0)
        }
    }

    /// Whether every character of a text is a token character (RFC 9110 §5.6.2), as methods and header
    /// names must be.
    package static func isToken(_ text: String) -> Bool {
        text.utf8.allSatisfy(AuthHeader.isTokenChar)
    }
}
