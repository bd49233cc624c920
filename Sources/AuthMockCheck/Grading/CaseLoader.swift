public import AuthMockCore

/// Reads conformance cases: scenario files with `case:` and `expect:` sections. The scenario is read by
/// the core's reader, and these sections by the same reader in the same pass, so that every problem of
/// the file is reported at once and in the file's order, as `file:line:column: … — …`.
public enum CaseLoader {
    /// A file as the runner reads it: the scenario `serve` would play, and its case when it has one.
    public typealias File = (scenario: Scenario, conformance: CaseDefinition?)

    /// Reads and validates a case file; a file that cannot be read is a diagnostic at `path:1:1`.
    /// `files` reads it and the user files it names: hosts pass ``ScenarioFileReader/fileSystem``.
    public static func load(file path: String, files: ScenarioFileReader) throws(ScenarioLoadError) -> File {
        try load(yaml: ScenarioLoader.text(of: path, files: files), file: path, files: files)
    }

    /// Parses and validates the text of a case file (or of a plain scenario, whose `conformance` is nil).
    public static func load(
        yaml text: String, file: String, files: ScenarioFileReader
    ) throws(ScenarioLoadError) -> File {
        try ScenarioReader(file: file, files: files)
            .read(text, empty: ScenarioLoader.noScenario, ScenarioReader.caseFile)
    }

    /// The keys of the case's sections, as ``ScenarioLoader/keys`` gives the scenario's: the single source
    /// for the docs and the schema test.
    public static let keys: [String: [String]] = [
        "case": ["title", "reference", "features", "timeout", "request", "give", "leak", "then"],
        "case.then": ["path", "host", "as", "proxy-as"],
        "case.request": ["method", "path", "body", "body-bytes", "body-stdin", "repeat", "parallel", "plain-http"],
        "case.give": [
            "password", "proxy-password", "socks-password", "ca", "proxy-ca", "pin", "cert-pin", "client-certificate",
            "timeout", "credentials-in", "header", "netrc",
        ],
        "case.give.netrc": ["machine", "login", "password"],
        "expect": ["outcome", "outcome-grade", "implemented", "met", "checks"],
        "check": ["that", "grade", "sequence", "never", "at-most", "at-least", "of", "after", "observe"],
        "pattern": PatternKeys.all.map(\.name),
    ]
}

/// Reads the `case:` and `expect:` sections of a scenario file, with the scenario loader's diagnostics.
extension ScenarioReader {
    /// What the scenario offers, for checking that a case's `give:` can be given.
    struct CaseContext {
        var hasUsers: Bool
        var tls: TLSSettings?
        var proxyUsers: Bool
        var proxyTLS: Bool
        var socksUsers: Bool
        var userCounts: (users: Int, proxyUsers: Int?)  // for `then:` (CaseLoader+Transfer)

        init(_ scenario: Scenario) {
            proxyTLS = scenario.proxy?.tls != nil
            socksUsers = !(scenario.socks5?.users.isEmpty ?? true)
            hasUsers = !scenario.users.isEmpty && scenario.users.allSatisfy(\.knowsPassword)
            tls = scenario.tls
            proxyUsers = !(scenario.proxy?.users.isEmpty ?? true)
                && (scenario.proxy?.users.allSatisfy(\.knowsPassword) ?? false)
            userCounts = Self.userCounts(scenario)
        }
    }

    /// The scenario at `root` and its case: the case's sections are read where the scenario reader
    /// leaves them, before the rules that span the scenario's sections.
    func caseFile(_ root: YAMLNode) -> CaseLoader.File? {
        var conformance: CaseDefinition?
        let read = self.scenario(root) { fields, scenario in
            conformance = caseDefinition(
                case: fields.entries["case"], expect: fields.entries["expect"], context: CaseContext(scenario)
            )
        }
        return read.map { ($0, conformance) }
    }

    /// A list of client features (`case.features`, a profile's `skip-features`), each one the runner knows:
    /// a typo must not skip a case silently. A case may need one of several (`pinning|cert-pinning`).
    func features(_ node: YAMLNode, _ what: String, alternatives: Bool = false) -> [String] {
        checkedStrings(node, what, item: "a feature") { entry in
            let names = entry.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            if names.count > 1 && !alternatives {
                return ("'\(entry)' names several features", "list each feature the client lacks on its own")
            }
            guard let unknown = names.first(where: { !CaseDefinition.knownFeatures.contains($0) }) else { return nil }
            let hint = Suggestion.hint(for: unknown, in: CaseDefinition.knownFeatures, noun: "features")
            return ("feature '\(unknown)' is not known", hint)
        } ?? []
    }

    func caseDefinition(
        case caseEntry: (key: YAMLNode, value: YAMLNode)?, expect expectEntry: (key: YAMLNode, value: YAMLNode)?,
        context: CaseContext
    ) -> CaseDefinition? {
        switch (caseEntry, expectEntry) {
        case (nil, nil):
            return nil
        case (let entry?, nil):
            report(entry.key, "a `case:` needs an `expect:` section", hint: "add `expect:` with an outcome and checks")
            return nil
        case (nil, let entry?):
            report(
                entry.key, "`expect:` belongs to a conformance case",
                hint: "add a `case:` section with at least a title"
            )
            return nil
        case (let caseEntry?, let expectEntry?):
            let allowed = CaseLoader.keys["case"]!
            guard let fields = mapping(caseEntry.value, "case", allowed: allowed, required: ["title"]) else {
                return nil
            }
            var definition = CaseDefinition(title: fields["title"].flatMap { string($0, "case.title") } ?? "")
            definition.reference = fields["reference"].flatMap { string($0, "case.reference") }
            if let node = fields["features"] {
                definition.features = features(node, "case.features", alternatives: true)
            }
            if let node = fields["timeout"] { definition.timeout = duration(node, "case.timeout") }
            if let node = fields["request"] { definition.request = caseRequest(node, context: context) }
            if let node = fields["give"] { definition.give = caseInputs(node, context: context) }
            if let node = fields["leak"] { definition.leak = leakRow(node) }
            if let entry = fields.entries["then"] {
                definition.then = caseTransfer(entry, features: definition.features, context: context)
            }
            definition.expectations = expectations(expectEntry.value)
            return definition
        }
    }

    private func caseRequest(_ node: YAMLNode, context: CaseContext) -> CaseRequest {
        var request = CaseRequest()
        guard let fields = mapping(node, "case.request", allowed: CaseLoader.keys["case.request"]!) else {
            return request
        }
        if let node = fields["method"], let method = string(node, "case.request.method") {
            if Self.isToken(method) {
                request.method = method.uppercased()
            } else {
                report(node, "method '\(method)' is not an HTTP token", hint: "write GET, POST, PUT…")
            }
        }
        if let node = fields["path"], let path = string(node, "case.request.path") {
            if path.hasPrefix("/"), !path.contains(where: \.isWhitespace) {
                request.path = path
            } else {
                report(
                    node, "path '\(path)' must start with '/' and hold no white space", hint: "e.g. /dir/index.html?a=b"
                )
            }
        }
        switch (fields["body"], fields["body-bytes"]) {
        case (let text?, nil):
            request.body = string(text, "case.request.body", allowEmpty: true).map { Array($0.utf8) }
        case (nil, let count?):
            if let count = int(count, "case.request.body-bytes", in: 1...64 * 1024 * 1024) {
                request.body = Self.generatedBody(count)
            }
        case (_?, let second?):
            report(
                second, "give either body or body-bytes, not both",
                hint: "body is text; body-bytes generates that many bytes"
            )
        case (nil, nil):
            break
        }
        if request.body != nil, fields["method"] == nil { request.method = "POST" }
        if let node = fields["body-stdin"] {
            request.bodyOnStdin = bool(node, "case.request.body-stdin") ?? false
            if request.bodyOnStdin, request.body == nil {
                report(node, "case.request.body-stdin needs a body", hint: "give `body:` or `body-bytes:`")
            }
        }
        if let node = fields["repeat"] { request.repeatCount = int(node, "case.request.repeat", in: 1...100) ?? 1 }
        if let node = fields["parallel"] { request.parallel = int(node, "case.request.parallel", in: 1...64) ?? 1 }
        if let node = fields["plain-http"] {
            request.plainHTTP = bool(node, "case.request.plain-http") ?? false
            if request.plainHTTP, context.tls?.plainHTTP != true {
                report(
                    node, "case.request.plain-http needs a plain HTTP listener",
                    hint: "add `plain-http: true` under `tls:`"
                )
            }
        }
        return request
    }

    /// A body of `count` bytes that shows where it was cut: every line numbers its own offset.
    static func generatedBody(_ count: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 32)
        while bytes.count < count {
            let offset = String(bytes.count)
            let padded = String(repeating: "0", count: max(0, 9 - offset.count)) + offset
            bytes += Array(("authmock body, byte " + padded + "\n").utf8)
        }
        return Array(bytes.prefix(count))
    }

    private func caseInputs(_ node: YAMLNode, context: CaseContext) -> CaseInputs {
        var inputs = CaseInputs()
        guard let fields = mapping(node, "case.give", allowed: CaseLoader.keys["case.give"]!) else { return inputs }
        // An input the scenario cannot provide would be silently ignored: say so instead.
        let impossible: [(String, Bool, String)] = [
            (
                "password", !context.hasUsers,
                "the scenario has no users whose passwords it knows (a user file holds hashes only)"
            ),
            ("proxy-password", !context.proxyUsers, "the scenario has no proxy users whose passwords it knows"),
            ("socks-password", !context.socksUsers, "the scenario has no socks5 users"),
            ("ca", context.tls == nil, "the scenario has no tls: section"),
            ("proxy-ca", !context.proxyTLS, "the scenario's proxy has no tls: (it is no HTTPS proxy)"),
            ("pin", context.tls == nil, "the scenario has no tls: section"),
            ("cert-pin", context.tls == nil, "the scenario has no tls: section"),
            (
                "client-certificate", context.tls.map { $0.clientCertificate == .none } ?? true,
                "the scenario asks for no client certificate"
            ),
        ]
        for (key, cannot, why) in impossible where cannot {
            if let keyNode = fields.entries[key]?.key {
                report(
                    keyNode, "case.give.\(key) cannot be given: \(why)",
                    hint: "remove it, or add what it needs to the scenario"
                )
            }
        }
        if let node = fields["password"] {
            inputs.password = choice(node, "case.give.password", CaseInputs.Secret.self) ?? .right
        }
        if let node = fields["proxy-password"] {
            inputs.proxyPassword = choice(node, "case.give.proxy-password", CaseInputs.Secret.self) ?? .right
        }
        if let node = fields["socks-password"] {
            inputs.socksPassword = choice(node, "case.give.socks-password", CaseInputs.Secret.self) ?? .right
        }
        if let node = fields["ca"] { inputs.ca = bool(node, "case.give.ca") ?? true }
        if let node = fields["proxy-ca"] { inputs.proxyCA = bool(node, "case.give.proxy-ca") ?? true }
        if let node = fields["pin"] { inputs.pin = choice(node, "case.give.pin", CaseInputs.Pin.self) ?? .none }
        if let node = fields["cert-pin"] {
            inputs.certificatePin = choice(node, "case.give.cert-pin", CaseInputs.Pin.self) ?? .none
        }
        if let node = fields["client-certificate"] {
            inputs.clientCertificate = bool(node, "case.give.client-certificate") ?? false
        }
        if let node = fields["timeout"] { inputs.timeout = duration(node, "case.give.timeout") }
        credentialInputs(fields, hasUsers: context.hasUsers, into: &inputs)
        return inputs
    }

    private func expectations(_ node: YAMLNode) -> Expectations {
        var expectations = Expectations()
        guard let fields = mapping(node, "expect", allowed: CaseLoader.keys["expect"]!) else { return expectations }
        if let node = fields["outcome"] {
            expectations.outcome = choice(node, "expect.outcome", ExpectedOutcome.self) ?? .any
        }
        if let node = fields["outcome-grade"] {
            expectations.outcomeGrade = choice(node, "expect.outcome-grade", Grade.self) ?? .fail
        }
        if let node = fields["implemented"] {
            // One pattern, or a list that must all match.
            if case .sequence(let items) = node {
                if items.isEmpty {
                    report(node, "expect.implemented is an empty list", hint: "give a pattern, or leave it out")
                }
                expectations.implemented = items.compactMap { pattern($0, "expect.implemented") }
            } else if let single = pattern(node, "expect.implemented") {
                expectations.implemented = [single]
            }
        }
        if let node = fields["met"] {
            // One pattern, or requests that must come in this order.
            if case .sequence(let items) = node {
                if items.isEmpty {
                    report(node, "expect.met is an empty list", hint: "give a pattern, or leave it out")
                }
                expectations.met = items.enumerated().compactMap {
                    pattern($0.element, "expect.met item \($0.offset + 1)")
                }
            } else if let single = pattern(node, "expect.met") {
                expectations.met = [single]
            }
        }
        if let node = fields["checks"], let items = sequence(node, "expect.checks") {
            expectations.checks = items.compactMap(check)
        }
        if expectations.outcome == .any, expectations.checks.isEmpty {
            report(
                fields.node, "the case expects nothing", hint: "give `outcome: success|failure` or at least one check"
            )
        }
        return expectations
    }

    private func check(_ node: YAMLNode) -> Check? {
        let allowed = CaseLoader.keys["check"]!
        guard let fields = mapping(node, "a check", allowed: allowed, required: ["that"]) else { return nil }
        let that = fields["that"].flatMap { string($0, "check.that") } ?? ""
        let grade = fields["grade"].flatMap { choice($0, "check.grade", Grade.self) } ?? .fail
        let rules = ["sequence", "never", "at-most", "at-least", "observe"].filter { fields[$0] != nil }
        let hint = "give one of sequence, never, at-most/at-least (with of), observe"
        if rules.isEmpty {
            report(node, "the check '\(that)' has no rule", hint: hint)
            return nil
        }
        let after = fields["after"].flatMap { pattern($0, "check.after") }
        if let sequenceNode = fields["sequence"] {
            let patterns = sequenceRule(sequenceNode, fields, rules: rules)
            return patterns.map { Check(that: that, grade: grade, rule: .sequence($0)) }
        }
        if let observeNode = fields["observe"] {
            let observation = observeRule(observeNode, fields, rules: rules)
            return observation.map { Check(that: that, grade: .informational, rule: .observe($0)) }
        }
        if let neverNode = fields["never"] {
            guard rules == ["never"] else {
                let others = rules.filter { $0 != "never" }.joined(separator: ", ")
                report(neverNode, "never cannot be combined with \(others)", hint: "split it into several checks")
                return nil
            }
            if let node = fields["of"] {
                let message = "`of` goes with at-most and at-least; never names its pattern itself"
                report(node, message, hint: "remove `of`")
            }
            guard let pattern = pattern(neverNode, "check.never") else { return nil }
            return Check(that: that, grade: grade, rule: .count(pattern, min: nil, max: 0, after: after))
        }
        return countRule(node, fields).map { pattern, min, max in
            Check(that: that, grade: grade, rule: .count(pattern, min: min, max: max, after: after))
        }
    }

    /// A check's `sequence:`, its only rule; nil when an item (or the check) has a problem.
    private func sequenceRule(_ node: YAMLNode, _ fields: Fields, rules: [String]) -> [EntryPattern]? {
        guard rules == ["sequence"] else {
            let found = rules.joined(separator: ", ")
            report(node, "a check takes one rule, found \(found)", hint: "split it into several checks")
            return nil
        }
        if let node = fields["after"] ?? fields["of"] {
            report(node, "`after` and `of` go with never, at-most and at-least", hint: "remove it")
        }
        guard let items = sequence(node, "check.sequence") else { return nil }
        if items.isEmpty { report(node, "the sequence is empty", hint: "list at least one request pattern") }
        let patterns = items.enumerated().compactMap { pattern($0.element, "sequence item \($0.offset + 1)") }
        return patterns.count == items.count ? patterns : nil
    }

    /// A check's `observe:`, its only rule; `grade`, `after` and `of` mean nothing beside it.
    private func observeRule(_ node: YAMLNode, _ fields: Fields, rules: [String]) -> Check.Observation? {
        guard rules == ["observe"] else {
            let found = rules.joined(separator: ", ")
            report(node, "a check takes one rule, found \(found)", hint: "split it into several checks")
            return nil
        }
        for key in ["grade", "after", "of"] {
            if let keyNode = fields.entries[key]?.key {
                let hint = "observations are always informational; remove it"
                report(keyNode, "`\(key)` has no effect on an observe check", hint: hint)
            }
        }
        return choice(node, "check.observe", Check.Observation.self)
    }

    /// A check's `at-most:` and `at-least:`, and the pattern `of:` they count.
    private func countRule(_ node: YAMLNode, _ fields: Fields) -> (EntryPattern, min: Int?, max: Int?)? {
        let max = fields["at-most"].flatMap { int($0, "check.at-most", in: 0...1_000_000) }
        let min = fields["at-least"].flatMap { int($0, "check.at-least", in: 0...1_000_000) }
        guard let ofNode = fields["of"] else {
            let hint = "add `of: {credentials: any}` or another pattern"
            report(node, "at-most and at-least count the requests matching `of`", hint: hint)
            return nil
        }
        if let min, let max, min > max {
            let message = "at-least \(min) exceeds at-most \(max)"
            report(fields["at-least"]!, message, hint: "no client could pass; swap them")
        }
        guard let pattern = pattern(ofNode, "check.of"), min != nil || max != nil else { return nil }
        return (pattern, min, max)
    }

    /// A request pattern, read key by key as ``PatternKeys/all`` declares them; nil when it has a problem.
    func pattern(_ node: YAMLNode, _ what: String) -> EntryPattern? {
        guard let fields = mapping(node, what, allowed: CaseLoader.keys["pattern"]!) else { return nil }
        let before = diagnostics.count
        var pattern = EntryPattern()
        for key in PatternKeys.all {
            if let node = fields[key.name] { key.read(node, "\(what).\(key.name)", by: self, into: &pattern) }
        }
        if pattern.kind == .tls {
            // TLS connection records carry no HTTP fields: such a pattern would match nothing.
            for key in PatternKeys.all where !key.onTLSRecords {
                if let keyNode = fields.entries[key.name]?.key {
                    report(
                        keyNode, "\(what).\(key.name) never matches a TLS connection record",
                        hint: "TLS records have a verdict, tls and hop; drop kind: tls or this key"
                    )
                }
            }
        }
        return diagnostics.count == before ? pattern : nil
    }
}
