public import AuthMockCore
internal import Foundation

/// How a pattern matches a journal entry, and the words that describe patterns and entries in findings.
extension Judge {
    // MARK: - Matching

    public func matches(_ pattern: EntryPattern, _ entry: JournalEntry) -> Bool {
        switch pattern.kind {
        case .request: guard entry.exchange > 0 else { return false }
        case .tls: guard entry.requests != nil else { return false }
        case .any: break
        }
        if let hop = pattern.hop, (entry.hop ?? .origin) != hop { return false }
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
            guard entry.credentials.flatMap({ AuthScheme(token: $0.scheme) }) == .digest, (params["algorithm"] ?? "MD5").lowercased() == algorithm.lowercased() else { return false }
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
        let header = (entry.hop ?? .origin).credentialsHeader
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
        if entry.hop == .proxy, let target = entry.target {
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
        if let hop = pattern.hop { parts.append("to the \(hop.rawValue)") }
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
        var text = "#\(entry.seq) " + (entry.hop == .proxy ? "proxy " : "")
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
