/// Every input the runner gives a client: a `{placeholder}` in its arguments and in a profile's `env:`, and
/// an `AUTHMOCK_*` environment variable. This is the one list the profile loader, the runner, `check --help`
/// and the README's table of the client contract are made from (a test holds the README to it), so that a
/// placeholder cannot be documented and then left unsubstituted.
public enum ClientInput: String, CaseIterable, Sendable {
    case url
    case user
    case password
    case domain
    case proxy
    case proxyUser = "proxy_user"
    case proxyPassword = "proxy_password"
    case proxyCAFile = "proxy_ca_file"
    case socksProxy = "socks_proxy"
    case socksUser = "socks_user"
    case socksPassword = "socks_password"
    case caFile = "ca_file"
    case pinSHA256 = "pin_sha256"
    case certSHA256 = "cert_sha256"
    case clientCert = "client_cert"
    case clientKey = "client_key"
    case caseName = "case"
    case method
    case bodyFile = "body_file"
    case bodyStdin = "body_stdin"
    case `repeat`
    case parallel
    case timeout
    case ntlmUserFile = "ntlm_user_file"
    case cookieJar = "cookie_jar"
    case header
    case headerName = "header_name"
    case headerValue = "header_value"
    case netrcFile = "netrc_file"
    case home
    /// The second transfer of a case with `then:` (its URL, and the credentials it is made with).
    case url2
    case user2
    case password2
    case proxyUser2 = "proxy_user2"
    case proxyPassword2 = "proxy_password2"
    /// Bearer (RFC 6750): a token to send, and the token endpoint with its client (RFC 6749).
    case token
    case tokenURL = "token_url"
    case clientID = "client_id"
    case clientSecret = "client_secret"

    /// `{cert_sha256}`.
    public var placeholder: String { "{\(rawValue)}" }

    /// `AUTHMOCK_CERT_SHA256`.
    public var environmentName: String { "AUTHMOCK_" + rawValue.uppercased() }

    /// Whether a profile's `when:` and `unless:` may name it. The URL and the case's name are always given.
    public var isCondition: Bool { self != .url && self != .caseName }

    /// Whether a case gives it exactly when it has a value. `method`, `repeat` and `parallel` always have one
    /// and count as given only when they are not the default (not GET, more than one fetch); the URL and the
    /// case's name are not conditions at all.
    var isGivenWhenSet: Bool {
        switch self {
        case .url, .caseName, .method, .repeat, .parallel: false
        default: true
        }
    }

    /// Every placeholder name, in the order the README documents them.
    public static let names = allCases.map(\.rawValue)
}
