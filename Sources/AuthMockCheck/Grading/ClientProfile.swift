public import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How to run one HTTP client against a case: its command line, the arguments that depend on which
/// inputs a case gives, and the features it lacks.
///
/// ```yaml
/// name: curl
/// version: [curl, --version]
/// command: [curl, -sS, --fail, -L]
/// args:
///   - when: [ca_file]
///     add: [--cacert, "{ca_file}"]
/// per-fetch: ["{url}"]
/// ```
public struct ClientProfile: Sendable, Equatable {
    public var name: String
    public var description: String
    /// A command that prints the client's version on its first line (for reports).
    public var versionCommand: [String]?
    /// Run once before the suite (e.g. compile an adapter); a failure makes every case `error`.
    public var prepare: [String]?
    /// A process started once per job slot that runs each case's command for the runner (``WarmPool``):
    /// an interpreter with the library already imported, forking a child per case. nil: a fresh process.
    public var warm: [String]?
    /// At most this many cases at once, whatever `--jobs` says: for a client so heavy (a browser) that more
    /// at once only starves each of them past its deadline. nil: no cap.
    public var jobs: Int?
    /// Seconds a case may take when the case sets none and `--timeout` is not given (a browser's start-up
    /// counts). nil: the runner's default.
    public var timeout: Double?
    /// Features the client lacks: cases that need them are `skip`.
    public var skipFeatures: [String]
    /// General text about the client for the matrix (what the adapter uses, the library's version): text
    /// that explains no particular cell. A cell's explanation is a `cells:` entry, checked against the run.
    public var notes: String?
    /// What it does with certificates, trust and pins in general (`tls-notes:`): the matrix's "TLS and
    /// pinning" note.
    public var tlsNotes: String?
    /// Why the client got the verdict it got in particular cells (`cells:`), each entry naming the verdict
    /// it explains, so that `authmock matrix` can tell when the run no longer agrees.
    public var cells: [CellNote] = []

    /// The `cells:` entry that explains a case, if any.
    public func cellNote(for id: String) -> CellNote? {
        cells.first { $0.cases.contains(id) }
    }

    /// Both notes as the matrix shows them under the client.
    public var matrixNotes: String? {
        let parts = [notes, tlsNotes.map { "**TLS and pinning.** " + $0 }]
            .compactMap { $0.map { ScenarioReader.trimmed($0, newlines: true) } }
            .filter { !$0.isEmpty }
        return parts.isEmpty ? nil : parts.joined(separator: "\n\n")
    }
    /// The pages of the library's documentation the adapter follows (`documentation:`), for people who
    /// check that it calls the API as its users are taught to.
    public var documentation: [String] = []
    /// How the client says it crashed, beyond dying of a signal (`crash:`).
    public var crash = CrashSignature()
    /// Headers the adapter sends that hold a credential (`credential-headers:`, e.g. an API key), counted
    /// like `Authorization` wherever a case looks for credentials leaving their authority.
    public var credentialHeaders: [String] = []

    /// What the client needs installed, for scripts that set a machine up (`ci/conformance`): the runner
    /// itself installs nothing.
    public var install: Install
    public var command: [String]
    public var arguments: [ConditionalArguments]
    /// Appended once per fetch (`repeat × parallel` times), after everything else: URLs for curl and wget.
    public var perFetch: [String]
    /// The arguments of a case's second transfer (`then:`), appended after the first's when the case has
    /// one: curl's `--next` and the options it resets. nil: the client reads `AUTHMOCK_URL2` itself.
    public var secondTransfer: SecondTransfer?
    /// Environment variables for the client (`env:`), placeholders filled; a variable whose placeholders
    /// are not all given in a case is left unset there. For libraries configured by the environment
    /// (gss-ntlmssp reads its credentials from `NTLM_USER_FILE`).
    public var environment: [String: String] = [:]
    /// Where the commands run (and relative program paths are found): the profile file's directory, so
    /// that a profile names its adapter next to it wherever authmock is started. nil: the current one.
    public var directory: String?

    public init(
        name: String, description: String = "", versionCommand: [String]? = nil, prepare: [String]? = nil,
        skipFeatures: [String] = [], notes: String? = nil, command: [String], arguments: [ConditionalArguments] = [],
        perFetch: [String] = []
    ) {
        self.name = name
        self.description = description
        self.versionCommand = versionCommand
        self.prepare = prepare
        self.skipFeatures = skipFeatures
        self.notes = notes
        self.install = Install()
        self.command = command
        self.arguments = arguments
        self.perFetch = perFetch
    }

    /// One `cells:` entry: the cases it explains, the verdict it explains for them, why, and links.
    public struct CellNote: Sendable, Equatable {
        /// Case names, exactly (no globs: a new case must not inherit an explanation written for others).
        public var cases: [String]
        /// The verdict the explanation is about; the run's cell must have it.
        public var verdict: CaseVerdict
        /// Markdown.
        public var why: String
        /// http(s) URLs.
        public var links: [String]
        /// Where the entry stands in the profile (the verdict's line and column), for diagnostics.
        public var line: Int
        public var column: Int
        /// Where each case name stands, in the order of `cases`.
        public var casePositions: [Position]

        public struct Position: Sendable, Equatable {
            public var line: Int
            public var column: Int
            public init(line: Int, column: Int) {
                self.line = line
                self.column = column
            }
        }

        public init(
            cases: [String], verdict: CaseVerdict, why: String, links: [String] = [], line: Int = 1, column: Int = 1,
            casePositions: [Position]? = nil
        ) {
            self.cases = cases
            self.verdict = verdict
            self.why = why
            self.links = links
            self.line = line
            self.column = column
            self.casePositions = casePositions ?? cases.map { _ in Position(line: line, column: column) }
        }
    }

    /// Packages a profile's client needs, by where they come from.
    public struct Install: Sendable, Equatable {
        /// Debian packages (`apt-get install`).
        public var debian: [String] = []
        /// Python packages (`python3 -m pip install`).
        public var pypi: [String] = []

        public init(debian: [String] = [], pypi: [String] = []) {
            self.debian = debian
            self.pypi = pypi
        }
    }

    /// How a client run that crashed is told from one that refused cleanly (README, "The client contract"):
    /// a signal always is a crash; these add exit statuses (an adapter's uncaught exception: 70, EX_SOFTWARE)
    /// and the first words of a stderr line a runtime prints for one (`Traceback (most recent call last):`,
    /// `Exception in thread "main"`, `panic: `).
    public struct CrashSignature: Sendable, Equatable {
        public var exitStatuses: [Int32] = []
        public var stderrPrefixes: [String] = []

        public init(exitStatuses: [Int32] = [], stderrPrefixes: [String] = []) {
            self.exitStatuses = exitStatuses
            self.stderrPrefixes = stderrPrefixes
        }

        public var isEmpty: Bool { exitStatuses.isEmpty && stderrPrefixes.isEmpty }

        /// What says the run crashed, for the finding (`exit status 70`, `stderr: Traceback … — IndexError: …`);
        /// nil when nothing does.
        public func evidence(exitStatus: Int32?, stderr: some StringProtocol) -> String? {
            let said = bannerStory(stderr)
            if let status = exitStatus, exitStatuses.contains(status) {
                return "exit status \(status), which its profile reserves for a crash"
                    + (said.map { "; its stderr says: \($0)" } ?? Self.lastLine(stderr).map { ": \($0)" } ?? "")
            }
            return said.map { "its stderr says: \($0)" }
        }

        /// The first stderr line that starts with a declared prefix, and the exception where the runtime
        /// names it: on the banner line on the JVM (`Exception in thread "main" java.…`), on the last line
        /// in Python (a stack frame, `at …`, is no name).
        private func bannerStory(_ stderr: some StringProtocol) -> String? {
            for line in stderr.split(whereSeparator: \.isNewline) {
                let text = line.drop { $0 == " " || $0 == "\t" }
                guard stderrPrefixes.contains(where: { text.hasPrefix($0) }) else { continue }
                let banner = String(text.prefix(300))
                let last = Self.lastLine(stderr).map { $0 == banner || $0.hasPrefix("at ") ? "" : " … \($0)" } ?? ""
                return banner + last
            }
            return nil
        }

        /// The last non-empty line, cut to 300 characters: usually the exception and its message.
        static func lastLine(_ text: some StringProtocol) -> String? {
            text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) }
                .map { String(ScenarioReader.trimmed($0).prefix(300)) }
        }
    }

    /// `then:`: the second transfer's fixed words, conditional arguments and per-fetch words, in that order.
    public struct SecondTransfer: Sendable, Equatable {
        public var command: [String]
        public var arguments: [ConditionalArguments]
        public var perFetch: [String]

        public init(command: [String] = [], arguments: [ConditionalArguments] = [], perFetch: [String] = []) {
            self.command = command
            self.arguments = arguments
            self.perFetch = perFetch
        }
    }

    /// Arguments added when every input in `when` is given and none in `unless` is.
    public struct ConditionalArguments: Sendable, Equatable {
        public var when: [String]
        public var unless: [String]
        public var add: [String]

        public init(when: [String], unless: [String] = [], add: [String]) {
            self.when = when
            self.unless = unless
            self.add = add
        }
    }

    /// Every placeholder the runner fills, in the order the README documents them: ``ClientInput``'s names.
    public static let placeholders = ClientInput.names

    /// The client's environment variables for a case: those of `env:` whose placeholders are all given.
    public func environment(values: [String: String]) -> [String: String] {
        let complete = environment.filter { _, value in
            ScenarioReader.placeholderNames(in: value).filter(Self.placeholders.contains)
                .allSatisfy { values[$0] != nil }
        }
        return complete.mapValues { Self.substitute($0, values) }
    }

    /// The command line for one case: conditional arguments whose inputs are `given`, placeholders
    /// replaced by `values` (a placeholder with no value becomes the empty string); then, when the case has
    /// a second transfer (`url2` is given), the profile's `then:` arguments.
    public func commandLine(values: [String: String], given: Set<String>, fetches: Int) -> [String] {
        var line = command + Self.chosen(arguments, given: given)
        for _ in 0..<max(1, fetches) { line += perFetch }
        if given.contains(ClientInput.url2.rawValue), let then = secondTransfer {
            line += then.command + Self.chosen(then.arguments, given: given) + then.perFetch
        }
        return line.map { Self.substitute($0, values) }
    }

    /// The words of the conditional arguments whose inputs are `given`.
    static func chosen(_ arguments: [ConditionalArguments], given: Set<String>) -> [String] {
        arguments.filter { $0.when.allSatisfy(given.contains) && !$0.unless.contains(where: given.contains) }
            .flatMap(\.add)
    }

    /// Replaces `{name}` for every known placeholder; other braces stay as they are.
    public static func substitute(_ text: String, _ inputs: [String: String]) -> String {
        guard text.contains("{") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), placeholders.contains(String(after[..<close])) {
                result += inputs[String(after[..<close])] ?? ""
                rest = after[after.index(after: close)...]
            } else {
                result += "{"
                rest = after
            }
        }
        return result + rest
    }

    /// An absolute http(s) URL with a host and nothing a page could misread: no whitespace, quotes or angle
    /// brackets.
    public static func isLink(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }),
            let host = text.dropFirst(scheme.count).split(separator: "/").first, !host.isEmpty
        else { return false }
        return !text.unicodeScalars.contains {
            $0.value <= 0x20 || $0.value == 0x7F || "\"'<>`\\".unicodeScalars.contains($0)
        }
    }

    /// A profile for a bare command (`authmock check -- curl …`).
    public static func command(_ arguments: [String]) -> ClientProfile {
        let name = arguments.first.map { String($0.split(separator: "/").last ?? Substring($0)) }
        return ClientProfile(name: name ?? "client", command: arguments)
    }
}
