import AuthMockCore
import Foundation

// Shared by the test targets (SwiftPM test targets cannot share source files): an engine driven by hand,
// and a correct Digest client to answer its challenges.

/// A fixed instant, so journal times and nonce ages are exact.
public let t0 = Date(timeIntervalSince1970: 1_800_000_000)

/// An engine under test with a clock the test moves and a seeded random source, inside an ``EnginePair``
/// (no proxy) that owns its journal and routes `/_authmock/…` to the control plane, as the server does.
public struct Harness {
    public var pair: EnginePair
    public var now = t0
    public var connection: UInt64 = 1
    public var exchange = 0
    /// Requests go as HTTP/2 streams (odd ids from 1, as a client opens them) when `.h2`.
    public var httpProtocol = HTTPProtocol.http1

    /// The origin's engine; set it back after changing it (`h.engine.reset()`).
    public var engine: Engine {
        get { pair.origin }
        set { pair.origin = newValue }
    }

    /// The journal of the exchanges so far.
    public var journal: Journal { pair.journal }

    public init(_ scenario: Scenario, journalCapacity: Int = 10_000) {
        var random = RandomSource.seeded(7)
        let engine = Engine(scenario: scenario, random: &random)
        pair = EnginePair(origin: engine, random: .seeded(42), journalCapacity: journalCapacity)
    }

    @discardableResult
    public mutating func send(
        _ method: String = "GET", _ target: String = "/", headers: [HeaderField] = [], body: [UInt8] = []
    ) -> Exchange {
        exchange += 1
        let request = Request(
            method: method, target: target, headers: headers, body: body,
            connection: ConnectionInfo(
                id: connection, exchange: exchange, remote: "127.0.0.1:40000", httpProtocol: httpProtocol,
                stream: httpProtocol == .h2 ? 2 * exchange - 1 : nil
            )
        )
        return pair.handle(request, now: now)
    }

    /// Changes a user as the timeline or the control endpoint would, journaled.
    @discardableResult
    public mutating func changeUser(_ name: String, _ action: TimelineStep.Action) -> JournalEntry? {
        pair.changeUser(name, action, reason: "test", now: now)
    }

    @discardableResult
    public mutating func send(authorization: String, _ method: String = "GET", _ target: String = "/", body: [UInt8] = []) -> Exchange {
        send(method, target, headers: [HeaderField("Authorization", authorization)], body: body)
    }
}

extension Exchange {
    public var status: Int { response.status }
    public var verdict: Verdict? { entry?.verdict }
    public var challenges: [AuthHeaderValue] {
        response.headers.values("WWW-Authenticate").flatMap { (try? AuthHeader.parseChallenges($0)) ?? [] }
    }
    public func digestChallenge(_ algorithm: String) -> AuthHeaderValue? {
        challenges.first { $0.scheme == "Digest" && ($0[parameter: "algorithm"] ?? "MD5") == algorithm }
    }
}

/// A minimal Digest client, the way a correct one computes its answer (RFC 7616 §3.4).
public struct DigestClient {
    public var user: String
    public var password: String
    public var cnonce = "0a4f113b"
    public var nc = 1

    public init(user: String, password: String, cnonce: String = "0a4f113b", nc: Int = 1) {
        self.user = user
        self.password = password
        self.cnonce = cnonce
        self.nc = nc
    }

    public func authorization(
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

public func basic(_ user: String, _ password: String) -> String {
    "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
}
