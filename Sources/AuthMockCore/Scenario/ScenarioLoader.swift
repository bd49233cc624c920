package import Yams

/// Reads scenario files (YAML, schema version 1) into ``Scenario`` values, strictly.
///
/// Every key is known, every value has one type, and every problem is reported at its position as
/// `file:line:column: what is wrong — what would be right`. All problems of a file are reported at once,
/// so that a user fixes them in one pass; a file with any problem yields no scenario at all.
///
/// ```yaml
/// version: 1
/// name: digest
/// users:
///   - name: alice
///     password: wonderland
/// challenges:
///   - scheme: Digest
///     algorithm: SHA-256
/// ```
public enum ScenarioLoader {
    /// Reads and validates a scenario file; a file that cannot be read is a diagnostic at `path:1:1`.
    /// `files` reads it and the files it names: hosts pass ``ScenarioFileReader/fileSystem``.
    public static func load(file path: String, files: ScenarioFileReader) throws(ScenarioLoadError) -> Scenario {
        try load(yaml: text(of: path, files: files), file: path, files: files)
    }

    /// Parses and validates scenario text; `file` names it in diagnostics, and files the scenario names
    /// (`users: {htpasswd: …}`) are read through `files`, relative to `file`'s directory.
    ///
    /// The `case:` and `expect:` sections of a conformance case are accepted and not read: they are the
    /// runner's (AuthMockCheck's `CaseLoader` reads them), and `serve` has no use for them.
    public static func load(yaml text: String, file: String, files: ScenarioFileReader) throws(ScenarioLoadError) -> Scenario {
        try ScenarioReader(file: file, files: files).read(text, empty: noScenario) { reader in
            { root in reader.scenario(root, sections: { _, _ in }) }
        }
    }

    /// What to say about a file with nothing in it.
    package static let noScenario = (message: "the file holds no scenario", hint: "start with `version: 1` and `name: …`, then users, challenges and resources")

    /// The text of a scenario file, or the diagnostic at `path:1:1` that says why it cannot be read.
    package static func text(of path: String, files: ScenarioFileReader) throws(ScenarioLoadError) -> String {
        do {
            return try files.read(path)
        } catch {
            throw ScenarioLoadError(diagnostics: [
                ScenarioDiagnostic(file: path, line: 1, column: 1, message: "cannot read the file (\(ScenarioFileReader.reason(error)))", hint: "give the path of a scenario YAML file")
            ])
        }
    }

    /// The keys the loader accepts, by section: the single source for the docs and the schema test.
    /// `case` and `expect` are the runner's sections; their own keys are AuthMockCheck's `CaseLoader.keys`.
    public static let keys: [String: [String]] = [
        "scenario": ["version", "name", "description", "realm", "users", "challenges", "challenge-style", "nonce", "unauthorized", "resources", "tls", "timeline", "proxy", "second-port", "faults", "case", "expect"],
        "user": ["name", "password", "domain"],
        "users file": ["htpasswd", "htdigest"],
        "challenge.basic": ["scheme", "charset"],
        "challenge.digest": ["scheme", "algorithm", "qop", "opaque", "userhash", "charset"],
        "challenge.custom": ["custom"],
        "challenge.ntlm": ["scheme", "server-challenge", "target-info", "allow-v1", "domain", "server"],
        "nonce": ["lifetime", "max-uses", "strict-nc", "remember", "stale-first"],
        "unauthorized": ["challenge", "body", "content-type", "chunked", "close"],
        "proxy.unauthorized": ["challenge", "body", "content-type", "chunked", "close", "status"],
        "resource": ["path", "protected", "status", "body", "content-type", "headers"],
        "tls": ["identity", "key", "hosts", "intermediate", "client-certificate", "plain-http", "rotate"],
        "tls.rotate": ["after-requests", "keep-key"],
        "proxy": ["realm", "users", "challenges", "unauthorized", "faults"],
        "fault": ["when", "effect", "duration", "times", "path"],
        "timeline step": ["after-successes", "after", "at-request", "user", "password", "lock", "unlock", "remove"],
    ]
}

/// A mapping's entries by key, keeping the key nodes for positions.
package struct Fields {
    package var node: Node
    package var entries: [String: (key: Node, value: Node)] = [:]

    package subscript(key: String) -> Node? { entries[key]?.value }
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
    package func read<T>(_ text: String, empty: (message: String, hint: String), _ read: (ScenarioReader) -> (Node) -> T?) throws(ScenarioLoadError) -> T {
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch {
            throw ScenarioLoadError(diagnostics: [diagnostic(forYAMLError: error, text: text)])
        }
        guard let root, let value = read(self)(root), diagnostics.isEmpty else {
            throw ScenarioLoadError(
                diagnostics: diagnostics.isEmpty
                    ? [ScenarioDiagnostic(file: file, line: 1, column: 1, message: empty.message, hint: empty.hint)] : diagnostics
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

    package func report(_ node: Node?, _ message: String, hint: String? = nil) {
        let mark = node?.mark
        diagnostics.append(ScenarioDiagnostic(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, message: message, hint: hint))
    }

    func diagnostic(forYAMLError error: any Error, text: String) -> ScenarioDiagnostic {
        if let yaml = error as? YamlError {
            switch yaml {
            case .duplicatedKeysInMapping(let duplicates, let context):
                // Yams reports the first occurrence; point at the second, which is the one to remove.
                let key = duplicates.first ?? "?"
                let first = context.mark
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                let indent = String(repeating: " ", count: max(0, first.column - 1))
                let second = lines.indices.dropFirst(first.line).first { index in
                    let line = lines[index]
                    return line.hasPrefix(indent + key + ":") || line.hasPrefix(indent + "\"" + key + "\":")
                }
                return ScenarioDiagnostic(
                    file: file, line: second.map { $0 + 1 } ?? first.line, column: first.column,
                    message: "key '\(key)' appears twice in the same mapping", hint: "keep one; the first is on line \(first.line)"
                )
            case .scanner(let context, let problem, let mark, _), .parser(let context, let problem, let mark, _),
                .composer(let context, let problem, let mark, _):
                let where_ = context.map { " (\($0.text))" } ?? ""
                return ScenarioDiagnostic(
                    file: file, line: mark.line, column: mark.column, message: "YAML syntax: \(problem)\(where_)",
                    hint: "check indentation and quoting on this line"
                )
            default:
                break
            }
        }
        return ScenarioDiagnostic(file: file, line: 1, column: 1, message: "YAML syntax: \(error)", hint: "the file must be valid YAML")
    }

    // MARK: - Typed access

    package func describe(_ node: Node) -> String {
        switch node {
        case .mapping: return "a mapping"
        case .sequence: return "a list"
        case .alias: return "an alias"
        case .scalar(let scalar):
            return isNull(scalar) ? "nothing (null)" : "'\(scalar.string)'"
        }
    }

    package func isNull(_ scalar: Node.Scalar) -> Bool {
        scalar.style == .plain && ["", "~", "null", "Null", "NULL"].contains(scalar.string)
    }

    package func mapping(_ node: Node, _ what: String, allowed: [String], required: [String] = []) -> Fields? {
        guard case .mapping(let mapping) = node else {
            report(node, "\(what) must be a mapping, found \(describe(node))", hint: "write it as `key: value` lines, keys: \(allowed.joined(separator: ", "))")
            return nil
        }
        var fields = Fields(node: node)
        for (keyNode, valueNode) in mapping {
            guard case .scalar(let key) = keyNode else {
                report(keyNode, "keys of \(what) must be plain words, found \(describe(keyNode))")
                continue
            }
            guard allowed.contains(key.string) else {
                report(keyNode, "unknown key '\(key.string)' in \(what)", hint: Suggestion.hint(for: key.string, in: allowed, noun: "keys"))
                continue
            }
            if let first = fields.entries[key.string] {
                let line = first.key.mark?.line ?? 0
                report(keyNode, "key '\(key.string)' appears twice in \(what)", hint: "keep one; the first is on line \(line)")
                continue
            }
            fields.entries[key.string] = (keyNode, valueNode)
        }
        for key in required where fields.entries[key] == nil {
            report(node, "\(what) has no '\(key)'", hint: "add `\(key): …`")
        }
        return fields
    }

    package func string(_ node: Node, _ what: String, allowEmpty: Bool = false) -> String? {
        guard case .scalar(let scalar) = node, !isNull(scalar) || (allowEmpty && scalar.style != .plain) else {
            report(node, "\(what) must be a string, found \(describe(node))", hint: "quote it if it looks like something else, e.g. \"…\"")
            return nil
        }
        if !allowEmpty && scalar.string.isEmpty {
            report(node, "\(what) must not be empty")
            return nil
        }
        return scalar.string
    }

    package func bool(_ node: Node, _ what: String) -> Bool? {
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

    package func int(_ node: Node, _ what: String, in range: ClosedRange<Int>) -> Int? {
        guard case .scalar(let scalar) = node, scalar.style == .plain, let value = Int(scalar.string) else {
            report(node, "\(what) must be a whole number, found \(describe(node))", hint: "write a number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        guard range.contains(value) else {
            report(node, "\(what) is \(value), out of range", hint: "use a number from \(range.lowerBound) to \(range.upperBound)")
            return nil
        }
        return value
    }

    /// `30s`, `2m`, `500ms`, `1h`, or a bare number of seconds.
    package func duration(_ node: Node, _ what: String) -> Double? {
        let hint = "write a duration such as 30s, 500ms, 2m or 1h"
        guard case .scalar(let scalar) = node, !isNull(scalar) else {
            report(node, "\(what) must be a duration, found \(describe(node))", hint: hint)
            return nil
        }
        let text = scalar.string.trimmingCharacters(in: .whitespaces)
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

    package func sequence(_ node: Node, _ what: String) -> [Node]? {
        guard case .sequence(let sequence) = node else {
            report(node, "\(what) must be a list, found \(describe(node))", hint: "write one `- ` item per line")
            return nil
        }
        return Array(sequence)
    }

    package func choice<T: RawRepresentable & CaseIterable>(_ node: Node, _ what: String, _ type: T.Type) -> T? where T.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let value = T(rawValue: text.lowercased()) { return value }
        report(node, "\(what) '\(text)' is not known", hint: Suggestion.hint(for: text, in: T.allCases.map(\.rawValue)))
        return nil
    }

    // MARK: - Text rules

    /// Control characters other than tab, which HTTP forbids in header values (RFC 9110 §5.5).
    package static func hasControlCharacter(_ text: String) -> Bool {
        text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }
    }

    static func isIdentifier(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || "._-".unicodeScalars.contains($0) }
    }

    /// Whether every character of a text is a token character (RFC 9110 §5.6.2), as methods and header
    /// names must be.
    package static func isToken(_ text: String) -> Bool {
        text.utf8.allSatisfy(AuthHeader.isTokenChar)
    }
}

/// The scenario's own sections: the root, users and user files, and the rules that span sections.
extension ScenarioReader {
    /// Reads a scenario file's root. The runner's sections (`case:`, `expect:`) are accepted and left to
    /// `sections`, which is called with the scenario read so far, before the rules that span sections:
    /// where those problems have always been reported, so that a file's diagnostics keep their order.
    package func scenario(_ root: Node, sections: (_ fields: Fields, _ scenario: Scenario) -> Void) -> Scenario? {
        guard let fields = mapping(root, "the scenario", allowed: ScenarioLoader.keys["scenario"]!, required: ["version", "name"]) else {
            return nil
        }
        if let node = fields["version"], let version = int(node, "version", in: 0...Int.max), version != Scenario.schemaVersion {
            report(node, "schema version \(version) is not supported", hint: "this authmock reads `version: \(Scenario.schemaVersion)`")
        }
        let name = fields["name"].flatMap { string($0, "name") } ?? ""
        if let node = fields["name"], !name.isEmpty, !Self.isIdentifier(name) {
            report(node, "name '\(name)' has characters other than letters, digits, '.', '_' and '-'", hint: "use a short identifier such as `digest-sha256`")
        }
        let description = fields["description"].flatMap { string($0, "description", allowEmpty: true) } ?? ""
        let realm = fields["realm"].flatMap { string($0, "realm") } ?? "authmock"
        if let node = fields["realm"], Self.hasControlCharacter(realm) {
            report(node, "realm contains a line break or control character", hint: "it is sent in a header: keep it on one line")
        }

        let reportedBeforeUsers = diagnostics.count
        let users = fields["users"].map { self.users($0, realm: realm) } ?? []
        let usersHadErrors = diagnostics.count > reportedBeforeUsers
        let reportedBefore = diagnostics.count
        let challenges = fields["challenges"].map(challenges) ?? []
        let challengesHadErrors = diagnostics.count > reportedBefore
        var style = ChallengeStyle.separateFields
        if let node = fields["challenge-style"], let text = string(node, "challenge-style") {
            if let parsed = ChallengeStyle(rawValue: text) {
                style = parsed
            } else {
                report(node, "challenge-style '\(text)' is not known", hint: Suggestion.hint(for: text, in: ChallengeStyle.allCases.map(\.rawValue)))
            }
        }
        let nonce = fields["nonce"].map(noncePolicy) ?? NoncePolicy()
        let unauthorized = fields["unauthorized"].map { self.unauthorized($0) } ?? UnauthorizedResponse()
        let resources = fields["resources"].map(resources) ?? [Resource(path: "/")]
        let tls = fields["tls"].map(tlsSettings)
        let timeline = fields["timeline"].map { timelineSteps($0, users: users) } ?? []
        let proxy = fields["proxy"].flatMap(proxySettings)
        let secondPort = fields["second-port"].flatMap { bool($0, "second-port") } ?? false
        let faults = fields["faults"].map { self.faults($0, what: "faults") } ?? []
        let scenario = Scenario(
            name: name, description: description, realm: realm, users: users, challenges: challenges, challengeStyle: style,
            nonce: nonce, unauthorized: unauthorized, resources: resources, tls: tls, timeline: timeline, proxy: proxy,
            secondPort: secondPort, faults: faults
        )
        sections(fields, scenario)
        checkAcrossSections(scenario, fields: fields, root: root, usersHadErrors: usersHadErrors, challengesHadErrors: challengesHadErrors)
        return scenario
    }

    /// Rules that span sections (skipped where a section's own errors already explain the gap).
    func checkAcrossSections(_ scenario: Scenario, fields: Fields, root: Node, usersHadErrors: Bool, challengesHadErrors: Bool) {
        if let node = fields["resources"] { checkLinks(node, secondPort: scenario.secondPort, plainHTTP: scenario.tls?.plainHTTP == true) }
        if scenario.resources.contains(where: \.protected), scenario.challenges.isEmpty, !challengesHadErrors {
            report(fields["challenges"] ?? root, "protected resources need at least one challenge", hint: "add `challenges:` with `- scheme: Basic` or `- scheme: Digest`")
        }
        let needsUsers = scenario.challenges.contains { if case .custom = $0 { false } else { true } }
        if let node = fields["users"] { checkUserFileFits(scenario.users, challenges: scenario.challenges, at: node) }
        if needsUsers, scenario.users.isEmpty, !usersHadErrors {
            report(fields.entries["challenges"]?.key ?? root, "Basic and Digest challenges need users", hint: "add `users:` with `- name: alice` and `password: …`")
        }
    }

    /// `{name}` in resource headers must name a listener the scenario has; otherwise a redirect would
    /// point nowhere and a client would be blamed for it.
    func checkLinks(_ resourcesNode: Node, secondPort: Bool, plainHTTP: Bool) {
        guard case .sequence(let items) = resourcesNode else { return }
        for item in items {
            guard case .mapping(let resource) = item, let headersNode = resource["headers"], case .mapping(let headers) = headersNode else { continue }
            for (_, valueNode) in headers {
                guard case .scalar(let scalar) = valueNode else { continue }
                for name in Self.placeholderNames(in: scalar.string) {
                    switch name {
                    case "second_url" where !secondPort:
                        report(valueNode, "{second_url} names the second port, which this scenario does not open", hint: "add `second-port: true`")
                    case "http_url" where !plainHTTP:
                        report(valueNode, "{http_url} names the plain-HTTP listener, which this scenario does not open", hint: "add `plain-http: true` under tls:")
                    case _ where Engine.linkNames.contains(name):
                        break
                    default:
                        if let close = Suggestion.closest(to: name, in: Engine.linkNames) {
                            report(valueNode, "{\(name)} is not a listener's name", hint: "did you mean {\(close)}? (known: \(Engine.linkNames.map { "{\($0)}" }.joined(separator: ", ")))")
                        }
                    }
                }
            }
        }
    }
    // MARK: - Users

    func users(_ node: Node, realm: String) -> [User] {
        if case .mapping = node { return usersFromFile(node, realm: realm) }
        guard let items = sequence(node, "users") else { return [] }
        var users: [User] = []
        var seen: [String: Int] = [:]
        for item in items {
            guard let fields = mapping(item, "a user", allowed: ScenarioLoader.keys["user"]!, required: ["name", "password"]) else { continue }
            guard let name = fields["name"].flatMap({ string($0, "a user's name") }),
                let password = fields["password"].flatMap({ string($0, "a user's password", allowEmpty: true) })
            else { continue }
            let domain = fields["domain"].flatMap { string($0, "a user's domain") }
            if name.contains(":") {
                report(fields["name"], "user name '\(name)' contains ':'", hint: "Basic separates user and password with ':', so names cannot hold one")
            }
            if let line = seen[name] {
                report(fields["name"], "user '\(name)' is listed twice", hint: "keep one; the first is on line \(line)")
            }
            seen[name] = fields["name"]?.mark?.line ?? 0
            users.append(User(name: name, password: password, domain: domain))
        }
        return users
    }

    /// `users: {htpasswd: FILE}` or `users: {htdigest: FILE}`, relative to the scenario file.
    func usersFromFile(_ node: Node, realm: String) -> [User] {
        guard let fields = mapping(node, "users (a user file)", allowed: ScenarioLoader.keys["users file"]!) else { return [] }
        let kinds = ScenarioLoader.keys["users file"]!.filter { fields[$0] != nil }
        guard kinds.count == 1, let kind = kinds.first, let pathNode = fields[kind], let path = string(pathNode, "users.\(kind)") else {
            if kinds.count != 1 {
                report(node, "users: takes one user file, htpasswd or htdigest", hint: "write `users: {htpasswd: users.htpasswd}`, or list the users")
            }
            return []
        }
        let resolved = ScenarioFileReader.resolve(path, relativeTo: file)
        let text: String
        do {
            text = try files.read(resolved)
        } catch {
            report(pathNode, "cannot read the \(kind) file '\(resolved)' (\(ScenarioFileReader.reason(error)))", hint: "the path is relative to the scenario file's directory")
            return []
        }
        let users: [User]
        let fileDiagnostics: [ScenarioDiagnostic]
        if kind == "htpasswd" {
            (users, fileDiagnostics) = UserFile.htpasswd(text, file: resolved)
        } else {
            let read = UserFile.htdigest(text, file: resolved)
            (users, fileDiagnostics) = (read.users.filter { $0.realm == realm }.map(\.user), read.diagnostics)
            if users.isEmpty, read.diagnostics.isEmpty, !read.users.isEmpty {
                let realms = Array(Set(read.users.map(\.realm))).sorted().map { "'\($0)'" }.joined(separator: ", ")
                report(pathNode, "no user in '\(resolved)' belongs to the realm '\(realm)'", hint: "htdigest entries are made for one realm; this file has \(realms): set `realm:` to one of them")
                return []
            }
        }
        diagnostics += fileDiagnostics
        // Judged by this file's own problems, not by any found earlier in the scenario.
        if users.isEmpty, fileDiagnostics.isEmpty {
            report(pathNode, "the \(kind) file '\(resolved)' holds no users", hint: "add one with `\(kind == "htpasswd" ? "htpasswd -B FILE alice" : "htdigest FILE '\(realm)' alice")`")
        }
        return users
    }

    /// What a user file cannot do: htpasswd hashes serve Basic only; htdigest entries serve Basic and
    /// Digest with MD5 or MD5-sess. NTLM and Negotiate need the password itself.
    func checkUserFileFits(_ users: [User], challenges: [Challenge], at node: Node) {
        let fromHtpasswd = users.contains { if case .htdigest? = $0.stored { false } else { $0.stored != nil } }
        let fromHtdigest = users.contains { if case .htdigest? = $0.stored { true } else { false } }
        guard fromHtpasswd || fromHtdigest else { return }
        for challenge in challenges {
            switch challenge {
            case .basic, .custom:
                continue
            case .digest(let digest):
                if fromHtpasswd {
                    report(node, "Digest cannot use an htpasswd file: its hashes cannot make Digest's H(A1)", hint: "use an htdigest file (`htdigest -c FILE realm name`), or list the users with passwords")
                    return
                }
                if let other = digest.algorithm, other != .md5, other != .md5Sess {
                    report(node, "Digest with \(other.token) cannot use an htdigest file: it holds MD5 hashes only", hint: "offer `algorithm: MD5` (or MD5-sess), or list the users with passwords")
                    return
                }
            case .ntlm, .negotiate:
                report(node, "NTLM and Negotiate need the users' passwords, which a user file does not hold", hint: "list the users with `name:` and `password:`")
                return
            }
        }
    }
}

/// The `challenges:` section: Basic, Digest, NTLM, Negotiate and custom challenges.
extension ScenarioReader {
    func challenges(_ node: Node) -> [Challenge] {
        guard let items = sequence(node, "challenges") else { return [] }
        if items.count > 16 {
            report(node, "\(items.count) challenges are more than authmock offers at once", hint: "keep 16 or fewer")
        }
        var result: [Challenge] = []
        var basicSeen = false
        for item in items {
            guard let challenge = challenge(item) else { continue }
            if case .basic = challenge {
                if basicSeen { report(item, "a second Basic challenge", hint: "offer Basic once") }
                basicSeen = true
            }
            if result.contains(where: { $0.scheme == challenge.scheme && ["NTLM", "Negotiate"].contains($0.scheme) }) {
                report(item, "a second \(challenge.scheme) challenge", hint: "offer \(challenge.scheme) once")
            }
            result.append(challenge)
        }
        return result
    }

    func challenge(_ node: Node) -> Challenge? {
        let all = Array(Set(ScenarioLoader.keys["challenge.digest"]! + ScenarioLoader.keys["challenge.basic"]! + ScenarioLoader.keys["challenge.ntlm"]! + ["custom"])).sorted()
        if case .mapping(let map) = node, map["custom"] != nil { return customChallenge(node) }
        guard let fields = mapping(node, "a challenge", allowed: all, required: ["scheme"]),
            let schemeNode = fields["scheme"], let scheme = string(schemeNode, "scheme")
        else { return nil }
        switch scheme.lowercased() {
        case "basic":
            rejectKeys(fields, notIn: ScenarioLoader.keys["challenge.basic"]!, scheme: "Basic")
            return .basic(BasicChallenge(charsetUTF8: fields["charset"].map(charset) ?? false))
        case "digest":
            return .digest(digestChallenge(fields))
        case "ntlm", "negotiate":
            let ntlm = ntlmChallenge(fields, scheme: scheme.lowercased() == "ntlm" ? "NTLM" : "Negotiate")
            return scheme.lowercased() == "ntlm" ? .ntlm(ntlm) : .negotiate(ntlm)
        default:
            report(
                schemeNode, "unknown scheme '\(scheme)'",
                hint: (Suggestion.closest(to: scheme, in: ["Basic", "Digest", "NTLM", "Negotiate"]).map { "did you mean '\($0)'? " } ?? "")
                    + "authmock accepts Basic, Digest, NTLM and Negotiate; to offer a scheme it does not accept, write `- custom: '\(scheme) realm=\"…\"'`"
            )
            return nil
        }
    }

    /// `- custom: 'Newauth realm="apps"'`: a challenge authmock offers but does not accept, as written.
    func customChallenge(_ node: Node) -> Challenge? {
        guard let fields = mapping(node, "a custom challenge", allowed: ScenarioLoader.keys["challenge.custom"]!) else { return nil }
        guard let raw = fields["custom"].flatMap({ string($0, "custom") }) else { return nil }
        if Self.hasControlCharacter(raw) {
            report(fields["custom"], "custom challenge contains a line break or control character", hint: "it is sent in a header: keep it on one line")
            return nil
        }
        do throws(AuthSyntaxError) {
            _ = try AuthHeader.parseChallenges(raw)
        } catch {
            report(fields["custom"], "custom challenge is not a valid challenge: \(error.reason)", hint: "write it as a scheme and parameters, e.g. 'Newauth realm=\"apps\", type=1'")
            return nil
        }
        return .custom(raw)
    }

    func digestChallenge(_ fields: Fields) -> DigestChallenge {
        rejectKeys(fields, notIn: ScenarioLoader.keys["challenge.digest"]!, scheme: "Digest")
        var digest = DigestChallenge()
        if let node = fields["algorithm"], let text = string(node, "algorithm") {
            if let algorithm = DigestAlgorithm(token: text) {
                digest.algorithm = algorithm
            } else {
                report(node, "unknown Digest algorithm '\(text)'", hint: Suggestion.hint(for: text, in: DigestAlgorithm.allCases.map(\.token)))
            }
        }
        if let node = fields["qop"] { digest.qop = qop(node) ?? digest.qop }
        if let node = fields["opaque"] {
            if case .scalar(let scalar) = node, scalar.style == .plain, ["true", "false"].contains(scalar.string.lowercased()) {
                digest.opaque = scalar.string.lowercased() == "true" ? .generated : .none
            } else if let value = string(node, "opaque") {
                if value.contains(where: { $0 == "\"" || $0 == "\\" }) || Self.hasControlCharacter(value) {
                    report(node, "opaque must not contain quotes, backslashes or control characters", hint: "use letters, digits and + / =")
                }
                digest.opaque = .fixed(value)
            }
        }
        if let node = fields["userhash"] { digest.userhash = bool(node, "userhash") ?? false }
        if let node = fields["charset"] { digest.charsetUTF8 = charset(node) }
        if digest.effectiveAlgorithm.isSession, digest.qop.isEmpty {
            report(fields["algorithm"] ?? fields.node, "\(digest.effectiveAlgorithm.token) needs a qop: its A1 uses the cnonce, which only comes with qop", hint: "set `qop: auth` or use a non-session algorithm")
        }
        return digest
    }

    /// NTLM's and Negotiate's settings; `scheme` names the one being read in diagnostics.
    func ntlmChallenge(_ fields: Fields, scheme: String) -> NTLMChallenge {
        rejectKeys(fields, notIn: ScenarioLoader.keys["challenge.ntlm"]!, scheme: scheme)
        var ntlm = NTLMChallenge()
        if let node = fields["server-challenge"], let text = string(node, "server-challenge") {
            let bytes = stride(from: 0, to: text.count, by: 2).compactMap { offset -> UInt8? in
                let start = text.index(text.startIndex, offsetBy: offset)
                return UInt8(text[start..<text.index(start, offsetBy: min(2, text.count - offset))], radix: 16)
            }
            if text.count == 16, bytes.count == 8, text.allSatisfy(\.isHexDigit) {
                ntlm.serverChallenge = bytes
            } else {
                report(node, "server-challenge '\(text)' is not 8 bytes in hex", hint: "write 16 hex digits, e.g. 0123456789abcdef")
            }
        }
        if let node = fields["target-info"] { ntlm.targetInfo = bool(node, "target-info") ?? true }
        if let node = fields["allow-v1"] { ntlm.allowV1 = bool(node, "allow-v1") ?? true }
        for key in ["domain", "server"] {
            guard let node = fields[key], let text = string(node, key) else { continue }
            // Code points, as schema.json's maxLength counts: one Character may hold thousands
            // (combining marks), which the CHALLENGE's 16-bit lengths cannot carry.
            guard text.unicodeScalars.count <= 256, !Self.hasControlCharacter(text) else {
                report(node, "\(key) is longer than 256 characters or has control characters", hint: "NTLM names are short, e.g. EXAMPLE")
                continue
            }
            if key == "domain" { ntlm.domain = text } else { ntlm.server = text }
        }
        return ntlm
    }

    func rejectKeys(_ fields: Fields, notIn allowed: [String], scheme: String) {
        for (key, entry) in fields.entries where !allowed.contains(key) {
            report(entry.key, "'\(key)' does not apply to \(scheme) challenges", hint: "\(scheme) takes: \(allowed.joined(separator: ", "))")
        }
    }

    func charset(_ node: Node) -> Bool {
        guard let text = string(node, "charset") else { return false }
        guard text.lowercased() == "utf-8" else {
            report(node, "charset '\(text)' is not allowed", hint: "RFC 7617 and RFC 7616 allow only UTF-8")
            return false
        }
        return true
    }

    func qop(_ node: Node) -> [DigestQOP]? {
        let hint = "write auth, auth-int, [auth, auth-int], or none (RFC 2069 mode)"
        var words: [(Node, String)] = []
        switch node {
        case .scalar:
            guard let text = string(node, "qop") else { return nil }
            if text.lowercased() == "none" { return [] }
            words = [(node, text)]
        case .sequence(let items):
            for item in items {
                if let text = string(item, "a qop value") { words.append((item, text)) }
            }
            if words.isEmpty {
                report(node, "qop is an empty list", hint: hint)
                return nil
            }
        default:
            report(node, "qop must be a word or a list, found \(describe(node))", hint: hint)
            return nil
        }
        var result: [DigestQOP] = []
        for (item, word) in words {
            guard let value = DigestQOP(rawValue: word.lowercased()) else {
                report(item, "unknown qop '\(word)'", hint: hint)
                continue
            }
            if result.contains(value) {
                report(item, "qop '\(word)' is listed twice", hint: hint)
            }
            result.append(value)
        }
        return result
    }
}

/// The scenario's other sections: nonce, 401, resources, proxy, faults, timeline, TLS, and resource headers.
extension ScenarioReader {
    // MARK: - Nonce, 401, resources

    func noncePolicy(_ node: Node) -> NoncePolicy {
        var policy = NoncePolicy()
        guard let fields = mapping(node, "nonce", allowed: ScenarioLoader.keys["nonce"]!) else { return policy }
        if let node = fields["lifetime"] { policy.lifetime = duration(node, "nonce.lifetime") }
        if let node = fields["max-uses"] { policy.maxUses = int(node, "nonce.max-uses", in: 1...1_000_000_000) }
        if let node = fields["strict-nc"] { policy.strictNC = bool(node, "nonce.strict-nc") ?? true }
        if let node = fields["stale-first"] { policy.staleFirst = int(node, "nonce.stale-first", in: 0...1_000_000) ?? 0 }
        if let node = fields["remember"] { policy.remember = int(node, "nonce.remember", in: 1...10_000_000) ?? policy.remember }
        return policy
    }

    func unauthorized(_ node: Node, proxy: Bool = false) -> UnauthorizedResponse {
        var response = proxy ? UnauthorizedResponse(body: "407 Proxy Authentication Required\n") : UnauthorizedResponse()
        let what = proxy ? "proxy.unauthorized" : "unauthorized"
        guard let fields = mapping(node, what, allowed: ScenarioLoader.keys[what]!) else { return response }
        if let node = fields["chunked"] { response.chunked = bool(node, "\(what).chunked") ?? false }
        if let node = fields["close"] { response.close = bool(node, "\(what).close") ?? false }
        if let node = fields["status"], let status = int(node, "\(what).status", in: 401...407) {
            if status == 401 || status == 407 {
                response.status = status
            } else {
                report(node, "proxy.unauthorized.status must be 407, or 401 to play a broken proxy", hint: "write 407 or 401")
            }
        }
        if let node = fields["challenge"] { response.sendChallenge = bool(node, "\(what).challenge") ?? true }
        if let node = fields["body"] { response.body = string(node, "\(what).body", allowEmpty: true) ?? response.body }
        if let node = fields["content-type"] { response.contentType = headerValue(node, "\(what).content-type") ?? response.contentType }
        return response
    }

    func resources(_ node: Node) -> [Resource] {
        guard let items = sequence(node, "resources") else { return [] }
        if items.isEmpty { report(node, "resources is an empty list", hint: "list at least one path, or leave `resources` out to protect /") }
        var result: [Resource] = []
        var seen: [String: Int] = [:]
        for item in items {
            guard let fields = mapping(item, "a resource", allowed: ScenarioLoader.keys["resource"]!, required: ["path"]),
                let pathNode = fields["path"], let path = string(pathNode, "path")
            else { continue }
            if !path.hasPrefix("/") {
                report(pathNode, "path '\(path)' does not start with '/'", hint: "write it as it appears in the request, e.g. /private")
            } else if path.hasPrefix(Engine.controlPrefix) || path == "/_authmock" || Engine.controlPrefix.hasPrefix(path.replacingOccurrences(of: "*", with: "")) && path.hasSuffix("*") && path.count > 2 {
                report(pathNode, "path '\(path)' is under the reserved control prefix \(Engine.controlPrefix)", hint: "choose another path")
            }
            if path.dropLast().contains("*") || path.contains("?") || path.contains(where: \.isWhitespace) {
                report(pathNode, "path '\(path)' has '*' before its end, a '?' or white space", hint: "paths are exact, or a prefix ending in '*', without query")
            }
            if let line = seen[path] { report(pathNode, "path '\(path)' is listed twice", hint: "keep one; the first is on line \(line)") }
            seen[path] = pathNode.mark?.line ?? 0

            let protected = fields["protected"].flatMap { bool($0, "protected") } ?? true
            var resource = Resource(path: path, protected: protected)
            if let node = fields["status"] { resource.status = int(node, "status", in: 200...599) ?? 200 }
            if let node = fields["body"] { resource.body = string(node, "body", allowEmpty: true) ?? resource.body }
            if let node = fields["content-type"] { resource.contentType = headerValue(node, "content-type") ?? resource.contentType }
            if let node = fields["headers"] { resource.headers = headers(node) }
            result.append(resource)
        }
        return result
    }

    // MARK: - Proxy

    func proxySettings(_ node: Node) -> ProxySettings? {
        guard let fields = mapping(node, "proxy", allowed: ScenarioLoader.keys["proxy"]!) else { return nil }
        let realm = fields["realm"].flatMap { string($0, "proxy.realm") } ?? "authmock proxy"
        if let node = fields["realm"], Self.hasControlCharacter(realm) {
            report(node, "proxy.realm contains a line break or control character", hint: "it is sent in a header: keep it on one line")
        }
        let users = fields["users"].map { self.users($0, realm: realm) } ?? []
        let challenges = fields["challenges"].map(challenges) ?? []
        if challenges.contains(where: { if case .custom = $0 { false } else { true } }), users.isEmpty {
            report(fields.entries["challenges"]?.key ?? node, "proxy challenges need proxy users", hint: "add `users:` under `proxy:`")
        }
        if let node = fields["users"] { checkUserFileFits(users, challenges: challenges, at: node) }
        var settings = ProxySettings(realm: realm, users: users, challenges: challenges)
        if let node = fields["unauthorized"] { settings.unauthorized = unauthorized(node, proxy: true) }
        if let node = fields["faults"] { settings.faults = faults(node, what: "proxy.faults", triggers: [.challenge]) }
        return settings
    }

    // MARK: - Faults

    func faults(_ node: Node, what: String, triggers: [Fault.Trigger] = Fault.Trigger.allCases) -> [Fault] {
        guard let items = sequence(node, what) else { return [] }
        var faults: [Fault] = []
        for item in items {
            guard let fields = mapping(item, "a fault", allowed: ScenarioLoader.keys["fault"]!, required: ["when", "effect"]),
                let whenNode = fields["when"], let when = string(whenNode, "\(what).when"),
                let effectNode = fields["effect"], let effectName = string(effectNode, "\(what).effect")
            else { continue }
            guard let trigger = Fault.Trigger(rawValue: when), triggers.contains(trigger) else {
                let names = triggers.map(\.rawValue)
                report(whenNode, "\(what).when '\(when)' is not one of \(names.joined(separator: ", "))",
                       hint: triggers.count == 1 ? "the proxy's faults apply to its 407s: write `when: challenge`" : Suggestion.hint(for: when, in: names))
                continue
            }
            let duration = fields["duration"].flatMap { self.duration($0, "\(what).duration") }
            let effect: Fault.Effect
            switch effectName {
            case "close": effect = .close
            case "disconnect": effect = .disconnect
            case "drop-body": effect = .dropBody
            case "stall": effect = .stall(seconds: duration)
            case "delay":
                guard let duration else {
                    if fields["duration"] == nil { report(effectNode, "effect delay needs a duration", hint: "add `duration: 2s`") }
                    continue
                }
                effect = .delay(seconds: duration)
            default:
                report(effectNode, "\(what).effect '\(effectName)' is not known", hint: Suggestion.hint(for: effectName, in: Fault.Effect.names))
                continue
            }
            if let node = fields["duration"], !["stall", "delay"].contains(effectName) {
                report(node, "effect \(effectName) takes no duration", hint: "remove `duration:`; only stall and delay wait")
            }
            if let node = fields["duration"], let seconds = duration, seconds > 3600 {
                report(node, "\(what).duration is over an hour", hint: "use at most 1h; a client's timeout is what is being tested")
            }
            var fault = Fault(when: trigger, effect: effect)
            if let node = fields["times"] { fault.times = int(node, "\(what).times", in: 1...1_000_000) }
            if let node = fields["path"], let path = string(node, "\(what).path") {
                if path.hasPrefix("/") { fault.path = path } else { report(node, "\(what).path '\(path)' does not start with '/'", hint: "write a resource path such as /private or /api/*") }
            }
            faults.append(fault)
        }
        return faults
    }

    // MARK: - Timeline

    func timelineSteps(_ node: Node, users: [User]) -> [TimelineStep] {
        guard let items = sequence(node, "timeline") else { return [] }
        let triggers = ["after-successes", "after", "at-request"]
        let actions = ["password", "lock", "unlock", "remove"]
        var steps: [TimelineStep] = []
        for item in items {
            guard let fields = mapping(item, "a timeline step", allowed: ScenarioLoader.keys["timeline step"]!, required: ["user"]) else { continue }
            let givenTriggers = triggers.filter { fields[$0] != nil }
            let givenActions = actions.filter { fields[$0] != nil }
            guard givenTriggers.count == 1 else {
                report(item, "a timeline step needs exactly one trigger, found \(givenTriggers.isEmpty ? "none" : givenTriggers.joined(separator: " and "))",
                       hint: "add one of after-successes: N, after: 30s, at-request: N")
                continue
            }
            guard givenActions.count == 1 else {
                report(item, "a timeline step needs exactly one action, found \(givenActions.isEmpty ? "none" : givenActions.joined(separator: " and "))",
                       hint: "add one of password: NEW, lock: true, unlock: true, remove: true")
                continue
            }
            guard let userNode = fields["user"], let user = string(userNode, "a timeline step's user") else { continue }
            if !users.contains(where: { $0.name == user }) {
                report(userNode, "timeline user '\(user)' is not in users", hint: Suggestion.hint(for: user, in: users.map(\.name), noun: "one of the users"))
                continue
            }
            let trigger: TimelineStep.Trigger
            switch givenTriggers[0] {
            case "after-successes":
                guard let n = int(fields["after-successes"]!, "after-successes", in: 1...1_000_000_000) else { continue }
                trigger = .afterSuccesses(n)
            case "after":
                guard let seconds = duration(fields["after"]!, "after") else { continue }
                trigger = .afterTime(seconds)
            default:
                guard let n = int(fields["at-request"]!, "at-request", in: 1...1_000_000_000) else { continue }
                trigger = .atRequest(n)
            }
            let action: TimelineStep.Action
            let actionNode = fields[givenActions[0]]!
            switch givenActions[0] {
            case "password":
                guard let password = string(actionNode, "password", allowEmpty: true) else { continue }
                action = .setPassword(password)
            default:
                guard let flag = bool(actionNode, givenActions[0]) else { continue }
                guard flag else {
                    report(actionNode, "\(givenActions[0]): false does nothing", hint: "leave the step out, or write \(givenActions[0]): true")
                    continue
                }
                action = givenActions[0] == "lock" ? .lock : givenActions[0] == "unlock" ? .unlock : .remove
            }
            steps.append(TimelineStep(trigger: trigger, user: user, action: action))
        }
        return steps
    }

    // MARK: - TLS

    func tlsSettings(_ node: Node) -> TLSSettings {
        var settings = TLSSettings()
        guard let fields = mapping(node, "tls", allowed: ScenarioLoader.keys["tls"]!) else { return settings }
        if let node = fields["identity"] { settings.identity = choice(node, "tls.identity", IdentityKind.self) ?? settings.identity }
        if let node = fields["key"] { settings.keyType = choice(node, "tls.key", KeyType.self) ?? settings.keyType }
        if let node = fields["hosts"], let items = sequence(node, "tls.hosts") {
            let hosts = items.compactMap { string($0, "a host") }
            if hosts.isEmpty { report(node, "tls.hosts is empty", hint: "list the names clients connect to, e.g. [localhost, 127.0.0.1]") }
            for (item, host) in zip(items, hosts) where host.contains(where: { $0.isWhitespace || $0 == "/" }) {
                report(item, "host '\(host)' is not a DNS name or IP address", hint: "write a name such as localhost or an address such as 127.0.0.1")
            }
            settings.hosts = hosts.isEmpty ? settings.hosts : hosts
        }
        if let node = fields["intermediate"] { settings.intermediate = bool(node, "tls.intermediate") ?? false }
        if let node = fields["client-certificate"] {
            settings.clientCertificate = choice(node, "tls.client-certificate", ClientCertificateMode.self) ?? .none
        }
        if let node = fields["plain-http"] { settings.plainHTTP = bool(node, "tls.plain-http") ?? false }
        if let node = fields["rotate"], let rotate = mapping(node, "tls.rotate", allowed: ScenarioLoader.keys["tls.rotate"]!) {
            if let node = rotate["after-requests"] { settings.rotateAfterRequests = int(node, "tls.rotate.after-requests", in: 1...1_000_000) }
            if let node = rotate["keep-key"] { settings.rotateKeepsKey = bool(node, "tls.rotate.keep-key") ?? true }
        }
        return settings
    }

    // MARK: - Headers

    func headerValue(_ node: Node, _ what: String) -> String? {
        guard let value = string(node, what, allowEmpty: true) else { return nil }
        if Self.hasControlCharacter(value) {
            report(node, "\(what) contains a line break or control character", hint: "header values are one line of visible characters")
            return nil
        }
        return value
    }

    func headers(_ node: Node) -> [HeaderField] {
        guard case .mapping(let mapping) = node else {
            report(node, "headers must be a mapping of name: value, found \(describe(node))")
            return []
        }
        var result: [HeaderField] = []
        for (keyNode, valueNode) in mapping {
            guard let name = string(keyNode, "a header name") else { continue }
            guard Self.isToken(name) else {
                report(keyNode, "header name '\(name)' is not an HTTP token", hint: "use letters, digits and -")
                continue
            }
            if ["content-length", "transfer-encoding", "connection"].contains(name.lowercased()) {
                report(keyNode, "header '\(name)' is set by the server itself", hint: "leave it out")
                continue
            }
            if let value = headerValue(valueNode, "header '\(name)'") { result.append(HeaderField(name, value)) }
        }
        return result
    }
}
