import AuthMockCore

/// The keys of a request pattern: the one place a key is declared. The loader takes its list of keys (and
/// so the docs and the schema test) and its reader from here, the matcher its rules, the narrator its
/// words. A new key is one more entry.
enum PatternKeys {
    /// In the order the docs list them and the loader reads them (so a file's problems are reported in
    /// this order); ``PatternKey/Clause`` orders their words in a sentence.
    static let all: [PatternKey] = [
        // HTTP exchanges (the default), TLS connection records, or any.
        PatternKey(
            "kind", onTLSRecords: true,
            read: { reader, node, field in reader.choice(node, field, EntryPattern.Kind.self) },
            matches: { kind, entry, _ in
                switch kind {
                case .request: entry.exchange > 0
                case .tls: entry.requests != nil
                case .any: true
                }
            },
            words: { kind, _ in kind == .tls ? "a TLS connection" : nil }
        ),
        // The hop the request was decided on: `origin` or `proxy`.
        // TLS records too: an HTTPS proxy's connections are the proxy's.
        PatternKey(
            "hop", onTLSRecords: true, read: readHop,
            matches: { hop, entry, _ in (entry.hop ?? .origin) == hop },
            words: { hop, _ in hop == .socks5 ? "to the SOCKS5 proxy" : "to the \(hop.rawValue)" }
        ),
        PatternKey(
            "method", read: { reader, node, field in reader.string(node, field)?.uppercased() },
            matches: { method, entry, _ in entry.method?.uppercased() == method.uppercased() },
            words: { method, _ in method.uppercased() }
        ),
        // The status answered: one, or a list of them.
        PatternKey(
            "status", clause: .answer, read: readStatuses,
            matches: { statuses, entry, _ in statuses.contains(entry.status) },
            words: { statuses, _ in "answered \(statuses.map(String.init).joined(separator: " or "))" }
        ),
        // Verdict names; a trailing `*` matches a prefix (`digest.*`).
        PatternKey(
            "verdict", clause: .judgement, onTLSRecords: true, read: readVerdicts,
            matches: { names, entry, _ in
                names.contains { EntryMatcher.verdict(entry.verdict.rawValue, matches: $0) }
            },
            words: { names, _ in "judged \(names.joined(separator: " or "))" }
        ),
        // The credentials the request carried for its own hop: none, any, or those of a scheme.
        PatternKey(
            "credentials", read: readCredentials,
            matches: { wanted, entry, _ in
                let scheme = entry.presentedScheme
                switch wanted {
                case .none: return scheme == nil
                case .any: return scheme != nil
                case .scheme(let wanted): return scheme?.lowercased() == wanted.lowercased()
                }
            },
            words: { wanted, _ in
                switch wanted {
                case .none: "without credentials"
                case .any: "with credentials"
                case .scheme(let scheme): "with \(scheme) credentials"
                }
            }
        ),
        // Digest credentials of this algorithm (credentials that name none are MD5).
        PatternKey(
            "algorithm", read: readAlgorithm,
            matches: { algorithm, entry, _ in
                entry.credentials.flatMap { AuthScheme(token: $0.scheme) } == .digest
                    && (entry.credentialParameters["algorithm"] ?? "MD5").lowercased() == algorithm.lowercased()
            },
            words: { algorithm, _ in "algorithm \(algorithm)" }
        ),
        PatternKey(
            "qop", read: { reader, node, field in reader.choice(node, field, DigestQOP.self)?.rawValue },
            matches: { qop, entry, _ in entry.credentialParameters["qop"]?.lowercased() == qop.lowercased() },
            words: { qop, _ in "qop=\(qop)" }
        ),
        .flag("userhash", yes: "userhash=true", no: "without userhash") { entry, _ in
            entry.credentialParameters["userhash"]?.lowercased() == "true"
        },
        // `same`: the `Host` of the case's URL; `other`: any other host or port, where credentials must not
        // follow.
        PatternKey(
            "authority", read: { reader, node, field in reader.choice(node, field, EntryPattern.Authority.self) },
            matches: { authority, entry, matcher in
                (entry.destination?.lowercased() == matcher.authority) == (authority == .same)
            },
            words: { authority, caseAuthority in
                authority == .same ? "to \(caseAuthority)" : "to a host or port other than \(caseAuthority)"
            }
        ),
        // The request's path, without its query: exact (`/accounting`), or a prefix ending in `*` (`/account/*`);
        // a proxy's absolute-form target counts by its path. Tells a case's second transfer (`then.path`) too.
        PatternKey(
            "path", read: readPath,
            matches: { wanted, entry, _ in
                guard let target = entry.target else { return false }
                let path = Self.path(of: target)
                return wanted.hasSuffix("*") ? path.hasPrefix(wanted.dropLast()) : path == wanted
            },
            words: { wanted, _ in "for \(wanted)" }
        ),
        // The user the request's credentials name, accepted or not (Basic's, Digest's, NTLM's AUTHENTICATE).
        PatternKey(
            "user", read: { reader, node, field in reader.string(node, field) },
            matches: { user, entry, _ in entry.credentials?.user == user },
            words: { user, _ in "naming the user \(user)" }
        ),
        // The user the request was served as: whose credentials were accepted, or, without credentials, whom
        // the connection was authenticated as (NTLM, Negotiate: the journal's `connection_user`).
        PatternKey(
            "served-as", clause: .judgement, read: { reader, node, field in reader.string(node, field) },
            matches: { user, entry, _ in Self.servedAs(entry) == user },
            words: { user, _ in "served as \(user)" }
        ),
        // Whether the request arrived over TLS.
        .flag("tls", onTLSRecords: true, yes: "over TLS", no: "over cleartext") { entry, _ in entry.tls != nil },
        // Whether the connection's client presented a certificate (TLS connections only).
        .flag(
            "client-certificate", onTLSRecords: true,
            yes: "with a client certificate", no: "without a client certificate"
        ) { entry, _ in entry.tls?.clientCertificate != nil },
        // `intact`: exactly the bytes the case asked the client to send; `other`: another body (truncated,
        // empty, changed); `none`.
        PatternKey(
            "body", read: { reader, node, field in reader.choice(node, field, EntryPattern.Body.self) },
            matches: { body, entry, matcher in
                switch body {
                case .none: entry.bodyBytes == 0
                case .intact: entry.bodySHA256 != nil && entry.bodySHA256 == matcher.bodySHA256
                case .other: entry.bodyBytes != 0 && entry.bodySHA256 != matcher.bodySHA256
                }
            },
            words: { body, _ in
                switch body {
                case .intact: "with the body intact"
                case .other: "with a changed body"
                case .none: "without a body"
                }
            }
        ),
        // Digest credentials whose nc is above 1: the client reused a nonce.
        .flag("nonce-reused", yes: "reusing a nonce (nc > 1)", no: "with a fresh nonce") { entry, _ in
            entry.nonceCount.map { $0 > 1 } ?? false
        },
        // Whether the journal flagged a credential sent to the wrong party.
        .flag("leak", yes: "leaking a credential", no: "leaking nothing") { entry, _ in entry.leaks?.isEmpty == false },
        // Whether the request carried a header that holds a credential, whichever hop it was for: one the
        // journal marks (`Authorization`, `Proxy-Authorization`, `Cookie`) or one the client's profile
        // declares (`credential-headers:`); `true`, `false`, or a header's name. (`credentials:` reads only
        // the header of the request's own hop.)
        PatternKey(
            "credential-header", read: readCredentialHeader,
            matches: { wanted, entry, matcher in
                switch wanted {
                case .any(let carried): matcher.carriesCredentialHeader(entry) == carried
                case .named(let name): matcher.carriesCredentialHeader(entry, named: name)
                }
            },
            words: { wanted, _ in
                switch wanted {
                case .any(let carried): carried ? "carrying a credential header" : "carrying no credential header"
                case .named(let name): "carrying a credential in \(name)"
                }
            }
        ),
        // Whether the request's `Cookie` brought back a cookie the scenario's resources set (`set-cookies:`),
        // with its value: the journal's `cookies`; `true`, `false`, or a cookie's name.
        PatternKey(
            "cookie", read: readCookie,
            matches: { wanted, entry, _ in
                switch wanted {
                case .any(let carried): (entry.cookies?.isEmpty == false) == carried
                case .named(let name): entry.cookies?.contains(name) == true
                }
            },
            words: { wanted, _ in
                switch wanted {
                case .any(let carried): carried ? "bringing back a cookie it was set" : "bringing back no cookie"
                case .named(let name): "bringing back the cookie \(name)"
                }
            }
        ),
        // The HTTP version the request came in: `http/1.1` or `h2`.
        PatternKey(
            "protocol", read: readProtocol,
            matches: { wanted, entry, _ in entry.httpProtocol == wanted.rawValue },
            words: { wanted, _ in wanted == .h2 ? "over HTTP/2" : "over HTTP/1.1" }
        ),
        // Whether the server answered it with something hostile on purpose (a raw challenge, a corrupted
        // NTLM CHALLENGE): the journal's `hostile`.
        .flag("hostile", yes: "answered with a hostile challenge", no: "answered without a hostile challenge") {
            entry, _ in entry.hostile != nil
        },
        // NTLM AUTHENTICATE only: the response's version as the journal names it (`NTLMv1`, `NTLMv2`,
        // `anonymous`). An NTLMv2 response carries the CHALLENGE's target info; NTLMv1 ignores it.
        PatternKey(
            "ntlm-version", read: readNTLMVersion,
            matches: { version, entry, _ in
                entry.credentialParameters["message"] == "AUTHENTICATE"
                    && entry.credentialParameters["version"] == version
            },
            words: { version, _ in "an NTLM AUTHENTICATE with an \(version) response" }
        ),
        // SOCKS5 handshakes only: how the client named its target, `domain` (ATYP 3: the proxy resolves it,
        // as `socks5h://` asks) or `ip` (IPv4 or IPv6: the client resolved the name itself).
        PatternKey(
            "socks-address",
            read: { reader, node, field in reader.choice(node, field, EntryPattern.SOCKSAddress.self) },
            matches: { wanted, entry, _ in
                guard let address = entry.socks5?.address else { return false }
                return wanted == .domain ? address == "domain" : address == "ipv4" || address == "ipv6"
            },
            words: { wanted, _ in
                wanted == .domain ? "naming the target by its host name" : "naming the target by address"
            }
        ),
    ]

    /// The keys by name.
    static let named = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// The keys in the order their words stand in a sentence.
    static let inSentenceOrder = all.enumerated()
        .sorted { ($0.element.clause, $0.offset) < ($1.element.clause, $1.offset) }
        .map(\.element)

    // MARK: - Reading the larger keys

    private static func readHop(_ reader: ScenarioReader, _ node: YAMLNode, _ field: String) -> Hop? {
        guard let text = reader.string(node, field) else { return nil }
        if let hop = Hop(rawValue: text) { return hop }
        reader.report(node, "hop '\(text)' is not known", hint: "write origin, proxy or socks5")
        return nil
    }

    private static func readStatuses(_ reader: ScenarioReader, _ node: YAMLNode, _ field: String) -> [Int]? {
        guard case .sequence(let items) = node else { return reader.int(node, field, in: 100...599).map { [$0] } }
        if items.isEmpty { reader.report(node, "\(field) is an empty list", hint: "give a status or a list of them") }
        return items.compactMap { reader.int($0, field, in: 100...599) }
    }

    /// One verdict name or a list; a name no verdict has (or a prefix none starts with) would make the
    /// check vacuous.
    private static func readVerdicts(_ reader: ScenarioReader, _ node: YAMLNode, _ field: String) -> [String]? {
        let items: [YAMLNode]
        if case .sequence(let list) = node {
            if list.isEmpty {
                reader.report(node, "\(field) is an empty list", hint: "give a verdict or a list of them")
            }
            items = Array(list)
        } else {
            items = [node]
        }
        let known = Verdict.known.map(\.rawValue)
        return items.compactMap { item in
            guard let name = reader.string(item, field) else { return nil }
            let exists = name.hasSuffix("*") ? known.contains { $0.hasPrefix(name.dropLast()) } : known.contains(name)
            if !exists {
                let hint = Suggestion.hint(for: name, in: known, noun: "verdicts")
                reader.report(item, "verdict '\(name)' is not one the engine gives", hint: hint)
            }
            return name
        }
    }

    /// `none`, `any`, or a scheme a client may send (kept as written).
    private static func readCredentials(
        _ reader: ScenarioReader, _ node: YAMLNode, _ field: String
    ) -> EntryPattern.CredentialsMatch? {
        guard let text = reader.string(node, field) else { return nil }
        switch text.lowercased() {
        case "none": return EntryPattern.CredentialsMatch.none
        case "any": return .any
        case _ where SchemeUse.known.contains(where: { text.equalsIgnoringASCIICase($0) }): return .scheme(text)
        default:
            let schemes = AuthScheme.allCases.map(\.token).joined(separator: ", ")
            reader.report(node, "credentials '\(text)' is not known", hint: "write none, any, or a scheme: \(schemes)")
            return nil
        }
    }

    private static func readAlgorithm(_ reader: ScenarioReader, _ node: YAMLNode, _ field: String) -> String? {
        guard let text = reader.string(node, field) else { return nil }
        if DigestAlgorithm(token: text) != nil { return text }
        let hint = Suggestion.hint(for: text, in: DigestAlgorithm.allCases.map(\.token))
        reader.report(node, "algorithm '\(text)' is not a Digest algorithm", hint: hint)
        return nil
    }

    /// `true`, `false`, or the name of one credential header.
    private static func readCredentialHeader(
        _ reader: ScenarioReader, _ node: YAMLNode, _ field: String
    ) -> EntryPattern.CredentialHeader? {
        if case .scalar(let scalar) = node, scalar.style == .plain, ["true", "false"].contains(scalar.string) {
            return .any(scalar.string == "true")
        }
        guard let name = reader.string(node, field) else { return nil }
        guard name.isEmpty || name.contains(where: { $0 == ":" || $0.isWhitespace }) else { return .named(name) }
        reader.report(
            node, "credential-header '\(name)' is neither true, false nor a header name",
            hint: "write true, false, or a name such as Cookie"
        )
        return nil
    }

    /// A path as a resource names one: starting with `/`, a `*` only at its end, no query.
    private static func readPath(_ reader: ScenarioReader, _ node: YAMLNode, _ field: String) -> String? {
        guard let path = reader.string(node, field) else { return nil }
        if path.hasPrefix("/"), !path.dropLast().contains("*"), !path.contains("?") { return path }
        reader.report(
            node, "path '\(path)' is not a request path", hint: "write /accounting, or /account/* for a prefix"
        )
        return nil
    }

    /// `true`, `false`, or the name of a cookie (an HTTP token).
    private static func readCookie(
        _ reader: ScenarioReader, _ node: YAMLNode, _ field: String
    ) -> EntryPattern.Cookie? {
        if case .scalar(let scalar) = node, scalar.style == .plain, ["true", "false"].contains(scalar.string) {
            return .any(scalar.string == "true")
        }
        guard let name = reader.string(node, field) else { return nil }
        if ScenarioReader.isToken(name) { return .named(name) }
        reader.report(
            node, "cookie '\(name)' is neither true, false nor a cookie's name",
            hint: "write true, false, or a name such as session"
        )
        return nil
    }

    /// The path of a request target: origin-form up to the query, or the path of an absolute-form URL.
    static func path(of target: String) -> String {
        var rest = Substring(target)
        if !rest.hasPrefix("/"), let scheme = rest.firstRange(of: "://") {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(of: "/").map { rest[$0...] } ?? "/"
        }
        return String(rest.prefix { $0 != "?" && $0 != "#" })
    }

    /// Who a request was served as: the user of accepted credentials, or the connection's NTLM user.
    static func servedAs(_ entry: JournalEntry) -> String? {
        if let user = entry.connectionUser { return user }
        let granted: [Verdict] = [
            .basicOK, .digestOK, .digestNextnonceUsed, .ntlmOK, .socks5OK, .bearerOK, .bearerInQuery,
        ]
        return granted.contains(entry.verdict) ? entry.credentials?.user : nil
    }

    private static func readProtocol(_ reader: ScenarioReader, _ node: YAMLNode, _ field: String) -> HTTPProtocol? {
        guard let text = reader.string(node, field) else { return nil }
        if let value = HTTPProtocol(rawValue: text.lowercased()) { return value }
        reader.report(node, "protocol '\(text)' is not known", hint: "write http/1.1 or h2")
        return nil
    }

    private static func readNTLMVersion(_ reader: ScenarioReader, _ node: YAMLNode, _ field: String) -> String? {
        guard let text = reader.string(node, field) else { return nil }
        if let known = ["NTLMv1", "NTLMv2", "anonymous"].first(where: { $0.equalsIgnoringASCIICase(text) }) {
            return known
        }
        reader.report(node, "ntlm-version '\(text)' is not known", hint: "write NTLMv1, NTLMv2 or anonymous")
        return nil
    }
}
