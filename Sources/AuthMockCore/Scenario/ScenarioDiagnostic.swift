/// One problem in a scenario file, at a position, with what would be right.
public struct ScenarioDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int
    /// What is wrong.
    public var message: String
    /// What would be right; nil when there is nothing useful to add.
    public var hint: String?

    public init(file: String, line: Int, column: Int, message: String, hint: String? = nil) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
        self.hint = hint
    }

    /// `file:line:column: what is wrong — what would be right`.
    public var description: String {
        "\(file):\(line):\(column): \(message)" + (hint.map { " — \($0)" } ?? "")
    }
}

/// A scenario file that cannot be served, with every problem found in it.
public struct ScenarioLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    public var diagnostics: [ScenarioDiagnostic]

    public init(diagnostics: [ScenarioDiagnostic]) {
        self.diagnostics = diagnostics
    }

    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}

/// "Did you mean …?" for every reader of authmock's files (`package`: the runner's readers use it too).
package enum Suggestion {
    /// The closest candidate within a small edit distance, for "did you mean …?".
    package static func closest(to word: String, in candidates: [String]) -> String? {
        let lowered = word.lowercased()
        let scored = candidates.map { ($0, distance(lowered, $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(1, min(3, word.count / 3)) else { return nil }
        return best.0
    }

    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    /// "did you mean 'x'?" or "expected one of: a, b, c".
    package static func hint(for word: String, in candidates: [String], noun: String = "one of") -> String {
        if let match = closest(to: word, in: candidates) {
            return "did you mean '\(match)'? (expected \(noun): \(candidates.joined(separator: ", ")))"
        }
        return "expected \(noun): \(candidates.joined(separator: ", "))"
    }
}
