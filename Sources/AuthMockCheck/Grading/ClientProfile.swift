public import AuthMockCore
internal import Foundation
internal import Yams

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
        let parts = [notes, tlsNotes.map { "**TLS and pinning.** " + $0 }].compactMap { $0?.trimmingCharacters(in: .whitespacesAndNewlines) }
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
    /// Environment variables for the client (`env:`), placeholders filled; a variable whose placeholders
    /// are not all given in a case is left unset there. For libraries configured by the environment
    /// (gss-ntlmssp reads its credentials from `NTLM_USER_FILE`).
    public var environment: [String: String] = [:]
    /// Where the commands run (and relative program paths are found): the profile file's directory, so
    /// that a profile names its adapter next to it wherever authmock is started. nil: the current one.
    public var directory: String?

    public init(
        name: String, description: String = "", versionCommand: [String]? = nil, prepare: [String]? = nil, skipFeatures: [String] = [],
        notes: String? = nil, command: [String], arguments: [ConditionalArguments] = [], perFetch: [String] = []
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

        public init(cases: [String], verdict: CaseVerdict, why: String, links: [String] = [], line: Int = 1, column: Int = 1, casePositions: [Position]? = nil) {
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
            text.split(whereSeparator: \.isNewline).last { !$0.allSatisfy(\.isWhitespace) }.map { String($0.trimmingCharacters(in: .whitespaces).prefix(300)) }
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
            ScenarioReader.placeholderNames(in: value).filter(Self.placeholders.contains).allSatisfy { values[$0] != nil }
        }
        return complete.mapValues { Self.substitute($0, values) }
    }

    /// The command line for one case: conditional arguments whose inputs are `given`, placeholders
    /// replaced by `values` (a placeholder with no value becomes the empty string).
    public func commandLine(values: [String: String], given: Set<String>, fetches: Int) -> [String] {
        var line = command
        for conditional in arguments where conditional.when.allSatisfy(given.contains) && !conditional.unless.contains(where: given.contains) {
            line += conditional.add
        }
        for _ in 0..<max(1, fetches) { line += perFetch }
        return line.map { Self.substitute($0, values) }
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

    /// An absolute http(s) URL with a host and nothing a page could misread: no whitespace, quotes or angle brackets.
    public static func isLink(_ text: String) -> Bool {
        let lower = text.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }), let host = text.dropFirst(scheme.count).split(separator: "/").first,
            !host.isEmpty
        else { return false }
        return !text.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || "\"'<>`\\".unicodeScalars.contains($0) }
    }

    /// A profile for a bare command (`authmock check -- curl …`).
    public static func command(_ arguments: [String]) -> ClientProfile {
        ClientProfile(name: arguments.first.map { String($0.split(separator: "/").last ?? Substring($0)) } ?? "client", command: arguments)
    }
}

/// Reads client profiles (`clients/NAME.yaml`) strictly, with the scenario loader's diagnostics.
public enum ClientProfileLoader {
    public static let keys = [
        "name", "description", "version", "documentation", "prepare", "skip-features", "notes", "tls-notes", "cells", "install", "crash", "credential-headers", "command", "args",
        "per-fetch", "env",
    ]
    public static let installKeys = ["debian", "pypi"]
    public static let argumentKeys = ["when", "unless", "add"]
    public static let crashKeys = ["exit-status", "stderr"]
    public static let cellKeys = ["case", "verdict", "why", "links"]
    /// The verdicts a `cells:` entry may explain: every one but `error`, which is the runner's, never the client's.
    public static let cellVerdicts = CaseVerdict.allCases.filter { $0 != .error }
    /// What `when:` and `unless:` may name.
    public static let conditions = ClientInput.allCases.filter(\.isCondition).map(\.rawValue)

    /// Reads a profile's text; `file` names it in diagnostics. A profile names no other file to read.
    public static func load(yaml text: String, file: String) throws(ScenarioLoadError) -> ClientProfile {
        try ScenarioReader(file: file, files: .inMemory([:])).read(text, empty: ("the file holds no client profile", "start with `name:` and `command:`"), ScenarioReader.clientProfile)
    }
}

extension ScenarioReader {
    func clientProfile(_ root: Node) -> ClientProfile? {
        guard let fields = mapping(root, "the client profile", allowed: ClientProfileLoader.keys, required: ["name", "command"]) else { return nil }
        let name = fields["name"].flatMap { string($0, "name") } ?? ""
        let command = fields["command"].flatMap { words($0, "command") } ?? []
        if let node = fields["command"], command.isEmpty { report(node, "command is empty", hint: "give the program and its fixed arguments, e.g. [curl, -sS]") }
        var profile = ClientProfile(name: name, command: command)
        profile.description = fields["description"].flatMap { string($0, "description", allowEmpty: true) } ?? ""
        profile.versionCommand = fields["version"].flatMap { words($0, "version") }
        profile.prepare = fields["prepare"].flatMap { words($0, "prepare") }
        profile.documentation = fields["documentation"].map { links($0, "documentation") } ?? []
        if let node = fields["crash"], let crash = mapping(node, "crash", allowed: ClientProfileLoader.crashKeys, required: []) {
            if let statuses = crash["exit-status"], let items = sequence(statuses, "crash.exit-status") {
                for item in items {
                    if let status = int(item, "an exit status of crash.exit-status", in: 1...255) { profile.crash.exitStatuses.append(Int32(status)) }
                }
            }
            if let prefixes = crash["stderr"] {
                profile.crash.stderrPrefixes = checkedStrings(prefixes, "crash.stderr", item: "a stderr prefix") { text in
                    text.trimmingCharacters(in: .whitespaces).isEmpty ? ("an empty prefix would call every run a crash", "the first words a crash prints, e.g. \"Traceback (most recent call last):\"") : nil
                } ?? []
            }
        }
        if let node = fields["credential-headers"] {
            profile.credentialHeaders = checkedStrings(node, "credential-headers", item: "a header name") { name in
                name.isEmpty || name.contains(where: { $0 == ":" || $0.isWhitespace })
                    ? ("'\(name)' is not a header name", "a field name such as X-Api-Key, without the colon") : nil
            } ?? []
        }
        profile.notes = fields["notes"].flatMap { string($0, "notes", allowEmpty: true) }
        profile.tlsNotes = fields["tls-notes"].flatMap { string($0, "tls-notes", allowEmpty: true) }
        if let node = fields["cells"] { profile.cells = cellNotes(node) }
        if let node = fields["install"], let install = mapping(node, "install", allowed: ClientProfileLoader.installKeys, required: []) {
            profile.install.debian = install["debian"].flatMap { packages($0, "install.debian") } ?? []
            profile.install.pypi = install["pypi"].flatMap { packages($0, "install.pypi") } ?? []
        }
        if let node = fields["skip-features"] { profile.skipFeatures = features(node, "skip-features") }
        if let node = fields["args"], let items = sequence(node, "args") {
            for item in items {
                guard let argument = mapping(item, "an args item", allowed: ClientProfileLoader.argumentKeys, required: ["when", "add"]) else { continue }
                let when = argument["when"].flatMap { conditions($0, "when") } ?? []
                let unless = argument["unless"].flatMap { conditions($0, "unless") } ?? []
                let add = argument["add"].flatMap { words($0, "add") } ?? []
                profile.arguments.append(.init(when: when, unless: unless, add: add))
            }
        }
        profile.perFetch = fields["per-fetch"].flatMap { words($0, "per-fetch") } ?? []
        if let node = fields["env"], case .mapping(let map) = node {
            for (key, value) in map {
                guard let name = string(key, "an env name"), let text = words(.sequence(.init([value])), "env.\(name)")?.first else { continue }
                if name.isEmpty || name.contains("=") || name.contains(where: \.isWhitespace) {
                    report(key, "env name '\(name)' is not a variable name", hint: "e.g. NTLM_USER_FILE")
                    continue
                }
                profile.environment[name] = text
            }
        } else if let node = fields["env"] {
            report(node, "env must be a mapping of variable names to values", hint: "e.g. env: {NTLM_USER_FILE: \"{ntlm_user_file}\"}")
        }
        return profile
    }

    /// `cells:` entries: a case name or a list of them, a verdict, why, and optional http(s) links. A case
    /// explained by two entries is refused where the second names it.
    private func cellNotes(_ node: Node) -> [ClientProfile.CellNote] {
        guard let items = sequence(node, "cells") else { return [] }
        var notes: [ClientProfile.CellNote] = []
        var seen: [String: Int] = [:]
        for item in items {
            guard let entry = mapping(item, "a cells entry", allowed: ClientProfileLoader.cellKeys, required: ["case", "verdict", "why"]) else { continue }
            var cases: [(String, Node)] = []
            if let node = entry["case"] {
                let nodes: [Node]
                if case .sequence(let list) = node { nodes = Array(list) } else { nodes = [node] }
                if nodes.isEmpty { report(node, "case lists no case", hint: "name the case, e.g. case: digest.stale-nonce") }
                for caseNode in nodes {
                    guard let name = string(caseNode, "a case name") else { continue }
                    if name.contains("*") || name.contains("?") || name.contains(where: \.isWhitespace) {
                        report(caseNode, "case '\(name)' is not a case name", hint: "name each case exactly (no globs), e.g. case: [redirect.other-host, redirect.other-port]")
                        continue
                    }
                    if let line = seen[name] {
                        report(caseNode, "case '\(name)' is explained twice", hint: "keep one entry; the first is on line \(line)")
                        continue
                    }
                    seen[name] = caseNode.mark?.line ?? 0
                    cases.append((name, caseNode))
                }
            }
            var verdict: CaseVerdict?
            if let node = entry["verdict"], let text = string(node, "verdict") {
                let names = ClientProfileLoader.cellVerdicts.map(\.rawValue)
                if let value = CaseVerdict(rawValue: text), value != .error {
                    verdict = value
                } else if text == CaseVerdict.error.rawValue {
                    report(node, "verdict 'error' cannot be explained by a client's profile", hint: "error is the runner's; fix the run instead")
                } else {
                    report(node, "verdict '\(text)' is not known", hint: Suggestion.hint(for: text, in: names, noun: "verdicts"))
                }
            }
            let why = entry["why"].flatMap { string($0, "why") }?.trimmingCharacters(in: .whitespacesAndNewlines)
            if let node = entry["why"], why == "" { report(node, "why must not be empty", hint: "say why the client gets this verdict") }
            let links = entry["links"].flatMap { node in
                checkedStrings(node, "links", item: "a link") { link in
                    ClientProfile.isLink(link) ? nil : ("'\(link)' is not an http(s) URL", "give a full URL, e.g. https://github.com/curl/curl/issues/1")
                }
            } ?? []
            guard let verdict, let why, !why.isEmpty, !cases.isEmpty, let mark = entry["verdict"]?.mark else { continue }
            notes.append(.init(
                cases: cases.map(\.0), verdict: verdict, why: why, links: links, line: mark.line, column: mark.column,
                casePositions: cases.map { .init(line: $0.1.mark?.line ?? mark.line, column: $0.1.mark?.column ?? mark.column) }
            ))
        }
        return notes
    }

    private func words(_ node: Node, _ what: String) -> [String]? {
        guard let items = sequence(node, what) else { return nil }
        let words = items.compactMap { string($0, "an argument of \(what)", allowEmpty: true) }
        for (item, word) in zip(items, words) {
            // Other braces pass through untouched (curl's -w '%{http_code}'); only near-misses are typos.
            for name in Self.placeholderNames(in: word) where !ClientProfile.placeholders.contains(name) {
                if let known = Suggestion.closest(to: name, in: ClientProfile.placeholders) {
                    report(item, "placeholder {\(name)} is not known", hint: "did you mean {\(known)}?")
                }
            }
        }
        return words.count == items.count ? words : nil
    }

    /// One URL or a list of them, each http(s).
    private func links(_ node: Node, _ what: String) -> [String] {
        let list: Node = if case .scalar = node { .sequence(.init([node])) } else { node }
        return checkedStrings(list, what, item: "a URL of \(what)") { url in
            url.hasPrefix("https://") || url.hasPrefix("http://") ? nil : ("\(what) names '\(url)', which is not a URL", "the page the adapter follows, https://…")
        } ?? []
    }

    /// Package names: one word each, no options (`-y` would be read by apt-get as one).
    private func packages(_ node: Node, _ what: String) -> [String]? {
        checkedStrings(node, what, item: "a package of \(what)") { name in
            name.hasPrefix("-") || name.contains(where: \.isWhitespace)
                ? ("\(what) names '\(name)', which is not a package name", "one package per item, e.g. [curl, libssl-dev]; no options") : nil
        }
    }

    private func conditions(_ node: Node, _ what: String) -> [String]? {
        checkedStrings(node, what, item: "a condition") { name in
            ClientProfileLoader.conditions.contains(name)
                ? nil : ("\(what) names '\(name)', which is not an input", Suggestion.hint(for: name, in: ClientProfileLoader.conditions, noun: "inputs"))
        }
    }
}
