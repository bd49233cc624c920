import AuthMockCore

/// Where a case sits in the leak matrix (`case.leak:`): which credential it offers the client and where that
/// credential must not go. The matrix's "credential leaks" summary is made from it: per credential kind and
/// client, the routes on which the client let it through.
///
/// ```yaml
/// case:
///   leak: {credential: cookie, route: https-to-http}
/// ```
public struct LeakRow: Sendable, Codable, Equatable, Hashable {
    /// What the credential is and how the client came to hold it.
    public enum Credential: String, Sendable, Codable, CaseIterable {
        case authorization
        case authorizationHeader = "authorization-header"
        case proxyAuthorization = "proxy-authorization"
        case proxyAuthorizationHeader = "proxy-authorization-header"
        case cookie
        case apiKey = "api-key"
        case userinfo
        case netrc
        case socks
        /// A Bearer access token the client was given (`{token}`), sent by its Bearer mechanism.
        case bearerToken = "bearer-token"

        /// The summary table's row heading.
        public var title: String {
            switch self {
            case .authorization: "Authorization, answering a challenge"
            case .authorizationHeader: "Authorization set by the application"
            case .proxyAuthorization: "Proxy-Authorization, answering a 407"
            case .proxyAuthorizationHeader: "Proxy-Authorization set by the application"
            case .cookie: "Cookie"
            case .apiKey: "API-key header set by the application"
            case .userinfo: "user:password in the URL"
            case .netrc: "netrc"
            case .socks: "SOCKS5 username and password"
            case .bearerToken: "Bearer access token"
            }
        }
    }

    /// Where the credential must not go.
    public enum Route: String, Sendable, Codable, CaseIterable {
        case otherHost = "other-host"
        case otherPort = "other-port"
        case httpsToHTTP = "https-to-http"
        case subdomain
        case chainBack = "chain-back"
        /// From the proxy's credentials to the origin (in the tunnel or forwarded).
        case origin
        /// To the proxy, from the origin's credentials.
        case proxy
        /// Into another transfer of the same client (another host, user or proxy credentials).
        case otherTransfer = "other-transfer"
        /// To a host the credential was never given for (netrc looked up for the wrong name).
        case wrongHost = "wrong-host"
        /// To an HTTPS proxy whose certificate the client could not verify (untrusted, or for another host).
        case unverifiedProxy = "unverified-proxy"

        /// The summary's words for it.
        public var label: String {
            switch self {
            case .otherHost: "other host"
            case .otherPort: "other port"
            case .httpsToHTTP: "https→http"
            case .subdomain: "subdomain"
            case .chainBack: "chain back"
            case .origin: "to the origin"
            case .proxy: "to the proxy"
            case .otherTransfer: "other transfer"
            case .wrongHost: "wrong host"
            case .unverifiedProxy: "unverified proxy"
            }
        }
    }

    public var credential: Credential
    public var route: Route

    public init(credential: Credential, route: Route) {
        self.credential = credential
        self.route = route
    }
}

extension ScenarioReader {
    /// `case.leak: {credential: …, route: …}`, both from their closed lists.
    func leakRow(_ node: YAMLNode) -> LeakRow? {
        let keys = ["credential", "route"]
        guard let fields = mapping(node, "case.leak", allowed: keys, required: keys) else { return nil }
        let credential = fields["credential"].flatMap { word($0, "case.leak.credential", LeakRow.Credential.self) }
        let route = fields["route"].flatMap { word($0, "case.leak.route", LeakRow.Route.self) }
        guard let credential, let route else { return nil }
        return LeakRow(credential: credential, route: route)
    }

    private func word<Word: RawRepresentable & CaseIterable>(
        _ node: YAMLNode, _ what: String, _: Word.Type
    ) -> Word? where Word.RawValue == String {
        guard let text = string(node, what) else { return nil }
        if let word = Word(rawValue: text) { return word }
        let names = Word.allCases.map(\.rawValue)
        report(node, "\(what) '\(text)' is not known", hint: Suggestion.hint(for: text, in: names))
        return nil
    }
}
