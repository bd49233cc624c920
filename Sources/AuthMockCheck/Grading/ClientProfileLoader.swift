public import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads client profiles (`clients/NAME.yaml`) strictly, with the scenario loader's diagnostics.
public enum ClientProfileLoader {
    public static let keys = [
        "name", "description", "version", "documentation", "prepare", "warm", "jobs", "timeout", "skip-features",
        "notes", "tls-notes", "cells", "install", "crash", "credential-headers", "command", "args", "per-fetch",
        "then", "env",
    ]
    /// The keys of `then:`, the second transfer's arguments.
    public static let thenKeys = ["command", "args", "per-fetch"]
    public static let installKeys = ["debian", "pypi"]
    public static let argumentKeys = ["when", "unless", "add"]
    public static let crashKeys = ["exit-status", "stderr"]
    public static let cellKeys = ["case", "verdict", "why", "links"]
    /// The verdicts a `cells:` entry may explain: every one but `error`, which is the runner's, never the
    /// client's.
    public static let cellVerdicts = CaseVerdict.allCases.filter { $0 != .error }
    /// What `when:` and `unless:` may name.
    public static let conditions = ClientInput.allCases.filter(\.isCondition).map(\.rawValue)

    /// Reads a profile's text; `file` names it in diagnostics. A profile names no other file to read.
    public static func load(yaml text: String, file: String) throws(ScenarioLoadError) -> ClientProfile {
        let empty = ("the file holds no client profile", "start with `name:` and `command:`")
        return try ScenarioReader(file: file, files: .inMemory([:]))
            .read(text, empty: empty, ScenarioReader.clientProfile)
    }
}

extension ScenarioReader {
    func clientProfile(_ root: YAMLNode) -> ClientProfile? {
        let allowed = ClientProfileLoader.keys
        guard let fields = mapping(root, "the client profile", allowed: allowed, required: ["name", "command"]) else {
            return nil
        }
        let name = fields["name"].flatMap { string($0, "name") } ?? ""
        let command = fields["command"].flatMap { words($0, "command") } ?? []
        if let node = fields["command"], command.isEmpty {
            report(node, "command is empty", hint: "give the program and its fixed arguments, e.g. [curl, -sS]")
        }
        var profile = ClientProfile(name: name, command: command)
        profile.description = fields["description"].flatMap { string($0, "description", allowEmpty: true) } ?? ""
        profile.versionCommand = fields["version"].flatMap { words($0, "version") }
        profile.prepare = fields["prepare"].flatMap { words($0, "prepare") }
        profile.warm = fields["warm"].flatMap { words($0, "warm") }
        profile.jobs = fields["jobs"].flatMap { int($0, "jobs", in: 1...64) }
        profile.timeout = fields["timeout"].flatMap { duration($0, "timeout") }
        profile.documentation = fields["documentation"].map { links($0, "documentation") } ?? []
        if let node = fields["crash"] { crash(node, into: &profile.crash) }
        if let node = fields["credential-headers"] {
            profile.credentialHeaders = checkedStrings(node, "credential-headers", item: "a header name") { name in
                name.isEmpty || name.contains(where: { $0 == ":" || $0.isWhitespace })
                    ? ("'\(name)' is not a header name", "a field name such as X-Api-Key, without the colon") : nil
            } ?? []
        }
        profile.notes = fields["notes"].flatMap { string($0, "notes", allowEmpty: true) }
        profile.tlsNotes = fields["tls-notes"].flatMap { string($0, "tls-notes", allowEmpty: true) }
        if let node = fields["cells"] { profile.cells = cellNotes(node) }
        if let node = fields["install"],
            let install = mapping(node, "install", allowed: ClientProfileLoader.installKeys, required: [])
        {
            profile.install.debian = install["debian"].flatMap { packages($0, "install.debian") } ?? []
            profile.install.pypi = install["pypi"].flatMap { packages($0, "install.pypi") } ?? []
        }
        if let node = fields["skip-features"] { profile.skipFeatures = features(node, "skip-features") }
        if let node = fields["args"] { profile.arguments = conditionalArguments(node) }
        profile.perFetch = fields["per-fetch"].flatMap { words($0, "per-fetch") } ?? []
        if let node = fields["then"],
            let then = mapping(node, "then", allowed: ClientProfileLoader.thenKeys, required: ["per-fetch"])
        {
            profile.secondTransfer = ClientProfile.SecondTransfer(
                command: then["command"].flatMap { words($0, "then.command") } ?? [],
                arguments: then["args"].map { conditionalArguments($0, "then.args") } ?? [],
                perFetch: then["per-fetch"].flatMap { words($0, "then.per-fetch") } ?? []
            )
        }
        if let node = fields["env"] { profile.environment = environment(node) }
        return profile
    }

    /// `crash:`: the exit statuses and the first words of the stderr lines that say the client crashed.
    private func crash(_ node: YAMLNode, into crash: inout ClientProfile.CrashSignature) {
        guard let fields = mapping(node, "crash", allowed: ClientProfileLoader.crashKeys, required: []) else { return }
        if let statuses = fields["exit-status"], let items = sequence(statuses, "crash.exit-status") {
            for item in items {
                if let status = int(item, "an exit status of crash.exit-status", in: 1...255) {
                    crash.exitStatuses.append(Int32(status))
                }
            }
        }
        if let prefixes = fields["stderr"] {
            crash.stderrPrefixes = checkedStrings(prefixes, "crash.stderr", item: "a stderr prefix") { text in
                guard ScenarioReader.trimmed(text).isEmpty else { return nil }
                return (
                    "an empty prefix would call every run a crash",
                    "the first words a crash prints, e.g. \"Traceback (most recent call last):\""
                )
            } ?? []
        }
    }

    /// `args:`: arguments added when inputs are given (`when`) and others are not (`unless`).
    private func conditionalArguments(
        _ node: YAMLNode, _ field: String = "args"
    ) -> [ClientProfile.ConditionalArguments] {
        guard let items = sequence(node, field) else { return [] }
        var arguments: [ClientProfile.ConditionalArguments] = []
        for item in items {
            let allowed = ClientProfileLoader.argumentKeys
            guard let argument = mapping(item, "an args item", allowed: allowed, required: ["when", "add"]) else {
                continue
            }
            let when = argument["when"].flatMap { conditions($0, "when") } ?? []
            let unless = argument["unless"].flatMap { conditions($0, "unless") } ?? []
            let add = argument["add"].flatMap { words($0, "add") } ?? []
            arguments.append(.init(when: when, unless: unless, add: add))
        }
        return arguments
    }

    /// `env:`: variable names and the values (with placeholders) the client gets them with.
    private func environment(_ node: YAMLNode) -> [String: String] {
        guard case .mapping(let map) = node else {
            report(
                node, "env must be a mapping of variable names to values",
                hint: "e.g. env: {NTLM_USER_FILE: \"{ntlm_user_file}\"}"
            )
            return [:]
        }
        var environment: [String: String] = [:]
        for (key, value) in map {
            guard let name = string(key, "an env name"),
                let text = words(.sequence(.init([value])), "env.\(name)")?.first
            else { continue }
            if name.isEmpty || name.contains("=") || name.contains(where: \.isWhitespace) {
                report(key, "env name '\(name)' is not a variable name", hint: "e.g. NTLM_USER_FILE")
                continue
            }
            environment[name] = text
        }
        return environment
    }

    /// `cells:` entries: a case name or a list of them, a verdict, why, and optional http(s) links. A case
    /// explained by two entries is refused where the second names it.
    private func cellNotes(_ node: YAMLNode) -> [ClientProfile.CellNote] {
        guard let items = sequence(node, "cells") else { return [] }
        var notes: [ClientProfile.CellNote] = []
        var seen: [String: Int] = [:]
        for item in items {
            let allowed = ClientProfileLoader.cellKeys
            let required = ["case", "verdict", "why"]
            guard let entry = mapping(item, "a cells entry", allowed: allowed, required: required) else { continue }
            let cases = entry["case"].map { cellCases($0, seen: &seen) } ?? []
            let verdict = entry["verdict"].flatMap(cellVerdict)
            let why = entry["why"].flatMap { string($0, "why") }.map { ScenarioReader.trimmed($0, newlines: true) }
            if let node = entry["why"], why == "" {
                report(node, "why must not be empty", hint: "say why the client gets this verdict")
            }
            let links = entry["links"].flatMap { node in
                checkedStrings(node, "links", item: "a link") { link in
                    guard !ClientProfile.isLink(link) else { return nil }
                    let hint = "give a full URL, e.g. https://github.com/curl/curl/issues/1"
                    return ("'\(link)' is not an http(s) URL", hint)
                }
            } ?? []
            guard let verdict, let why, !why.isEmpty, !cases.isEmpty, let mark = entry["verdict"]?.mark else {
                continue
            }
            notes.append(.init(
                cases: cases.map(\.0), verdict: verdict, why: why, links: links, line: mark.line, column: mark.column,
                casePositions: cases.map {
                    .init(line: $0.1.mark?.line ?? mark.line, column: $0.1.mark?.column ?? mark.column)
                }
            ))
        }
        return notes
    }

    /// A `cells:` entry's cases, each named exactly and explained by no earlier entry (`seen`: the line of
    /// the entry that names each case).
    private func cellCases(_ node: YAMLNode, seen: inout [String: Int]) -> [(String, YAMLNode)] {
        let nodes: [YAMLNode]
        if case .sequence(let list) = node { nodes = Array(list) } else { nodes = [node] }
        if nodes.isEmpty { report(node, "case lists no case", hint: "name the case, e.g. case: digest.stale-nonce") }
        var cases: [(String, YAMLNode)] = []
        for caseNode in nodes {
            guard let name = string(caseNode, "a case name") else { continue }
            if name.contains("*") || name.contains("?") || name.contains(where: \.isWhitespace) {
                let hint = "name each case exactly (no globs), e.g. case: [redirect.other-host, redirect.other-port]"
                report(caseNode, "case '\(name)' is not a case name", hint: hint)
                continue
            }
            if let line = seen[name] {
                let hint = "keep one entry; the first is on line \(line)"
                report(caseNode, "case '\(name)' is explained twice", hint: hint)
                continue
            }
            seen[name] = caseNode.mark?.line ?? 0
            cases.append((name, caseNode))
        }
        return cases
    }

    /// A `cells:` entry's verdict: any but `error`, which is the runner's.
    private func cellVerdict(_ node: YAMLNode) -> CaseVerdict? {
        guard let text = string(node, "verdict") else { return nil }
        if let value = CaseVerdict(rawValue: text), value != .error { return value }
        if text == CaseVerdict.error.rawValue {
            let hint = "error is the runner's; fix the run instead"
            report(node, "verdict 'error' cannot be explained by a client's profile", hint: hint)
        } else {
            let names = ClientProfileLoader.cellVerdicts.map(\.rawValue)
            let hint = Suggestion.hint(for: text, in: names, noun: "verdicts")
            report(node, "verdict '\(text)' is not known", hint: hint)
        }
        return nil
    }

    private func words(_ node: YAMLNode, _ what: String) -> [String]? {
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
    private func links(_ node: YAMLNode, _ what: String) -> [String] {
        let list: YAMLNode = if case .scalar = node { .sequence(.init([node])) } else { node }
        return checkedStrings(list, what, item: "a URL of \(what)") { url in
            url.hasPrefix("https://") || url.hasPrefix("http://")
                ? nil : ("\(what) names '\(url)', which is not a URL", "the page the adapter follows, https://…")
        } ?? []
    }

    /// Package names: one word each, no options (`-y` would be read by apt-get as one).
    private func packages(_ node: YAMLNode, _ what: String) -> [String]? {
        checkedStrings(node, what, item: "a package of \(what)") { name in
            name.hasPrefix("-") || name.contains(where: \.isWhitespace)
                ? (
                    "\(what) names '\(name)', which is not a package name",
                    "one package per item, e.g. [curl, libssl-dev]; no options"
                ) : nil
        }
    }

    private func conditions(_ node: YAMLNode, _ what: String) -> [String]? {
        checkedStrings(node, what, item: "a condition") { name in
            guard !ClientProfileLoader.conditions.contains(name) else { return nil }
            let hint = Suggestion.hint(for: name, in: ClientProfileLoader.conditions, noun: "inputs")
            return ("\(what) names '\(name)', which is not an input", hint)
        }
    }
}
