public import AuthMockCore

/// A pattern over journal entries. Every key that is set must match; an empty pattern matches every
/// request.
///
/// A thin value: it holds what each key was given, by the key's name. What a key is (how it is read from a
/// case file, which entries it matches, how a finding says it) is declared once, in ``PatternKeys/all``; the
/// typed properties below are views of the keys the rest of the runner reads.
public struct EntryPattern: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// HTTP exchanges (the default).
        case request
        /// TLS connection records (`tls.ok`, `tls.no-request`, `tls.handshake-failed`).
        case tls
        case any
    }

    public enum CredentialsMatch: Sendable, Equatable {
        case none
        case any
        /// An auth-scheme, compared case-insensitively.
        case scheme(String)
    }

    public enum Authority: String, Sendable, Equatable, CaseIterable {
        /// The `Host` of the case's URL.
        case same
        /// Any other host or port: where credentials must not follow.
        case other
    }

    public enum Body: String, Sendable, Equatable, CaseIterable {
        /// Exactly the bytes the case asked the client to send.
        case intact
        /// A body other than the case's (truncated, empty, changed).
        case other
        case none
    }

    /// How a SOCKS5 request named its target.
    public enum SOCKSAddress: String, Sendable, Equatable, CaseIterable {
        /// ATYP 3: a host name, resolved by the proxy.
        case domain
        /// ATYP 1 or 4: an address the client resolved.
        case ip
    }

    public enum CredentialHeader: Sendable, Equatable {
        /// Any credential header (true), or none (false).
        case any(Bool)
        /// This credential header, by name (`Cookie`).
        case named(String)
    }

    public enum Cookie: Sendable, Equatable {
        /// Any of the scenario's cookies came back (true), or none did (false).
        case any(Bool)
        /// This cookie, by name (`session`).
        case named(String)
    }

    /// The value of each key the pattern sets, by the key's name; a key it does not set matches any entry.
    private(set) var values: [String: PatternValue] = [:]

    /// The value the pattern gives the key `name`, of the key's type (see ``PatternKeys/all``).
    subscript<Value: Sendable & Equatable>(name: String) -> Value? {
        get {
            assert(PatternKeys.named[name] != nil, "no pattern key '\(name)'")
            return values[name].map { $0.value as! Value }
        }
        set {
            assert(PatternKeys.named[name] != nil, "no pattern key '\(name)'")
            values[name] = newValue.map(PatternValue.init)
        }
    }

    func value(of name: String) -> PatternValue? { values[name] }

    mutating func set(_ name: String, _ value: PatternValue) { values[name] = value }

    /// HTTP exchanges, TLS connection records, or both (`kind`).
    public var kind: Kind {
        get { self["kind"] ?? .request }
        set { self["kind"] = newValue }
    }
    /// `origin`, `proxy` or `socks5` (`hop`).
    public var hop: Hop? {
        get { self["hop"] }
        set { self["hop"] = newValue }
    }
    /// The credentials the request carried for its hop (`credentials`).
    public var credentials: CredentialsMatch? {
        get { self["credentials"] }
        set { self["credentials"] = newValue }
    }
    /// Whether the journal flagged a credential sent to the wrong party (`leak`).
    public var leak: Bool? {
        get { self["leak"] }
        set { self["leak"] = newValue }
    }

    /// The scheme, per hop, this pattern asks credentials of (`any`: ``SchemeUse/anyScheme``); nil when it
    /// asks for none or does not say.
    public var schemeUse: SchemeUse? {
        switch credentials {
        case .scheme(let scheme)?: SchemeUse(hop: hop ?? .origin, scheme: scheme)
        case .any?: SchemeUse(hop: hop ?? .origin, scheme: SchemeUse.anyScheme)
        case .none?, nil: nil
        }
    }

    public init(
        kind: Kind = .request, hop: Hop? = nil, method: String? = nil, status: [Int]? = nil, verdict: [String]? = nil,
        credentials: CredentialsMatch? = nil, algorithm: String? = nil, qop: String? = nil, userhash: Bool? = nil,
        authority: Authority? = nil, tls: Bool? = nil, body: Body? = nil, nonceReused: Bool? = nil, leak: Bool? = nil
    ) {
        self.kind = kind
        self.hop = hop
        self["method"] = method
        self["status"] = status
        self["verdict"] = verdict
        self.credentials = credentials
        self["algorithm"] = algorithm
        self["qop"] = qop
        self["userhash"] = userhash
        self["authority"] = authority
        self["tls"] = tls
        self["body"] = body
        self["nonce-reused"] = nonceReused
        self.leak = leak
    }
}

/// A key's value in a pattern, of the key's own type, compared with that type's `==`.
struct PatternValue: Sendable, Equatable {
    let value: any Sendable & Equatable

    static func == (lhs: PatternValue, rhs: PatternValue) -> Bool {
        lhs.value.isEqual(to: rhs.value)
    }
}

extension Equatable {
    /// Whether `other` is a value of this type equal to this one.
    fileprivate func isEqual(to other: any Equatable) -> Bool {
        (other as? Self) == self
    }
}
