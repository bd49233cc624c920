import Crypto
import Foundation
import Testing

@testable import AuthMockCore

/// The engine's answers, byte for byte, over every shipped scenario: a fixed conversation (no credentials,
/// each offered challenge answered right and wrong, NTLM handshakes, the proxy's 407 and CONNECT, a leak,
/// time passing, the control endpoints, refusals and HTTP/2 failures) is rendered to text with every
/// response header, body and journal entry, and its SHA-256 is compared with the committed fingerprint in
/// `Golden/exchanges.sha256`.
///
/// A refactoring of the engine must leave every fingerprint as it is. The captures are written to
/// `.build/golden/` on every run, so two runs (before and after a change) can be compared with `diff -r`.
/// When a change of behaviour is meant, `AUTHMOCK_UPDATE_GOLDEN=1 swift test --filter GoldenExchangeTests`
/// rewrites the fingerprints, and the commit says why they changed.
@Suite struct GoldenExchangeTests {
    static let directories = ["scenarios", "scenarios/conformance", "ci/bench-scenarios"]
    static let fingerprints = repositoryRoot.appendingPathComponent("Tests/AuthMockCoreTests/Golden/exchanges.sha256")
    static let captures = repositoryRoot.appendingPathComponent(".build/golden")

    static func shipped() -> [String] {
        directories.flatMap { directory in
            ((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(directory).path)) ?? [])
                .filter { $0.hasSuffix(".yaml") }.sorted().map { "\(directory)/\($0)" }
        }
    }

    @Test func everyShippedScenarioAnswersAsRecorded() throws {
        let names = Self.shipped()
        #expect(names.count >= 100)
        try FileManager.default.createDirectory(at: Self.captures, withIntermediateDirectories: true)
        var lines: [String] = []
        for name in names {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(name), encoding: .utf8)
            let scenario = try ScenarioLoader.load(yaml: text, file: name, files: .fileSystem)
            var conversation = GoldenConversation(scenario: scenario)
            let capture = conversation.run()
            let file = name.replacingOccurrences(of: "/", with: "_") + ".txt"
            try capture.write(to: Self.captures.appendingPathComponent(file), atomically: true, encoding: .utf8)
            let hash = SHA256.hash(data: Data(capture.utf8)).hexString
            lines.append("\(hash)  \(name)")
        }
        let current = lines.joined(separator: "\n") + "\n"
        if ProcessInfo.processInfo.environment["AUTHMOCK_UPDATE_GOLDEN"] == "1" {
            try current.write(to: Self.fingerprints, atomically: true, encoding: .utf8)
            return
        }
        let recorded = try String(contentsOf: Self.fingerprints, encoding: .utf8)
        let old = Set(recorded.split(separator: "\n")), new = Set(current.split(separator: "\n"))
        let changed = new.subtracting(old).sorted()
        #expect(changed.isEmpty, "answers changed (captures in .build/golden/): \(changed.joined(separator: ", "))")
        #expect(old.subtracting(new).isEmpty || !changed.isEmpty, "scenarios went missing from the capture")
    }

    /// The conversation is deterministic: two runs of one scenario give the same text.
    @Test func theCaptureIsDeterministic() throws {
        let scenario = try loadShipped("digest.yaml")
        var first = GoldenConversation(scenario: scenario), second = GoldenConversation(scenario: scenario)
        #expect(first.run() == second.run())
    }
}

/// One fixed conversation with an ``EnginePair``, rendered as text.
struct GoldenConversation {
    var pair: EnginePair
    let scenario: Scenario
    var now = t0
    var connection: UInt64 = 0
    var exchange = 0
    var text = ""

    init(scenario: Scenario) {
        self.scenario = scenario
        pair = EnginePair(scenario: scenario, journalCapacity: 10_000, random: .seeded(5), startedAt: t0)
        pair.setLinks(["url": "https://localhost:8443/", "plain_url": "http://localhost:8080/"])
    }

    mutating func run() -> String {
        let paths = (["/"] + scenario.resources.map { $0.path.replacingOccurrences(of: "*", with: "any") })
        for path in Array(NSOrderedSet(array: paths).array as! [String]).prefix(5) {
            conversation(path: path, proxy: false)
        }
        if scenario.proxy != nil {
            conversation(path: "127.0.0.1:8443", proxy: true)
            conversation(path: "http://127.0.0.1:8080/", proxy: true)
            leak()
        }
        now += 65
        conversation(path: "/", proxy: false)
        now += 3600
        conversation(path: "/", proxy: false)
        control()
        failures()
        return text
    }

    // MARK: - Conversations

    mutating func conversation(path: String, proxy: Bool) {
        newConnection()
        let method = proxy && !path.hasPrefix("http") ? "CONNECT" : "GET"
        let first = send(method, path, proxy: proxy)
        let header = proxy ? "Proxy-Authenticate" : "WWW-Authenticate"
        let users = proxy ? scenario.proxy?.users ?? [] : scenario.users
        for value in first.response.headers.values(header).prefix(4) {
            guard let challenges = try? AuthHeader.parseChallenges(value) else { continue }
            for challenge in challenges.prefix(3) {
                answer(challenge, method: method, path: path, users: Array(users.prefix(2)), proxy: proxy)
            }
        }
    }

    mutating func answer(_ challenge: AuthHeaderValue, method: String, path: String, users: [User], proxy: Bool) {
        let name = proxy ? "Proxy-Authorization" : "Authorization"
        for user in users {
            let password = user.knowsPassword ? user.password : "unknown"
            switch challenge.scheme.lowercased() {
            case "basic":
                for secret in [password, "wrong"] {
                    let token = Data("\(user.name):\(secret)".utf8).base64EncodedString()
                    send(method, path, [HeaderField(name, "Basic \(token)")], proxy: proxy)
                }
                send(method, path, [HeaderField(name, "Basic !!!")], proxy: proxy)
            case "digest":
                guard DigestAlgorithm(token: challenge[parameter: "algorithm"] ?? "MD5") != nil,
                      challenge[parameter: "realm"] != nil, challenge[parameter: "nonce"] != nil else { continue }
                let qop: DigestQOP? = (challenge[parameter: "qop"] ?? "").contains("auth") ? .auth : nil
                let uri = proxy && method == "CONNECT" ? path : path
                for (nc, secret) in [(1, password), (2, password), (3, "wrong")] {
                    let client = DigestClient(user: user.name, password: secret, nc: nc)
                    let value = client.authorization(for: challenge, method: method, uri: uri, qop: qop)
                    send(method, path, [HeaderField(name, value)], proxy: proxy)
                }
            case "ntlm", "negotiate":
                ntlm(scheme: challenge.scheme, user: user, password: password, method: method, path: path, proxy: proxy)
            default:
                send(method, path, [HeaderField(name, "\(challenge.scheme) abc")], proxy: proxy)
            }
        }
    }

    mutating func ntlm(scheme: String, user: User, password: String, method: String, path: String, proxy: Bool) {
        newConnection()
        let name = proxy ? "Proxy-Authorization" : "Authorization"
        let client = NTLMClient(user: user.name, password: password, domain: user.domain ?? "")
        let type1 = Data(client.negotiate()).base64EncodedString()
        let second = send(method, path, [HeaderField(name, "\(scheme) \(type1)")], proxy: proxy)
        let header = proxy ? "Proxy-Authenticate" : "WWW-Authenticate"
        guard let value = second.response.headers.values(header).first(where: { $0.hasPrefix(scheme + " ") }),
              let data = Data(base64Encoded: String(value.dropFirst(scheme.count + 1))) else { return }
        // A CHALLENGE inside SPNEGO, or a hostile one, is not read: the answer so far is the capture.
        let bytes = Array(data)
        guard bytes.count > 48, bytes.starts(with: NTLMMessage.signature) else { return }
        let length = Int(bytes[40]) | Int(bytes[41]) << 8, offset = Int(bytes[44]) | Int(bytes[45]) << 8
        guard offset + length <= bytes.count else { return }
        let (challenge, info) = NTLMClient.readChallenge(bytes)
        let type3 = client.authenticate(serverChallenge: challenge, targetInfo: info)
        send(method, path, [HeaderField(name, "\(scheme) \(Data(type3).base64EncodedString())")], proxy: proxy)
        pair.connectionClosed(connection)
    }

    /// The origin's credentials sent to the proxy, and a request with both headers.
    mutating func leak() {
        guard let user = scenario.users.first, user.knowsPassword else { return }
        newConnection()
        let token = Data("\(user.name):\(user.password)".utf8).base64EncodedString()
        send("GET", "http://127.0.0.1:8080/", [HeaderField("Proxy-Authorization", "Basic \(token)")], proxy: true)
        send("GET", "http://127.0.0.1:8080/", [HeaderField("Authorization", "Basic \(token)")], proxy: true)
    }

    mutating func control() {
        newConnection()
        send("GET", "/_authmock/users")
        if let user = scenario.users.first {
            send("POST", "/_authmock/users/\(user.name)", body: Array(#"{"password": "changed"}"#.utf8))
            send("POST", "/_authmock/users/\(user.name)", body: Array(#"{"enabled": false}"#.utf8))
            let token = Data("\(user.name):changed".utf8).base64EncodedString()
            send("GET", "/", [HeaderField("Authorization", "Basic \(token)")])
            send("POST", "/_authmock/users/\(user.name)", body: Array("{}".utf8))
        }
        send("POST", "/_authmock/users/nobody", body: Array(#"{"enabled": true}"#.utf8))
        send("GET", "/_authmock/proxy/users")
        send("GET", "/_authmock/tls")
        pair.setTLSDescription(Array(#"{"ca":"x"}"#.utf8))
        send("GET", "/_authmock/tls")
        send("POST", "/_authmock/tls/rotate?keep-key=false")
        send("GET", "/_authmock/tls/rotate")
        send("GET", "/_authmock/nothing")
        send("GET", "/_authmock/journal?since=\(max(0, pair.nextSeq - 4))")
        let page = send("GET", "/_authmock/", [HeaderField("Accept", "text/html")])
        text += "live page: \(page.response.body.count) bytes\n"
        send("POST", "/_authmock/reset")
        send("GET", "/")
    }

    mutating func failures() {
        newConnection()
        let info = ConnectionInfo(id: connection, exchange: 1, remote: "127.0.0.1:40000", httpProtocol: .http1, stream: nil)
        let partial = Request(method: "GET", target: "/", headers: [], body: [], connection: info)
        for hop in [Hop.origin, .proxy] {
            let refused = pair.reject(
                partial, connection: info, hop: hop, status: 431, verdict: .headersTooLarge, detail: "too large",
                close: true, now: now
            )
            render("reject \(hop.rawValue)", refused)
            let bare = pair.reject(nil, connection: info, hop: hop, status: 408, verdict: .headerTimeout, detail: "timeout",
                                   close: true, now: now)
            render("reject head \(hop.rawValue)", bare)
        }
        let h2 = ConnectionInfo(id: connection, exchange: 2, remote: "127.0.0.1:40000", httpProtocol: .h2, stream: 3)
        entry("h2 failure", pair.recordHTTP2Failure(
            partial, connection: h2, reset: "PROTOCOL_ERROR", goaway: nil, verdict: .http2Malformed, detail: "bad", now: now
        ))
        entry("tls", pair.recordTLSConnection(info, failure: "alert", requests: 0, now: now))
        entry("refused", pair.recordRefusedConnection(info, limit: 10, now: now))
        pair.connectionClosed(connection)
        text += "ntlm connections \(pair.ntlmConnections), nonces \(pair.rememberedNonces), next seq \(pair.nextSeq)\n"
        text += "users: \(pair.currentUsers.map { "\($0.name)=\($0.password)" }.joined(separator: ","))\n"
    }

    // MARK: - Sending and rendering

    mutating func newConnection() {
        connection += 1
        exchange = 0
    }

    @discardableResult
    mutating func send(
        _ method: String, _ target: String, _ headers: [HeaderField] = [], body: [UInt8] = [], proxy: Bool = false
    ) -> Exchange {
        exchange += 1
        let info = ConnectionInfo(id: connection, exchange: exchange, remote: "127.0.0.1:40000", httpProtocol: .http1, stream: nil)
        let request = Request(method: method, target: target, headers: headers, body: body, connection: info)
        let result = proxy ? pair.handleProxy(request, now: now) : pair.handle(request, now: now)
        let sent = headers.map { "\($0.name): \($0.value)" }.joined(separator: " | ")
        render("\(proxy ? "proxy " : "")\(method) \(target) [\(sent)]", result)
        return result
    }

    mutating func render(_ title: String, _ result: Exchange) {
        let response = result.response
        text += "> \(title)\n< \(response.status)"
        text += " close=\(response.closeConnection) chunked=\(response.chunked)"
        text += " fault=\(response.fault.map { "\($0)" } ?? "-") reset=\(response.streamReset.map { "\($0)" } ?? "-")"
        text += " hostile=\(response.hostile ?? "-") user=\(result.authenticatedUser ?? "-")\n"
        var previous: HeaderField?, repeats = 0
        for header in response.headers + [HeaderField("", "")] {
            if header == previous { repeats += 1; continue }
            if repeats > 0 { text += "< (the same \(repeats) more times)\n" }
            if !header.name.isEmpty { text += "< \(header.name): \(Self.cut(header.value))\n" }
            previous = header
            repeats = 0
        }
        let body = String(decoding: response.body.prefix(400), as: UTF8.self)
        text += "< body \(response.body.count): \(body.debugDescription)\n"
        for action in result.actions { text += "< action \(action)\n" }
        for entry in result.journalEntries { text += "< entry \(Self.cut(entry.jsonLine()))\n" }
    }

    /// A long value (a hostile challenge, its journal entry) as its start, its length and its hash: the
    /// capture stays small and still changes with any byte of the value.
    static func cut(_ value: String) -> String {
        guard value.utf8.count > 1_000 else { return value }
        let hash = SHA256.hash(data: Data(value.utf8)).hexString
        return "\(value.prefix(300))… (\(value.utf8.count) bytes, SHA-256 \(hash))"
    }

    mutating func entry(_ title: String, _ entry: JournalEntry) {
        text += "> \(title)\n< entry \(Self.cut(entry.jsonLine()))\n"
    }
}
