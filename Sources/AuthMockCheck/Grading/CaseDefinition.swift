import AuthMockCore
/// What a scenario file adds to become a conformance case: the `case:` section (what the client is asked
/// to do, with which inputs) and the `expect:` section (how its behaviour is judged from the journal).
///
/// ```yaml
/// case:
///   title: gives up when the password is wrong
///   features: [digest]
///   give: {password: wrong}
/// expect:
///   outcome: failure
///   implemented: {credentials: Digest}
///   checks:
///     - that: stops after the server rejects its password
///       at-most: 3
///       of: {credentials: Digest}
/// ```
public struct CaseDefinition: Sendable, Equatable {
    /// One line that says the behaviour checked, e.g. "retries with the new nonce after stale=true".
    public var title: String
    /// Where the rule comes from (`RFC 7616 §3.3`), or why the case exists.
    public var reference: String?
    /// Client features the case needs (`digest`, `proxy`, `pinning`…); a client without one skips the case.
    /// An entry may offer alternatives, `pinning|cert-pinning`: the client needs one of them.
    public var features: [String]
    /// Seconds the client may take before the runner calls it a hang; nil takes the runner's default.
    public var timeout: Double?
    public var request: CaseRequest
    public var give: CaseInputs
    /// Where the case sits in the leak matrix (`leak:`): the credential it offers and where it must not go.
    public var leak: LeakRow?
    /// A second transfer in the same client run (`then:`); nil: one transfer.
    public var then: CaseTransfer?
    public var expectations: Expectations

    public init(
        title: String, reference: String? = nil, features: [String] = [], timeout: Double? = nil,
        request: CaseRequest = CaseRequest(), give: CaseInputs = CaseInputs(),
        expectations: Expectations = Expectations()
    ) {
        self.title = title
        self.reference = reference
        self.features = features
        self.timeout = timeout
        self.request = request
        self.give = give
        self.expectations = expectations
    }

    /// The features the runner knows; the loader refuses others, so that a typo cannot skip a case silently.
    public static let knownFeatures = [
        "basic", "digest", "ntlm", "negotiate", "proxy", "connect", "tls", "custom-ca", "pinning", "cert-pinning",
        "client-certificate", "redirects", "body", "parallel", "repeat", "timeout", "h2", "stream-body", "cookies",
        "subdomains", "custom-header", "userinfo", "netrc", "https-proxy",
        "socks5", "transfers", "bearer", "oauth",
    ]
}

/// What the client is asked to fetch, and how.
public struct CaseRequest: Sendable, Equatable {
    public var method: String
    /// Path and query appended to the server's URL (`/dir/index.html?a=b`).
    public var path: String
    /// The request body; nil sends none.
    public var body: [UInt8]?
    /// Sequential fetches with one client (`AUTHMOCK_REPEAT`).
    public var repeatCount: Int
    /// Concurrent fetches with one client (`AUTHMOCK_PARALLEL`).
    public var parallel: Int
    /// Fetch from the scenario's plain HTTP listener (`tls.plain-http`) instead of its HTTPS one: for a
    /// redirect from `http://` to `https://`.
    public var plainHTTP = false
    /// The body comes on the client's standard input, a pipe it cannot rewind (`{body_stdin}`), instead of
    /// in a file (`{body_file}`): a body streamed once, which cannot be replayed after a challenge.
    public var bodyOnStdin = false

    public init(
        method: String = "GET", path: String = "/", body: [UInt8]? = nil, repeatCount: Int = 1, parallel: Int = 1
    ) {
        self.method = method
        self.path = path
        self.body = body
        self.repeatCount = repeatCount
        self.parallel = parallel
    }
}

/// A second transfer the client makes in the same run, after the first (`case.then`): another URL, and the
/// credentials it is made with, given as `{url2}`, `{user2}`/`{password2}` and `{proxy_user2}`/
/// `{proxy_password2}`. One run, one connection pool, one credentials cache: what a client carries from one
/// transfer to the next (an authenticated connection or tunnel, a Digest nonce) shows.
public struct CaseTransfer: Sendable, Equatable {
    /// Where the second transfer goes: the first's host, or the other loopback name (`localhost` ↔
    /// `127.0.0.1`, the same port): another origin.
    public enum Host: String, Sendable, Equatable, CaseIterable {
        case same
        case other
    }

    /// Whose credentials it carries: the scenario's first user again, its second, or none.
    public enum Identity: String, Sendable, Equatable, CaseIterable {
        case first
        case second
        case none
    }

    /// Path and query on that host.
    public var path: String
    public var host: Host
    /// The origin's user (`as:`).
    public var user: Identity
    /// The proxy's user (`proxy-as:`), on scenarios with a proxy.
    public var proxyUser: Identity

    public init(path: String = "/", host: Host = .same, user: Identity = .first, proxyUser: Identity = .first) {
        self.path = path
        self.host = host
        self.user = user
        self.proxyUser = proxyUser
    }
}

/// Which inputs the client gets. Defaults give a client everything it needs to succeed.
public struct CaseInputs: Sendable, Equatable {
    public enum Secret: String, Sendable, Equatable, CaseIterable {
        /// The user's real password.
        case right
        /// A password the server rejects.
        case wrong
    }

    public enum Pin: String, Sendable, Equatable, CaseIterable {
        case none
        /// The SPKI pin of the server's key.
        case right
        /// The pin of another key: the certificate is still trusted (the CA is given), only the pin fails.
        case wrong
    }

    public var password: Secret
    public var proxyPassword: Secret
    /// The SOCKS5 user's password (`{socks_password}`), right or wrong.
    public var socksPassword: Secret = .right
    /// Give the CA file (on TLS scenarios).
    public var ca: Bool
    /// Give the HTTPS proxy's CA file, `{proxy_ca_file}` (on scenarios with `proxy.tls`).
    public var proxyCA = true
    /// The server's key pin (`{pin_sha256}`).
    public var pin: Pin
    /// The server's certificate pin (`{cert_sha256}`): SHA-256 of the leaf's DER, or of another certificate.
    public var certificatePin: Pin = .none
    /// Give a client certificate and key (on scenarios that ask for one).
    public var clientCertificate: Bool
    /// Seconds the client should wait for an answer at most (`{timeout}`); nil gives none.
    public var timeout: Double?
    /// Where the user's credentials go (`credentials-in:`): `{user}`/`{password}`, a header the application
    /// sets, the URL's userinfo, or a netrc file.
    public var credentialsIn: CredentialPlace = .arguments
    /// The header that carries them with `credentials-in: header` (`header:`): `Authorization` and
    /// `Proxy-Authorization` get Basic of the user's credentials, any other name (an API key) the password.
    public var header = "Authorization"
    /// The netrc file's entries with `credentials-in: netrc` (`netrc:`), in order.
    public var netrc: [NetrcEntry] = [NetrcEntry()]

    public enum CredentialPlace: String, Sendable, Equatable, CaseIterable {
        /// `{user}` and `{password}`: the client's own authentication API.
        case arguments
        /// `{header}`: a header the application sets itself; no `{user}`/`{password}`.
        case header
        /// In `{url}` as `user:password@` (percent-encoded); no `{user}`/`{password}`.
        case userinfo
        /// In `{netrc_file}` (and `.netrc` in `{home}`); no `{user}`/`{password}`.
        case netrc
    }

    /// One entry of the netrc file the runner writes.
    public struct NetrcEntry: Sendable, Equatable {
        public enum Machine: String, Sendable, Equatable, CaseIterable {
            /// The host of the case's URL.
            case first
            /// The other loopback name (`localhost` ↔ `127.0.0.1`), where `{other_host_url}` leads.
            case other
            /// netrc's `default` entry, for any machine not named.
            case `default`
        }

        public enum Part: String, Sendable, Equatable, CaseIterable {
            /// The user's name, or the case's password (right or wrong, as `password:` says).
            case right
            /// Left out of the entry.
            case none
        }

        public var machine: Machine
        public var login: Part
        public var password: Part

        public init(machine: Machine = .first, login: Part = .right, password: Part = .right) {
            self.machine = machine
            self.login = login
            self.password = password
        }
    }

    public init(
        password: Secret = .right, proxyPassword: Secret = .right, ca: Bool = true, pin: Pin = .none,
        clientCertificate: Bool = false
    ) {
        self.password = password
        self.proxyPassword = proxyPassword
        self.ca = ca
        self.pin = pin
        self.clientCertificate = clientCertificate
    }
}

/// How a case is judged.
public struct Expectations: Sendable, Equatable {
    public var outcome: ExpectedOutcome
    /// How much an exit status other than `outcome` weighs (`outcome-grade:`): `fail` unless the RFCs leave
    /// it to the client (a forged `rspauth` that only a client which verifies it refuses). A hang or a crash
    /// fails whatever this says.
    public var outcomeGrade: Grade = .fail
    /// If no request matches one of these patterns, the client lacks the feature: the case is
    /// `unimplemented` (unless a bound graded `fail` is broken anyway — a leak is a leak).
    public var implemented: [EntryPattern]
    /// The situation the case's title names (`met:`), as requests in this order: the challenge, the 407, the
    /// stale nonce, the hostile answer. A client that never met it cannot have shown the behaviour, so the
    /// case is `unimplemented` — whatever the rest of its run says (unlike a scheme named in `implemented:`,
    /// which the run settles). Besides these, every case needs the client to have reached the server at all.
    public var met: [EntryPattern]
    public var checks: [Check]

    public init(
        outcome: ExpectedOutcome = .any, implemented: [EntryPattern] = [], met: [EntryPattern] = [],
        checks: [Check] = []
    ) {
        self.outcome = outcome
        self.implemented = implemented
        self.met = met
        self.checks = checks
    }
}

/// What the client's exit status should say.
public enum ExpectedOutcome: String, Sendable, Equatable, CaseIterable {
    /// Exit status 0: the client got its 2xx.
    case success
    /// A non-zero exit status: the client reported the failure.
    case failure
    case any
}

/// How much a broken expectation weighs, as Autobahn|Testsuite grades.
public enum Grade: String, Sendable, Equatable, CaseIterable, Comparable {
    /// A MUST of the RFCs, a leaked credential, a loop, a request after a failed trust or pin check.
    case fail
    /// A SHOULD of the RFCs.
    case nonStrict = "non-strict"
    /// Client policy no RFC settles: reported, never judged.
    case informational

    /// Severity order: fail is the worst.
    var severity: Int {
        switch self {
        case .fail: 3
        case .nonStrict: 2
        case .informational: 1
        }
    }

    public static func < (lhs: Grade, rhs: Grade) -> Bool { lhs.severity < rhs.severity }
}

/// One expectation: a sentence for people and a rule over the journal.
public struct Check: Sendable, Equatable {
    /// What the client should do, as a sentence ("drops Authorization on a redirect to another host").
    public var that: String
    public var grade: Grade
    public var rule: Rule

    public init(that: String, grade: Grade = .fail, rule: Rule) {
        self.that = that
        self.grade = grade
        self.rule = rule
    }

    public enum Rule: Sendable, Equatable {
        /// These patterns match requests in this order (other requests may come between).
        case sequence([EntryPattern])
        /// The number of requests matching the pattern is within the bounds (after the first request
        /// matching `after`, when given).
        case count(EntryPattern, min: Int?, max: Int?, after: EntryPattern?)
        /// Reports what the client did; never fails.
        case observe(Observation)
    }

    public enum Observation: String, Sendable, Equatable, CaseIterable {
        /// The auth-schemes of the credentials sent, in order.
        case schemes
        /// The Digest algorithms used.
        case algorithms
        /// Whether Digest credentials used `userhash=true`.
        case userhash
        /// Whether the client reused a Digest nonce (and with which nc values).
        case nonceReuse = "nonce-reuse"
        /// Request headers worth seeing on the credentialed requests (`Expect`, `Content-Length`).
        case requestShape = "request-shape"
        /// Each TLS connection: the certificate presented (renewed with the same key or a new one) and
        /// what the client did with it.
        case tlsConnections = "tls-connections"
        /// How the Basic credentials were encoded: UTF-8, ASCII (characters lost), or other bytes.
        case basicEncoding = "basic-encoding"
        /// Per path, in order, the scheme of each request's credentials (or none): what was sent up front.
        case credentialsByPath = "credentials-by-path"
    }
}
