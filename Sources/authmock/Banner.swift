import AuthMockCore
import AuthMockServer

/// The human-readable start-up text (stderr): where, who, and a curl command that works.
struct Banner {
    var scenario: Scenario
    var ready: ReadyInfo
    /// Where the listeners are bound (`0.0.0.0:8080`), and whether all of them are loopback addresses.
    var bound: [String] = []
    var loopbackOnly = true
    /// The machine's addresses a wildcard listener takes connections on.
    var reach: [String] = []

    var text: String {
        var lines = [
            "authmock \(AuthMockCommand.version) serving \"\(scenario.name)\""
                + (scenario.description.isEmpty ? "" : ": \(scenario.description)")
        ]
        lines.append("  listening  \(ready.url)  (\(ready.protocols.joined(separator: ", ")))")
        if !loopbackOnly {
            let addresses = reach.isEmpty ? "" : "every address of this machine: \(reach.joined(separator: ", ")); "
            lines.append("  bound      \(bound.joined(separator: ", "))  (\(addresses)reachable beyond loopback)")
        }
        if let http = ready.httpURL { lines.append("  plain      \(http)") }
        if let proxy = ready.proxy {
            let users = proxy.users.map(Self.describe).joined(separator: ", ")
            lines.append("  proxy      \(proxy.url)" + (users.isEmpty ? " (open)" : "  users \(users)"))
            if let tls = proxy.tls { lines.append("  proxy tls  trust \(tls.caFile)") }
        }
        if let socks = ready.socks5 {
            let users = socks.users.map { "\($0.name):\($0.password)" }.joined(separator: ", ")
            lines.append("  socks5     \(socks.url)" + (users.isEmpty ? " (open)" : "  users \(users)"))
        }
        if let tls = ready.tls {
            lines.append("  tls        \(tls.identity ?? "certificate from --cert"): trust \(tls.caFile)")
            lines.append("  pin        \(tls.curlPin)  (sha256 of the leaf: \(tls.fingerprintSHA256))")
            for (user, files) in (tls.clientCerts ?? [:]).sorted(by: { $0.key < $1.key }) {
                lines.append("  client     \(user): --cert \(files.certFile) --key \(files.keyFile)")
            }
        }
        if !scenario.users.isEmpty {
            let users = scenario.users.map(Self.describe).joined(separator: ", ")
            lines.append("  users      \(users)")
        }
        lines.append("  offers     " + scenario.challenges.map(\.summary).joined(separator: "; "))
        if let oauth = ready.oauth {
            lines.append("  token      \(oauth.tokenURL)  (grants \(oauth.grants.joined(separator: ", ")))")
        }
        if let command = tokenCommand { lines.append("  get token  \(command)") }
        if let command = curlCommand { lines.append("  try        \(command)") }
        lines += controlLines
        return lines.joined(separator: "\n")
    }

    /// Where the control plane is and what it needs: the token off loopback, JSON for POSTs everywhere.
    var controlLines: [String] {
        let token = ready.controlToken ?? "TOKEN"
        let header = Self.shellQuote("Authorization: Bearer \(token)")
        if loopbackOnly {
            return [
                "  control    \(ready.control)  (loopback only; token optional: Authorization: Bearer \(token))",
                "  journal    curl -s \(ready.journal)",
                "  live page  \(ready.live ?? ready.control)  (open it in a browser: the journal as it grows)",
            ]
        }
        return [
            "  control    \(ready.control)  needs Authorization: Bearer \(token) (not loopback only);"
                + " POSTs need Content-Type: application/json",
            "  journal    curl -s -H \(header) \(ready.journal)",
            "  live page  \(ready.live ?? ready.control)  (beyond loopback it needs the token too)",
        ]
    }

    /// The `get token` and `try` commands, built where the live page builds them too.
    var commands: TryCommands { TryCommands(scenario: scenario, where: ready.tryWhere) }
    var tokenCommand: String? { commands.token }
    var curlCommand: String? { commands.curl }

    /// `alice / wonderland`, `bob (token bob-admin-token)`, or for a user from a file
    /// `alice (bcrypt, users.htpasswd:3)`.
    static func describe(_ user: User) -> String {
        let token = user.token.map { " (token \($0))" } ?? ""
        if user.token != nil, user.password.isEmpty, user.stored == nil { return user.name + token }
        guard let stored = user.stored else { return "\(user.name) / \(user.password)" + token }
        return "\(user.name) (\(stored.scheme)\(user.source.map { ", " + $0 } ?? ""))"
    }

    static func shellQuote(_ text: String) -> String { TryCommands.shellQuote(text) }
}
