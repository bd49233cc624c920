/// Why a YAML text could not be composed: libyaml's error kinds with its problem and context texts, and
/// the composer's own (an undefined alias, a second document, a key twice in one mapping). The cases and
/// their descriptions are the ones Yams gave, so that the diagnostics built from them read the same.
package enum YAMLError: Error, Sendable, CustomStringConvertible {
    /// libyaml's context: what it was reading (`while parsing a flow node`) and where that started.
    package struct Context: Sendable {
        package let text: String
        package let mark: YAMLMark
    }

    case memory
    /// Bad input bytes (control characters, bad UTF-8): the offset is in characters, nil when it falls
    /// outside the text.
    case reader(problem: String, offset: Int?, value: Int32, yaml: String)
    case scanner(context: Context?, problem: String, YAMLMark)
    case parser(context: Context?, problem: String, YAMLMark)
    case composer(context: Context?, problem: String, YAMLMark)
    /// The duplicated keys' texts, sorted, and the mark of the first one's first occurrence.
    case duplicatedKeysInMapping(duplicates: [String], mark: YAMLMark)

    package var description: String {
        switch self {
        case .memory:
            return "Memory error"
        case .reader(let problem, let offset, let value, let yaml):
            guard let offset, let (line, column, contents) = Self.lineColumnAndContents(yaml, at: offset) else {
                return "\(problem) at offset: \(offset.map(String.init) ?? "nil"), value: \(value)"
            }
            return "\(line + 1):\(column + 1): error: reader: \(problem):\n" + Self.endingWithNewline(contents)
                + String(repeating: " ", count: column) + "^"
        case .scanner(let context, let problem, let mark):
            return "\(mark): error: scanner: \(Self.describe(context))\(problem)"
        case .parser(let context, let problem, let mark):
            return "\(mark): error: parser: \(Self.describe(context))\(problem)"
        case .composer(let context, let problem, let mark):
            return "\(mark): error: composer: \(Self.describe(context))\(problem)"
        case .duplicatedKeysInMapping(let duplicates, let mark):
            let keys = duplicates.sorted().map { "'\($0)'" }.joined(separator: ", ")
            return "expected all keys to be unique but found the following duplicated key(s): \(keys) at \(mark)"
        }
    }

    private static func describe(_ context: Context?) -> String {
        context.map { "\($0.text) in line \($0.mark.line), column \($0.mark.column)\n" } ?? ""
    }

    /// The 0-based line and UTF-16 column of the character at `offset`, and that line with its terminator,
    /// where lines end as Foundation's `getLineStart` ends them (LF, CR, CR LF, NEL, LS, PS).
    static func lineColumnAndContents(_ text: String, at offset: Int) -> (Int, Int, String)? {
        guard let index = text.index(text.startIndex, offsetBy: offset, limitedBy: text.endIndex),
            index < text.endIndex
        else { return nil }
        let scalars = text.unicodeScalars
        var lineStart = scalars.startIndex
        var line = 0
        var cursor = scalars.startIndex
        while cursor < scalars.endIndex {
            let scalar = scalars[cursor]
            var next = scalars.index(after: cursor)
            guard isLineEnd(scalar) else {
                cursor = next
                continue
            }
            if scalar == "\r", next < scalars.endIndex, scalars[next] == "\n" { next = scalars.index(after: next) }
            guard next <= index, next < scalars.endIndex else {
                let contents = String(scalars[lineStart..<next])
                return (line, text.utf16.distance(from: lineStart, to: index), contents)
            }
            line += 1
            lineStart = next
            cursor = next
        }
        return (line, text.utf16.distance(from: lineStart, to: index), String(scalars[lineStart...]))
    }

    private static func isLineEnd(_ scalar: Unicode.Scalar) -> Bool {
        ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(scalar)
    }

    /// Whether the text ends in a newline as Foundation's `CharacterSet.newlines` has them; else one is added.
    private static func endingWithNewline(_ text: String) -> String {
        guard let last = text.unicodeScalars.last else { return "\n" }
        let newline = (0x0A...0x0D).contains(last.value) || isLineEnd(last)
        return newline ? text : text + "\n"
    }
}
