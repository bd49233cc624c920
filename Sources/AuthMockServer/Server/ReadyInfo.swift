import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What `authmock serve` prints as its one JSON ready line (and writes to `--ready-file`).
///
/// Other projects' tests parse this; the field names are stable:
/// `{"url":"http://127.0.0.1:8080/","port":8080,"scenario":"digest","users":[{"name":"alice","password":"…"}],`
/// `"control_token":"…"}`
public struct ReadyInfo: Codable, Sendable, Equatable {
    public var url: String
    public var port: Int
    public var scenario: String
    public var users: [User]
    /// `GET` this for the journal as JSON.
    public var journal: String
    /// `GET` this in a browser for the live page: the scenario, its users and the journal as it grows; nil
    /// only in a ready line from before the page was announced.
    public var live: String?
    /// The base of the control endpoints (`reset`, `users/{name}`, `tls/rotate`, `proxy/users/{name}`).
    public var control: String
    /// What control requests carry as `Authorization: Bearer TOKEN` (required off loopback); nil only in a
    /// ready line from before the token existed.
    public var controlToken: String?
    /// With TLS: the files and pins clients need.
    public var tls: TLSInfo?
    /// With TLS and `plain-http: true`: the extra plain-HTTP listener.
    public var httpURL: String?
    /// With `second-port: true`: the same origin on a second port.
    public var secondURL: String?
    /// With a `proxy:` section: the forward proxy and its users.
    public var proxy: ProxyInfo?
    /// With a `socks5:` section: the SOCKS5 listener (`socks5h://127.0.0.1:PORT`) and its users.
    public var socks5: SOCKS5Info?
    /// What the origin speaks, in ALPN's names: `http/1.1`, and `h2` (over TLS) or `h2c` (prior knowledge)
    /// when the scenario has `http2:`.
    public var protocols: [String]
    /// With an `oauth:` section: the token endpoint and its clients.
    public var oauth: OAuthInfo?

    public struct OAuthInfo: Codable, Sendable, Equatable {
        /// Where clients `POST` token requests (RFC 6749 §3.2).
        public var tokenURL: String
        public var clients: [Client]
        /// The grant types it takes (`client_credentials`, `password`, `refresh_token`).
        public var grants: [String]

        public struct Client: Codable, Sendable, Equatable {
            public var id: String
            public var secret: String?
        }

        enum CodingKeys: String, CodingKey {
            case clients, grants
            case tokenURL = "token_url"
        }
    }

    public struct ProxyInfo: Codable, Sendable, Equatable {
        /// `http://127.0.0.1:PORT`, as clients take it (`curl -x`, `HTTPS_PROXY`).
        public var url: String
        public var users: [User]
        /// An HTTPS proxy's files: its CA (`ca_file`) is what clients trust it with.
        public var tls: TLSInfo?
    }

    public struct SOCKS5Info: Codable, Sendable, Equatable {
        public var url: String
        public var users: [SOCKS5User]
    }

    enum CodingKeys: String, CodingKey {
        case url, port, scenario, users, journal, live, control, tls, proxy, protocols, socks5, oauth
        case httpURL = "http_url"
        case secondURL = "second_url"
        case controlToken = "control_token"
    }

    public init(server: AuthMockServer) {
        url = server.url
        port = server.port
        scenario = server.scenario.name
        users = server.scenario.users
        journal = server.url + "_authmock/journal"
        control = server.url + "_authmock/"
        live = server.url + "_authmock/"
        controlToken = server.controlToken
        tls = server.tls
        httpURL = server.httpURL
        secondURL = server.secondURL
        protocols = server.scenario.http2.protocols
        proxy = server.proxyURL.map {
            ProxyInfo(url: $0, users: server.scenario.proxy?.users ?? [], tls: server.proxyTLS)
        }
        socks5 = server.socksURL.map { SOCKS5Info(url: $0, users: server.scenario.socks5?.users ?? []) }
        oauth = server.scenario.oauth.map { oauth in
            OAuthInfo(
                tokenURL: server.url + String(oauth.tokenPath.dropFirst()),
                clients: oauth.clients.map { OAuthInfo.Client(id: $0.id, secret: $0.secret) },
                grants: oauth.grants.map(\.rawValue)
            )
        }
    }

    /// Where the try commands point (``TryCommands``): the URL, the CA and client certificate files, the proxy.
    public var tryWhere: TryCommands.Where {
        TryCommands.Where(
            url: url, caFile: tls?.caFile,
            clientCerts: (tls?.clientCerts ?? [:]).mapValues { (certFile: $0.certFile, keyFile: $0.keyFile) },
            proxyURL: proxy?.url, proxyCAFile: proxy?.tls?.caFile
        )
    }

    /// One line of JSON, no trailing newline.
    public func jsonLine() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
