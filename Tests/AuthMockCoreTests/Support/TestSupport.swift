import AuthMockCore
import Foundation

/// The repository's root, found from this file's path (tests read the shipped scenarios).
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

func loadShipped(_ name: String) throws -> Scenario {
    let url = repositoryRoot.appendingPathComponent("scenarios/\(name)")
    return try ScenarioLoader.load(yaml: String(contentsOf: url, encoding: .utf8), file: "scenarios/\(name)", files: .fileSystem)
}

/// A scenario's text; it names no file that exists (the core's tests read none).
func load(_ yaml: String) throws -> Scenario {
    try ScenarioLoader.load(yaml: yaml, file: "test.yaml", files: .inMemory([:]))
}

/// A fixed instant, so journal times and nonce ages are exact.
let t0 = Date(timeIntervalSince1970: 1_800_000_000)

/// An engine under test with a clock the test moves and a seeded random source.
struct Harness {
    var engine: Engine
    var random = RandomSource.seeded(42)
    var now = t0
    var connection: UInt64 = 1
    var exchange = 0

    init(_ scenario: Scenario, journalCapacity: Int = 10_000) {
        var random = RandomSource.seeded(7)
        engine = Engine(scenario: scenario, configuration: .init(journalCapacity: journalCapacity), random: &random)
    }

    @discardableResult
    mutating func send(
        _ method: String = "GET", _ target: String = "/", headers: [HeaderField] = [], body: [UInt8] = []
    ) -> Exchange {
        exchange += 1
        let request = Request(
            method: method, target: target, headers: headers, body: body,
            connection: ConnectionInfo(id: connection, exchange: exchange, remote: "127.0.0.1:40000")
        )
        return engine.handle(request, now: now, random: &random)
    }

    @discardableResult
    mutating func send(authorization: String, _ method: String = "GET", _ target: String = "/", body: [UInt8] = []) -> Exchange {
        send(method, target, headers: [HeaderField("Authorization", authorization)], body: body)
    }
}

extension Exchange {
    var status: Int { response.status }
    var verdict: Verdict? { entry?.verdict }
    var challenges: [AuthHeaderValue] {
        response.headers.values("WWW-Authenticate").flatMap { (try? AuthHeader.parseChallenges($0)) ?? [] }
    }
    func digestChallenge(_ algorithm: String) -> AuthHeaderValue? {
        challenges.first { $0.scheme == "Digest" && ($0[parameter: "algorithm"] ?? "MD5") == algorithm }
    }
}

/// A minimal Digest client, the way a correct one computes its answer (RFC 7616 §3.4).
struct DigestClient {
    var user: String
    var password: String
    var cnonce = "0a4f113b"
    var nc = 1

    func authorization(
        for challenge: AuthHeaderValue, method: String = "GET", uri: String = "/", body: [UInt8] = [],
        qop: DigestQOP? = .auth, userhash: Bool = false, overrides: [String: String] = [:],
        omitting: Set<String> = []
    ) -> String {
        let algorithm = DigestAlgorithm(token: challenge[parameter: "algorithm"] ?? "MD5")!
        let realm = challenge[parameter: "realm"]!
        let nonce = challenge[parameter: "nonce"]!
        let ncText = String(format: "%08x", nc)
        let inputs = DigestInputs(
            algorithm: algorithm, username: user, realm: realm, password: password, method: method, uri: uri, nonce: nonce,
            qop: qop, nc: ncText, cnonce: cnonce, body: body
        )
        var parts: [(String, String, Bool)] = [
            ("username", userhash ? algorithm.userhash(username: user, realm: realm) : user, true),
            ("realm", realm, true), ("uri", uri, true), ("algorithm", algorithm.token, false), ("nonce", nonce, true),
        ]
        if let qop { parts += [("nc", ncText, false), ("cnonce", cnonce, true), ("qop", qop.rawValue, false)] }
        parts.append(("response", inputs.response, true))
        if let opaque = challenge[parameter: "opaque"] { parts.append(("opaque", opaque, true)) }
        if userhash { parts.append(("userhash", "true", false)) }
        for (index, part) in parts.enumerated() {
            if let replacement = overrides[part.0] { parts[index].1 = replacement }
        }
        parts.removeAll { omitting.contains($0.0) }
        return "Digest " + parts.map { "\($0.0)=\($0.2 ? AuthHeader.quote($0.1) : $0.1)" }.joined(separator: ", ")
    }
}

func basic(_ user: String, _ password: String) -> String {
    "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
}

/// The diagnostics a scenario text produces (empty when it loads), as `file:line:column: …` lines.
func diagnostics(file: String = "bad.yaml", _ yaml: String) -> [String] {
    do {
        _ = try ScenarioLoader.load(yaml: yaml, file: file, files: .inMemory([:]))
        return []
    } catch {
        return error.diagnostics.map(\.description)
    }
}
