public import AuthMockCore

/// The check `authmock matrix` runs on every client's `cells:` entries: each entry must name cases of the
/// suite and explain the verdict the run gave them, so that an explanation cannot outlive the behaviour it
/// explains. A cell that did not pass and has no entry is only a warning: the run can always be ahead of
/// the profiles.
public enum CellNoteCheck {
    /// What the check found for one client.
    public struct Result: Sendable, Equatable {
        /// Entries that contradict the run or name no case of the suite: `file:line:column: message`.
        public var contradictions: [ScenarioDiagnostic] = []
        /// Cases that neither passed nor were skipped and that no entry explains, in the run's order.
        public var unexplained: [CaseReport] = []

        public init(contradictions: [ScenarioDiagnostic] = [], unexplained: [CaseReport] = []) {
            self.contradictions = contradictions
            self.unexplained = unexplained
        }

        /// `file: warning: CASE is VERDICT in the run and no cells: entry explains it` for each unexplained
        /// cell.
        public func warnings(file: String) -> [String] {
            unexplained.map {
                "\(file): warning: \($0.id) is \($0.verdict.rawValue) in the run and no `cells:` entry explains it"
            }
        }
    }

    /// Checks `profile`'s entries against `suite`, one client's (merged) run.
    /// - Parameters:
    ///   - file: the profile's path, for the diagnostics.
    ///   - known: the suite's case names when the suite is known; an entry naming another case is then a
    ///     contradiction. nil: only the cases of the run are checked.
    public static func check(
        _ profile: ClientProfile, against suite: SuiteReport, file: String, known: [String]? = nil
    ) -> Result {
        var result = Result()
        let run = Dictionary(suite.cases.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for note in profile.cells {
            for (id, position) in zip(note.cases, note.casePositions) {
                if let known, !known.contains(id) {
                    let hint = Suggestion.closest(to: id, in: known).map { "did you mean '\($0)'?" }
                        ?? "`authmock check --list` shows the names; remove the entry if the case was removed"
                    result.contradictions.append(ScenarioDiagnostic(
                        file: file, line: position.line, column: position.column,
                        message: "no case '\(id)' in the suite", hint: hint
                    ))
                    continue
                }
                guard let cell = run[id], cell.verdict != note.verdict else { continue }
                result.contradictions.append(ScenarioDiagnostic(
                    file: file, line: note.line, column: note.column,
                    message: "\(id) is \(cell.verdict.rawValue) in the run, the note says \(note.verdict.rawValue)",
                    hint: "update the entry's verdict and why to what the client does now (or remove the entry)"
                ))
            }
        }
        result.unexplained = suite.cases.filter {
            $0.verdict != .pass && $0.verdict != .skip && profile.cellNote(for: $0.id) == nil
        }
        return result
    }
}

extension ClientProfile.CellNote {
    /// Whether the entry explains the verdict the run gave the cell.
    func holds(for report: CaseReport) -> Bool { verdict == report.verdict }
}
