public import AuthMockCore
internal import Foundation

/// How one client run ended, as the runner saw it.
public struct ClientOutcome: Sendable, Equatable, Codable {
    /// The exit status; nil when the client was killed or never started.
    public var exitStatus: Int32?
    /// The client did not finish within the case's timeout and was killed.
    public var timedOut: Bool
    /// The signal that ended the client, when it died of one the runner did not send (a crash, an abort).
    public var signal: Int32?
    /// Seconds from start to exit (or to the kill).
    public var seconds: Double
    /// What says the client crashed although it exited (an exit status or a stderr line its profile
    /// declares: ``ClientProfile/CrashSignature``); nil when nothing does.
    public var crash: String?

    public init(exitStatus: Int32?, timedOut: Bool = false, signal: Int32? = nil, seconds: Double = 0, crash: String? = nil) {
        self.exitStatus = exitStatus
        self.timedOut = timedOut
        self.signal = signal
        self.seconds = seconds
        self.crash = crash
    }

    enum CodingKeys: String, CodingKey {
        case exitStatus = "exit_status"
        case timedOut = "timed_out"
        case signal
        case seconds
        case crash
    }

    /// `signal 11 (SIGSEGV)`.
    static func describe(signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGILL: "SIGILL", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGTERM: "SIGTERM",
            SIGTRAP: "SIGTRAP", SIGPIPE: "SIGPIPE", SIGINT: "SIGINT", SIGHUP: "SIGHUP", SIGQUIT: "SIGQUIT", SIGSYS: "SIGSYS", SIGXCPU: "SIGXCPU",
        ]
        return "signal \(signal)" + (names[signal].map { " (\($0))" } ?? "")
    }
}

/// A case's grade, from best to worst as Autobahn|Testsuite orders them, plus the runner's own.
public enum CaseVerdict: String, Sendable, Equatable, Codable, CaseIterable {
    case pass
    /// A SHOULD broken.
    case nonStrict = "non-strict"
    /// What the client chose where no RFC decides.
    case informational
    /// The client lacks the feature the case exercises.
    case unimplemented
    /// A MUST broken, a credential leaked, a loop, a request after a failed trust or pin check.
    case fail
    /// The runner or the scenario broke; never blamed on the client.
    case error
    /// The client said it lacks a feature the case needs (`--skip-feature`, its profile).
    case skip
}

/// What the judge concluded about one case.
public struct Judgement: Sendable, Equatable, Codable {
    public var verdict: CaseVerdict
    /// For each broken expectation: what was expected, what the client did, quoting the journal.
    public var findings: [String]
    /// What informational checks saw.
    public var observations: [String]
    /// The journal entries the findings quote, by seq.
    public var quoted: [Int]

    public init(verdict: CaseVerdict, findings: [String] = [], observations: [String] = [], quoted: [Int] = []) {
        self.verdict = verdict
        self.findings = findings
        self.observations = observations
        self.quoted = quoted
    }
}

/// Judges a client from the journal of its run and its exit status. Pure: the same journal always gives
/// the same judgement.
public struct Judge: Sendable {
    public var expectations: Expectations
    /// `host:port` of the URL the client was given; requests elsewhere have `authority: other`.
    public var authority: String
    /// Lower-case hex SHA-256 of the body the client was asked to send.
    public var bodySHA256: String?
    /// The timeout the client had, for the explanation of a hang.
    public var timeout: Double
    /// What the server's TLS presented, for people ("a certificate that expired yesterday"); nil on
    /// cleartext cases.
    public var shown: String?
    /// Header names the client's profile declares as credentials (`credential-headers:`), besides those the
    /// journal marks; lower-cased.
    public var credentialHeaders: Set<String>

    public init(
        expectations: Expectations, authority: String, bodySHA256: String? = nil, timeout: Double = 10, shown: String? = nil,
        credentialHeaders: [String] = []
    ) {
        self.expectations = expectations
        self.authority = authority.lowercased()
        self.bodySHA256 = bodySHA256
        self.timeout = timeout
        self.shown = shown
        self.credentialHeaders = Set(credentialHeaders.map { $0.lowercased() })
    }

    /// - Parameter implementedAnyway: judge as if the `implemented:` gate were met — the judgement for a
    ///   client known from the rest of its run to have the schemes this journal lacks (see ``SchemeGate``).
    public func judge(_ journal: [JournalEntry], outcome: ClientOutcome, implementedAnyway: Bool = false) -> Judgement {
        let entries = journal.sorted { $0.seq < $1.seq }
        var failures: [(Grade, String)] = []
        var quoted: Set<Int> = []
        var observations: [String] = []

        let missing = implementedAnyway ? nil : expectations.implemented.first { pattern in !entries.contains { matches(pattern, $0) } }
        // What no knowledge of the rest of the run can make up for: the client reached the server, and met
        // the situation the case is about.
        let unmet = situationUnmet(entries, &quoted)
        let implemented = missing == nil && unmet == nil

        if outcome.timedOut {
            let requests = entries.filter { $0.exchange > 0 }
            failures.append((
                .fail,
                "expected the client to finish; it was still running after \(Self.seconds(timeout)) and was killed — a hang or an endless retry ("
                    + (requests.isEmpty ? "no request reached the server)" : "\(requests.count) request(s) in the journal, the last:" + quote(requests.suffix(2), into: &quoted) + ")")
            ))
        } else if let signal = outcome.signal {
            // A crash is wrong whatever the case asked: no expectation makes it right.
            failures.append((.fail, "expected the client to end on its own; it was killed by \(ClientOutcome.describe(signal: signal)), a crash" + lastAnswer(entries, &quoted)))
        } else if let crash = outcome.crash {
            // An uncaught exception is no refusal, whatever the exit status looks like.
            failures.append((.fail, "expected the client to refuse or succeed cleanly; it crashed (\(crash))" + lastAnswer(entries, &quoted)))
        } else if implemented {
            let ok = outcome.exitStatus == 0
            switch expectations.outcome {
            case .success where !ok:
                failures.append((.fail, "expected the client to succeed (exit 0); it exited \(Self.status(outcome))" + lastAnswer(entries, &quoted)))
            case .failure where ok:
                failures.append((.fail, "expected the client to report failure (non-zero exit); it exited 0" + lastAnswer(entries, &quoted)))
            default:
                break
            }
        }

        for check in expectations.checks {
            switch check.rule {
            case .observe(let observation):
                observations.append("\(check.that): \(observe(observation, entries))")
            case .sequence(let patterns):
                // Without the feature there is nothing to sequence; the verdict says unimplemented.
                guard implemented else { continue }
                if let finding = sequenceFinding(patterns, entries, &quoted) {
                    failures.append((check.grade, "expected: \(check.that) — \(finding)"))
                }
            case .count(let pattern, let min, let max, let after):
                // Without the feature only upper bounds (loops, leaks) still mean something.
                if !implemented, max == nil { continue }
                if let finding = countFinding(pattern, min: implemented ? min : nil, max: max, after: after, entries, &quoted) {
                    failures.append((check.grade, "expected: \(check.that) — \(finding)"))
                }
            }
        }

        // A leak the journal recorded where the case's URL does not point (a credential that followed a
        // redirect elsewhere) fails every case, like a crash: no expectation makes it right. A case with its
        // own leak check words the finding itself; at the case's own authority a header the application set
        // (Proxy-Authorization without a proxy) is the application's choice, judged by the cases about it.
        let leaking = entries.filter { $0.leaks?.isEmpty == false && Self.authority(of: $0)?.lowercased() != authority }
        let checksLeaks = expectations.checks.contains { check in
            if case .count(let pattern, _, _, _) = check.rule { pattern.leak == true } else { false }
        }
        if !leaking.isEmpty, !checksLeaks {
            failures.append((
                .fail, "expected no credential to leave the case's authority; the journal recorded a leak elsewhere:" + quote(leaking.prefix(3), into: &quoted)
                    + (leaking.count > 3 ? " … (\(leaking.count) requests)" : "")
            ))
        }

        let verdict = self.verdict(worst: failures.map(\.0).max(), implemented: implemented)
        var findings = failures.sorted { $0.0 > $1.0 }.map(\.1)
        // Where TLS is part of the story, say what the client was shown and what it did with it.
        let observesTLS = expectations.checks.contains { $0.rule == .observe(.tlsConnections) }
        if verdict != .pass, !observesTLS, let story = tlsStory(entries, &quoted) { findings.append(story) }
        if verdict == .unimplemented, let unmet {
            findings.insert(unmet, at: 0)
        } else if verdict == .unimplemented, let pattern = missing {
            findings.insert("the client never sent a request \(describe(pattern)): it lacks the feature, or was not given the inputs" + lastAnswer(entries, &quoted), at: 0)
        }
        return Judgement(verdict: verdict, findings: findings, observations: observations, quoted: quoted.sorted())
    }

    /// Why the client cannot have shown the case's behaviour, whatever it did elsewhere: it never reached the
    /// server, or never met what `met:` names. nil when it did both.
    private func situationUnmet(_ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String? {
        guard entries.contains(where: { $0.exchange > 0 || $0.requests != nil }) else {
            return "the client never reached the server (no connection, no request), so it showed none of the case's behaviour"
        }
        guard !expectations.met.isEmpty, let finding = sequenceFinding(expectations.met, entries, &quoted) else { return nil }
        return "the client never met what the case is about — \(finding)"
    }

    /// The schemes this case's `implemented:` gate names that its own journal does not show: empty when the
    /// journal shows them all. A client that has them (from the rest of its run) but did not use them here
    /// failed at the scheme, before any later part of the gate (a redirect to follow) could be reached.
    public func openSchemes(_ journal: [JournalEntry]) -> [SchemeUse] {
        expectations.implemented.filter { pattern in !journal.contains { matches(pattern, $0) } }.compactMap(\.schemeUse)
    }

    /// Every scheme the journal shows credentials of, per hop: the evidence a ``SchemeGate`` is settled on.
    public static func schemesUsed(_ journal: [JournalEntry]) -> Set<SchemeUse> {
        Set(journal.filter { $0.exchange > 0 }.compactMap { entry in
            presentedScheme(entry).flatMap { $0 == "(empty)" ? nil : SchemeUse(hop: entry.hop ?? "origin", scheme: $0) }
        })
    }

    /// The worst broken expectation decides; without the feature, only a broken `fail` outranks
    /// `unimplemented`.
    private func verdict(worst: Grade?, implemented: Bool) -> CaseVerdict {
        switch worst {
        case .fail?: return .fail
        case _ where !implemented: return .unimplemented
        case .nonStrict?: return .nonStrict
        case .informational?: return .informational
        case nil:
            // A case that only observes is informational; elsewhere observations annotate a pass.
            let judges = expectations.outcome != .any || expectations.checks.contains { if case .observe = $0.rule { false } else { true } }
            return judges ? .pass : .informational
        }
    }

    // MARK: - Rules

    private func sequenceFinding(_ patterns: [EntryPattern], _ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String? {
        var next = 0
        var lastMatch: JournalEntry?
        for entry in entries where next < patterns.count {
            if matches(patterns[next], entry) {
                next += 1
                lastMatch = entry
            }
        }
        guard next < patterns.count else { return nil }
        let requests = entries.filter { $0.exchange > 0 }
        var text = "no request was \(describe(patterns[next]))"
        if let lastMatch {
            text += " after #\(lastMatch.seq)"
            quoted.insert(lastMatch.seq)
        }
        if requests.isEmpty { return text + "; no request reached the server" }
        return text + "; the client sent:" + quote(requests.prefix(6), into: &quoted)
            + (requests.count > 6 ? " … (\(requests.count) requests)" : "")
    }

    private func countFinding(
        _ pattern: EntryPattern, min: Int?, max: Int?, after: EntryPattern?, _ entries: [JournalEntry], _ quoted: inout Set<Int>
    ) -> String? {
        var candidates = entries[...]
        if let after {
            guard let start = entries.firstIndex(where: { matches(after, $0) }) else {
                return min.map { _ in "no request was \(describe(after)), after which to count" }
            }
            candidates = entries[(start + 1)...]
        }
        let matched = candidates.filter { matches(pattern, $0) }
        let scope = after.map { " after the first request \(describe($0))" } ?? ""
        if let max, matched.count > max {
            let what = max == 0 ? "none expected" : "at most \(max) expected"
            return "\(matched.count) request(s) \(describe(pattern))\(scope), \(what):"
                + quote(matched.prefix(4), into: &quoted) + (matched.count > 4 ? " …" : "")
        }
        if let min, matched.count < min {
            return "\(matched.count) request(s) \(describe(pattern))\(scope), at least \(min) expected"
                + (matched.isEmpty ? "" : ":" + quote(matched.prefix(4), into: &quoted))
        }
        return nil
    }

    private func observe(_ observation: Check.Observation, _ entries: [JournalEntry]) -> String {
        let credentialed = entries.filter { $0.exchange > 0 && $0.credentials != nil }
        switch observation {
        case .schemes:
            let schemes = credentialed.map { ($0.hop == "proxy" ? "proxy " : "") + $0.credentials!.scheme }
            return schemes.isEmpty ? "no credentials sent" : Self.runs(schemes).joined(separator: " → ")
        case .algorithms:
            let algorithms = credentialed.filter { $0.credentials!.scheme.lowercased() == "digest" }.map { $0.credentials!.params?["algorithm"] ?? "MD5 (implied)" }
            return algorithms.isEmpty ? "no Digest credentials sent" : Self.runs(algorithms).joined(separator: " → ")
        case .userhash:
            let digest = credentialed.filter { $0.credentials!.scheme.lowercased() == "digest" }
            guard !digest.isEmpty else { return "no Digest credentials sent" }
            let hashed = digest.filter { $0.credentials!.params?["userhash"]?.lowercased() == "true" }.count
            return hashed == 0 ? "sent the user name in clear (no userhash)" : "hashed the user name in \(hashed) of \(digest.count) request(s)"
        case .nonceReuse:
            let digest = credentialed.filter { $0.credentials!.scheme.lowercased() == "digest" }
            guard !digest.isEmpty else { return "no Digest credentials sent" }
            let ncs = digest.compactMap { $0.credentials!.params?["nc"] }
            let reused = digest.filter { Self.nc(of: $0).map { $0 > 1 } ?? false }.count
            return reused == 0
                ? "never reused a nonce (a new challenge for every request; nc \(Self.runs(ncs).joined(separator: ", ")))"
                : "reused nonces in \(reused) request(s), nc \(ncs.joined(separator: ", "))"
        case .tlsConnections:
            var ignored: Set<Int> = []
            return tlsStory(entries, &ignored) ?? "no TLS connection"
        case .basicEncoding:
            let basic = credentialed.filter { Self.presentedScheme($0)?.lowercased() == "basic" }
            guard !basic.isEmpty else { return "no Basic credentials sent" }
            let shapes = basic.map { entry in "\(Self.basicEncoding(entry)) → \(entry.status) \(entry.verdict)" }
            return Self.runs(shapes).joined(separator: "; ")
        case .credentialsByPath:
            var paths: [(String, [String])] = []
            for entry in entries where entry.exchange > 0 {
                let path = String((entry.target ?? "?").prefix { $0 != "?" })
                let scheme = Self.presentedScheme(entry) ?? "none"
                let word = "\(scheme) → \(entry.status)"
                if let index = paths.firstIndex(where: { $0.0 == path }) { paths[index].1.append(word) } else { paths.append((path, [word])) }
            }
            return paths.isEmpty ? "no requests" : paths.map { "\($0.0): \($0.1.joined(separator: ", "))" }.joined(separator: "; ")
        case .requestShape:
            let shapes = entries.filter { $0.exchange > 0 }.map { entry -> String in
                let expect = entry.headers.first { $0.name.lowercased() == "expect" }.map { ", Expect: \($0.value)" } ?? ""
                return "\(entry.method ?? "?") with \(entry.bodyBytes) body bytes\(expect) → \(entry.status)"
            }
            return shapes.isEmpty ? "no requests" : shapes.joined(separator: "; ")
        }
    }

    /// How a Basic credential's password was encoded, read from the header itself.
    static func basicEncoding(_ entry: JournalEntry) -> String {
        guard let value = entry.header(entry.hop == "proxy" ? "Proxy-Authorization" : "Authorization"),
            let password = BasicCredentials(field: value)?.password
        else { return "not decodable" }
        if password.allSatisfy({ $0 < 0x80 }) {
            return "the password in ASCII only (\(password.count) bytes: characters outside ASCII were replaced or dropped)"
        }
        if String(validating: password, as: UTF8.self) != nil { return "the password in UTF-8" }
        let hex = password.prefix(12).map { String(format: "%02x", $0) }.joined(separator: " ")
        return "the password in neither UTF-8 nor ASCII (bytes \(hex)\(password.count > 12 ? " …" : ""))"
    }

    /// Collapses repeats: `[Digest, Digest, Basic]` → `[Digest ×2, Basic]`.
    static func runs(_ items: [String]) -> [String] {
        var result: [(String, Int)] = []
        for item in items {
            if let last = result.last, last.0 == item { result[result.count - 1].1 += 1 } else { result.append((item, 1)) }
        }
        return result.map { $0.1 == 1 ? $0.0 : "\($0.0) ×\($0.1)" }
    }

    /// Each TLS connection in a sentence: which certificate the server presented (numbered in order of
    /// appearance, saying whether a renewal kept the key) and what the client did — refused during the
    /// handshake (with its alert), completed it and closed without a request, or sent requests.
    public func tlsStory(_ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String? {
        let connections = entries.filter { $0.requests != nil && $0.tls != nil }
        guard !connections.isEmpty else { return nil }
        var certificates: [String] = []
        var pins: [String] = []
        var lines: [String] = []
        var sameKeyRenewal: Bool?
        for entry in connections {
            quoted.insert(entry.seq)
            let facts = entry.tls!
            var shown = "connection \(entry.connection)"
            if let certificate = facts.certificateSHA256 {
                if !certificates.contains(certificate) { certificates.append(certificate) }
                let number = certificates.firstIndex(of: certificate)! + 1
                shown += " (certificate \(number)"
                if number > 1, let pin = facts.pinSHA256, pins.contains(pin) {
                    shown += ", renewed with the same key"
                    sameKeyRenewal = sameKeyRenewal ?? (entry.verdict == .tlsOK)
                } else if number > 1 {
                    shown += ", renewed with a new key"
                }
                shown += ")"
                if let pin = facts.pinSHA256, !pins.contains(pin) { pins.append(pin) }
            }
            let did: String
            switch entry.verdict {
            case .tlsHandshakeFailed:
                did = "refused during the handshake" + (facts.alert.map { " (alert \($0))" } ?? "") + (entry.detail.map { ": \($0)" } ?? "")
            case .tlsNoRequest:
                did = "completed the \(facts.version ?? "TLS") handshake, then closed without sending a request"
            default:
                did = "completed the \(facts.version ?? "TLS") handshake and sent \(entry.requests ?? 0) request(s)"
            }
            lines.append("\(shown): \(did)")
        }
        var story = "shown " + (shown ?? "the scenario's certificate") + " — " + lines.joined(separator: "; ")
        // A renewal that kept the key tells a key pin from a certificate pin.
        switch sameKeyRenewal {
        case true?: story += " — it went on over the renewed certificate whose key was unchanged: it pinned the key, or nothing"
        case false?: story += " — it refused the renewed certificate although its key was unchanged: it pinned the certificate"
        case nil: break
        }
        return story
    }

    private func lastAnswer(_ entries: [JournalEntry], _ quoted: inout Set<Int>) -> String {
        guard let last = entries.last(where: { $0.exchange > 0 || $0.requests != nil }) else { return "; no request reached the server" }
        return "; last in the journal:" + quote([last], into: &quoted)
    }

    // MARK: - Matching

    public func matches(_ pattern: EntryPattern, _ entry: JournalEntry) -> Bool {
        switch pattern.kind {
        case .request: guard entry.exchange > 0 else { return false }
        case .tls: guard entry.requests != nil else { return false }
        case .any: break
        }
        if let hop = pattern.hop, (entry.hop ?? "origin") != hop { return false }
        if let method = pattern.method, entry.method?.uppercased() != method.uppercased() { return false }
        if let statuses = pattern.status, !statuses.contains(entry.status) { return false }
        if let verdicts = pattern.verdict, !verdicts.contains(where: { Self.verdict(entry.verdict.rawValue, matches: $0) }) { return false }
        if let credentials = pattern.credentials {
            let scheme = Self.presentedScheme(entry)
            switch credentials {
            case .none: if scheme != nil { return false }
            case .any: if scheme == nil { return false }
            case .scheme(let wanted): if scheme?.lowercased() != wanted.lowercased() { return false }
            }
        }
        let params = entry.credentials?.params ?? [:]
        if let algorithm = pattern.algorithm {
            guard entry.credentials?.scheme.lowercased() == "digest", (params["algorithm"] ?? "MD5").lowercased() == algorithm.lowercased() else { return false }
        }
        if let qop = pattern.qop, params["qop"]?.lowercased() != qop.lowercased() { return false }
        if let userhash = pattern.userhash, (params["userhash"]?.lowercased() == "true") != userhash { return false }
        if let authority = pattern.authority {
            let same = Self.authority(of: entry)?.lowercased() == self.authority
            if same != (authority == .same) { return false }
        }
        if let tls = pattern.tls, (entry.tls != nil) != tls { return false }
        if let presented = pattern.clientCertificate, (entry.tls?.clientCertificate != nil) != presented { return false }
        if let body = pattern.body {
            switch body {
            case .none: if entry.bodyBytes != 0 { return false }
            case .intact: if entry.bodySHA256 == nil || entry.bodySHA256 != bodySHA256 { return false }
            case .other: if entry.bodyBytes == 0 || entry.bodySHA256 == bodySHA256 { return false }
            }
        }
        if let reused = pattern.nonceReused, (Self.nc(of: entry).map { $0 > 1 } ?? false) != reused { return false }
        if let leak = pattern.leak, (entry.leaks?.isEmpty == false) != leak { return false }
        switch pattern.credentialHeader {
        case .any(let carried)?: if carriesCredentialHeader(entry) != carried { return false }
        case .named(let name)?: if !carriesCredentialHeader(entry, named: name) { return false }
        case nil: break
        }
        if let wanted = pattern.httpProtocol, entry.httpProtocol != wanted.rawValue { return false }
        if let hostile = pattern.hostile, (entry.hostile != nil) != hostile { return false }
        if let version = pattern.ntlmVersion, params["message"] != "AUTHENTICATE" || params["version"] != version { return false }
        return true
    }

    /// Whether a request carried a credential in any header: one the journal marks, or one the profile declares.
    func carriesCredentialHeader(_ entry: JournalEntry, named name: String? = nil) -> Bool {
        entry.headers.contains { header in
            (name.map { header.name.equalsIgnoringASCIICase($0) } ?? true)
                && (header.credential == true || credentialHeaders.contains(header.name.lowercased()))
        }
    }

    /// The auth-scheme of the credentials the request carried for its hop: as the engine read them, or
    /// from the header itself where the engine did not read it (a public resource, a 404).
    static func presentedScheme(_ entry: JournalEntry) -> String? {
        if let scheme = entry.credentials?.scheme, !scheme.isEmpty { return scheme }
        let header = entry.hop == "proxy" ? "proxy-authorization" : "authorization"
        guard let value = entry.headers.first(where: { $0.name.lowercased() == header })?.value else { return nil }
        let scheme = Engine.leadingToken(value)
        return scheme.isEmpty ? "(empty)" : scheme
    }

    static func verdict(_ name: String, matches pattern: String) -> Bool {
        pattern.hasSuffix("*") ? name.hasPrefix(pattern.dropLast()) : name == pattern
    }

    static func nc(of entry: JournalEntry) -> UInt32? {
        entry.credentials?.params?["nc"].flatMap { UInt32($0, radix: 16) }
    }

    /// Where the request was going: its `Host`, or for the proxy the target's host and port.
    static func authority(of entry: JournalEntry) -> String? {
        if entry.hop == "proxy", let target = entry.target {
            if entry.method == "CONNECT" { return target }
            if let schemeEnd = target.range(of: "://") {
                return String(target[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" })
            }
        }
        return entry.headers.first { $0.name.lowercased() == "host" }?.value
    }

    // MARK: - Words

    /// A pattern for people: "with Digest credentials, algorithm SHA-256, answered 200".
    public func describe(_ pattern: EntryPattern) -> String {
        var parts: [String] = []
        switch pattern.kind {
        case .request: break
        case .tls: parts.append("a TLS connection")
        case .any: break
        }
        if let hop = pattern.hop { parts.append(hop == "proxy" ? "to the proxy" : "to the origin") }
        if let method = pattern.method { parts.append(method.uppercased()) }
        switch pattern.credentials {
        case .none?: parts.append("without credentials")
        case .any?: parts.append("with credentials")
        case .scheme(let scheme)?: parts.append("with \(scheme) credentials")
        case nil: break
        }
        if let algorithm = pattern.algorithm { parts.append("algorithm \(algorithm)") }
        if let qop = pattern.qop { parts.append("qop=\(qop)") }
        if let userhash = pattern.userhash { parts.append(userhash ? "userhash=true" : "without userhash") }
        if let authority = pattern.authority { parts.append(authority == .same ? "to \(self.authority)" : "to a host or port other than \(self.authority)") }
        if let tls = pattern.tls { parts.append(tls ? "over TLS" : "over cleartext") }
        if let presented = pattern.clientCertificate { parts.append(presented ? "with a client certificate" : "without a client certificate") }
        switch pattern.body {
        case .intact?: parts.append("with the body intact")
        case .other?: parts.append("with a changed body")
        case .none?: parts.append("without a body")
        case nil: break
        }
        if let reused = pattern.nonceReused { parts.append(reused ? "reusing a nonce (nc > 1)" : "with a fresh nonce") }
        if let leak = pattern.leak { parts.append(leak ? "leaking a credential" : "leaking nothing") }
        switch pattern.credentialHeader {
        case .any(let carried)?: parts.append(carried ? "carrying a credential header" : "carrying no credential header")
        case .named(let name)?: parts.append("carrying a credential in \(name)")
        case nil: break
        }
        if let wanted = pattern.httpProtocol { parts.append(wanted == .h2 ? "over HTTP/2" : "over HTTP/1.1") }
        if let hostile = pattern.hostile { parts.append(hostile ? "answered with a hostile challenge" : "answered without a hostile challenge") }
        if let version = pattern.ntlmVersion { parts.append("an NTLM AUTHENTICATE with an \(version) response") }
        if let verdicts = pattern.verdict { parts.append("judged \(verdicts.joined(separator: " or "))") }
        if let statuses = pattern.status { parts.append("answered \(statuses.map(String.init).joined(separator: " or "))") }
        return parts.isEmpty ? "any request" : parts.joined(separator: ", ")
    }

    func quote(_ entries: some Sequence<JournalEntry>, into quoted: inout Set<Int>) -> String {
        var text = ""
        for entry in entries {
            quoted.insert(entry.seq)
            text += " " + Self.summary(entry, authority: authority) + ";"
        }
        return String(text.dropLast())
    }

    /// One journal entry in a line: `#3 GET / [Digest alice, SHA-256] → 401 digest.stale-nonce`.
    /// The `Host` is shown when it is not `authority` (the case's own).
    public static func summary(_ entry: JournalEntry, authority: String? = nil) -> String {
        if entry.requests != nil {
            return "#\(entry.seq) TLS connection \(entry.connection): \(entry.verdict)" + (entry.detail.map { " (\($0))" } ?? "")
        }
        var text = "#\(entry.seq) " + (entry.hop == "proxy" ? "proxy " : "")
        text += "\(entry.method ?? "?") \(entry.target ?? "?")"
        if let scheme = presentedScheme(entry) {
            var words = [scheme]
            if let user = entry.credentials?.user, !user.isEmpty { words.append(user) }
            if let algorithm = entry.credentials?.params?["algorithm"] { words.append(algorithm) }
            if let nc = entry.credentials?.params?["nc"] { words.append("nc=\(nc)") }
            text += " [\(words.joined(separator: " "))]"
        }
        if let host = entry.headers.first(where: { $0.name.lowercased() == "host" })?.value, host.lowercased() != authority {
            text += " Host: \(host)"
        }
        if let stream = entry.stream { text += " (h2 stream \(stream))" }
        text += entry.reset.map { " → RST_STREAM \($0) \(entry.verdict)" } ?? " → \(entry.status) \(entry.verdict)"
        if let leaks = entry.leaks, !leaks.isEmpty { text += " LEAK: " + leaks.joined(separator: ", ") }
        if let hostile = entry.hostile { text += " (hostile: \(hostile.prefix(120))\(hostile.count > 120 ? "…" : ""))" }
        return text
    }

    static func status(_ outcome: ClientOutcome) -> String {
        outcome.exitStatus.map(String.init) ?? "without a status"
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
