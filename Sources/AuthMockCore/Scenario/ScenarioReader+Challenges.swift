
/// The `challenges:` section: Basic, Digest, NTLM, Negotiate and custom challenges.
extension ScenarioReader {
    func challenges(_ node: YAMLNode) -> [Challenge] {
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
            if let scheme = challenge.authScheme, scheme.isConnectionBound,
                result.contains(where: { $0.authScheme == scheme })
            {
                report(item, "a second \(challenge.scheme) challenge", hint: "offer \(challenge.scheme) once")
            }
            result.append(challenge)
        }
        return result
    }

    func challenge(_ node: YAMLNode) -> Challenge? {
        let all = Array(Set(AuthScheme.allCases.flatMap { $0.options.keys } + ["custom", "raw"])).sorted()
        if case .mapping(let map) = node, map["custom"] != nil { return customChallenge(node) }
        if case .mapping(let map) = node, map["raw"] != nil { return rawChallenge(node) }
        guard let fields = mapping(node, "a challenge", allowed: all, required: ["scheme"]),
            let schemeNode = fields["scheme"], let scheme = string(schemeNode, "scheme")
        else { return nil }
        guard let known = AuthScheme(token: scheme) else {
            report(
                schemeNode, "unknown scheme '\(scheme)'",
                hint: (Suggestion.closest(to: scheme, in: AuthScheme.allCases.map(\.token))
                    .map { "did you mean '\($0)'? " } ?? "")
                    + "authmock accepts Basic, Digest, NTLM and Negotiate; to offer a scheme it does not accept, "
                    + "write `- custom: '\(scheme) realm=\"…\"'`"
            )
            return nil
        }
        return known.options.read(fields, scheme: known, reader: self)
    }

    /// `- custom: 'Newauth realm="apps"'`: a challenge authmock offers but does not accept, as written.
    func customChallenge(_ node: YAMLNode) -> Challenge? {
        guard let fields = mapping(node, "a custom challenge", allowed: ScenarioLoader.keys["challenge.custom"]!) else {
            return nil
        }
        guard let raw = fields["custom"].flatMap({ string($0, "custom") }) else { return nil }
        if Self.hasControlCharacter(raw) {
            report(
                fields["custom"], "custom challenge contains a line break or control character",
                hint: "it is sent in a header: keep it on one line"
            )
            return nil
        }
        do throws(AuthSyntaxError) {
            _ = try AuthHeader.parseChallenges(raw)
        } catch {
            report(
                fields["custom"], "custom challenge is not a valid challenge: \(error.reason)",
                hint: "write it as a scheme and parameters, e.g. 'Newauth realm=\"apps\", type=1'"
            )
            return nil
        }
        return .custom(raw)
    }

    /// The most bytes one raw value, and all its fields together, may take: far beyond what clients accept
    /// (curl's 100 KB, Go's 1 MB of response header), short of exhausting the server.
    static let rawValueLimit = 1024 * 1024
    static let rawTotalLimit = 16 * 1024 * 1024

    /// `- raw: [...]`: a hostile value, sent as written (in pieces, some repeated) in `fields` header fields.
    func rawChallenge(_ node: YAMLNode) -> Challenge? {
        guard let fields = mapping(node, "a raw challenge", allowed: ScenarioLoader.keys["challenge.raw"]!) else {
            return nil
        }
        guard let valueNode = fields["raw"], let pieces = pieces(valueNode, "the raw challenge") else { return nil }
        let count = fields["fields"].flatMap { int($0, "fields", in: 1...10_000) }
        if fields["fields"] != nil, count == nil { return nil }
        let raw = RawChallenge(pieces: pieces, fields: count ?? 1)
        if raw.byteCount * raw.fields > Self.rawTotalLimit {
            report(
                fields["fields"] ?? valueNode,
                "\(raw.fields) fields of \(raw.byteCount) bytes are \(raw.byteCount * raw.fields) bytes, "
                    + "more than \(Self.rawTotalLimit)",
                hint: "send fewer fields or a shorter value"
            )
            return nil
        }
        if raw.value.utf8.first.map({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) ?? true {
            report(
                valueNode, "the raw challenge starts with white space or is empty",
                hint: "start it with the scheme, e.g. 'Basic realm=…'"
            )
            return nil
        }
        return .raw(raw)
    }

    /// A header value written as a string, or as a list of pieces (strings and `{repeat: TEXT, times: N}`)
    /// for sizes no one writes out: at most ``rawValueLimit`` bytes, no control characters. nil (reported)
    /// when a piece is wrong.
    func pieces(_ node: YAMLNode, _ what: String) -> [RawChallenge.Piece]? {
        let items: [YAMLNode]
        if case .sequence(let list) = node { items = Array(list) } else { items = [node] }
        if items.isEmpty {
            report(
                node, "\(what) is an empty list",
                hint: "give a string, or a list of strings and {repeat: TEXT, times: N}"
            )
            return nil
        }
        let before = diagnostics.count
        var pieces: [RawChallenge.Piece] = []
        for item in items {
            if case .mapping = item {
                guard
                    let piece = mapping(
                        item, "a repeated piece", allowed: ScenarioLoader.keys["piece"]!, required: ["repeat", "times"]
                    ),
                    let text = piece["repeat"].flatMap({ string($0, "repeat") }),
                    let times = piece["times"].flatMap({ int($0, "times", in: 1...Self.rawValueLimit) })
                else { continue }
                if pieceProblem(text, at: piece["repeat"]!) { continue }
                pieces.append(.repeated(text, times: times))
            } else if let text = string(item, "a piece") {
                if pieceProblem(text, at: item) { continue }
                pieces.append(.text(text))
            }
        }
        guard diagnostics.count == before else { return nil }
        let bytes = RawChallenge(pieces: pieces).byteCount
        if bytes > Self.rawValueLimit {
            report(
                node, "\(what) is \(bytes) bytes, more than \(Self.rawValueLimit)",
                hint: "lower a `times:`; 1 MiB is beyond what any client accepts"
            )
            return nil
        }
        return pieces
    }

    /// A piece is sent in a header: no line breaks, NUL or other control characters (they would end the
    /// field or be refused by the HTTP layer before any client saw them).
    private func pieceProblem(_ text: String, at node: YAMLNode) -> Bool {
        guard Self.hasControlCharacter(text) else { return false }
        report(
            node, "a piece contains a line break or control character",
            hint: "header values cannot carry them; use printable text"
        )
        return true
    }

    func digestChallenge(_ fields: Fields) -> DigestChallenge {
        rejectKeys(fields, notIn: DigestChallenge.keys, scheme: AuthScheme.digest.token)
        var digest = DigestChallenge()
        if let node = fields["algorithm"], let text = string(node, "algorithm") {
            if let algorithm = DigestAlgorithm(token: text) {
                digest.algorithm = algorithm
            } else {
                report(
                    node, "unknown Digest algorithm '\(text)'",
                    hint: Suggestion.hint(for: text, in: DigestAlgorithm.allCases.map(\.token))
                )
            }
        }
        if let node = fields["qop"] { digest.qop = qop(node) ?? digest.qop }
        if let node = fields["opaque"] {
            if case .scalar(let scalar) = node, scalar.style == .plain,
                ["true", "false"].contains(scalar.string.lowercased())
            {
                digest.opaque = scalar.string.lowercased() == "true" ? .generated : .none
            } else if let value = string(node, "opaque") {
                if value.unicodeScalars.contains(where: { $0 == "\"" || $0 == "\\" })
                    || Self.hasControlCharacter(value)
                {
                    report(
                        node, "opaque must not contain quotes, backslashes or control characters",
                        hint: "use letters, digits and + / ="
                    )
                }
                digest.opaque = .fixed(value)
            }
        }
        if let node = fields["userhash"] { digest.userhash = bool(node, "userhash") ?? false }
        if let node = fields["charset"] { digest.charsetUTF8 = charset(node) }
        if let node = fields["authentication-info"] { digest.authenticationInfo = authenticationInfo(node) }
        if digest.effectiveAlgorithm.isSession, digest.qop.isEmpty {
            report(
                fields["algorithm"] ?? fields.node,
                "\(digest.effectiveAlgorithm.token) needs a qop: its A1 uses the cnonce, which only comes with qop",
                hint: "set `qop: auth` or use a non-session algorithm"
            )
        }
        return digest
    }

    /// `authentication-info: {nextnonce: true, rspauth: right | forged | none}` of a Digest challenge.
    func authenticationInfo(_ node: YAMLNode) -> DigestAuthenticationInfo? {
        guard let fields = mapping(node, "authentication-info", allowed: DigestAuthenticationInfo.keys) else {
            return nil
        }
        var info = DigestAuthenticationInfo()
        if let node = fields["nextnonce"] { info.nextnonce = bool(node, "nextnonce") ?? false }
        if let node = fields["rspauth"] {
            info.rspauth = choice(node, "rspauth", DigestAuthenticationInfo.ResponseAuth.self) ?? .right
        }
        if !info.nextnonce, info.rspauth == .none {
            report(
                node, "authentication-info with no nextnonce and rspauth: none sends nothing",
                hint: "set `nextnonce: true`, or `rspauth: right` or `forged`, or remove authentication-info"
            )
        }
        return info
    }

    /// NTLM's and Negotiate's settings; `scheme` names the one being read in diagnostics.
    func ntlmChallenge(_ fields: Fields, scheme: String) -> NTLMChallenge {
        rejectKeys(fields, notIn: NTLMChallenge.keys, scheme: scheme)
        var ntlm = NTLMChallenge()
        if let node = fields["server-challenge"], let text = string(node, "server-challenge") {
            let bytes = stride(from: 0, to: text.count, by: 2).compactMap { offset -> UInt8? in
                let start = text.index(text.startIndex, offsetBy: offset)
                return UInt8(text[start..<text.index(start, offsetBy: min(2, text.count - offset))], radix: 16)
            }
            if text.count == 16, bytes.count == 8, text.allSatisfy(\.isHexDigit) {
                ntlm.serverChallenge = bytes
            } else {
                report(
                    node, "server-challenge '\(text)' is not 8 bytes in hex",
                    hint: "write 16 hex digits, e.g. 0123456789abcdef"
                )
            }
        }
        if let node = fields["target-info"] { ntlm.targetInfo = bool(node, "target-info") ?? true }
        if let node = fields["allow-v1"] { ntlm.allowV1 = bool(node, "allow-v1") ?? true }
        if let node = fields["corrupt"] {
            ntlm.corruption = choice(node, "corrupt", NTLMCorruption.self)
            if ntlm.corruption != nil, !ntlm.targetInfo {
                report(
                    node,
                    "corrupt: \(ntlm.corruption!.rawValue) corrupts the target info, which "
                        + "`target-info: false` leaves out",
                    hint: "remove target-info: false"
                )
            }
        }
        for key in ["domain", "server"] {
            guard let node = fields[key], let text = string(node, key) else { continue }
            // Code points, as schema.json's maxLength counts: one Character may hold thousands
            // (combining marks), which the CHALLENGE's 16-bit lengths cannot carry.
            guard text.unicodeScalars.count <= 256, !Self.hasControlCharacter(text) else {
                report(
                    node, "\(key) is longer than 256 characters or has control characters",
                    hint: "NTLM names are short, e.g. EXAMPLE"
                )
                continue
            }
            if key == "domain" { ntlm.domain = text } else { ntlm.server = text }
        }
        return ntlm
    }

    func rejectKeys(_ fields: Fields, notIn allowed: [String], scheme: String) {
        for (key, entry) in fields.entries where !allowed.contains(key) {
            report(
                entry.key, "'\(key)' does not apply to \(scheme) challenges",
                hint: "\(scheme) takes: \(allowed.joined(separator: ", "))"
            )
        }
    }

    func charset(_ node: YAMLNode) -> Bool {
        guard let text = string(node, "charset") else { return false }
        guard text.lowercased() == "utf-8" else {
            report(node, "charset '\(text)' is not allowed", hint: "RFC 7617 and RFC 7616 allow only UTF-8")
            return false
        }
        return true
    }

    func qop(_ node: YAMLNode) -> [DigestQOP]? {
        let hint = "write auth, auth-int, [auth, auth-int], or none (RFC 2069 mode)"
        var words: [(YAMLNode, String)] = []
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
