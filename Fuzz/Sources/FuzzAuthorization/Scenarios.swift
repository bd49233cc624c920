import AuthMockCore
import FuzzSupport
import Foundation

// The scenarios the inputs of FuzzAuthorization.swift meet: three engines, each after its first 401 or 407,
// and the journal each of them appends to.

// MARK: - Scenarios

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

/// Passwords of the users every scenario below has (for `{response}`).
let passwords = ["alice": "wonderland", "bäcker": "pässwört"]

/// Every scheme at once, with the options that take the most branches: Basic with charset, Digest with
/// userhash and opaque, auth-int, a fixed NTLM challenge, Negotiate; alice's password changes after her
/// first success (old-password verdicts).
let originYAML = """
    version: 1
    name: fuzz-origin
    realm: fuzz@example.org
    users:
      - name: alice
        password: wonderland
        domain: EXAMPLE
      - name: bäcker
        password: pässwört
    challenges:
      - scheme: Basic
        charset: UTF-8
      - scheme: Digest
        algorithm: SHA-256
        qop: auth
        opaque: true
        userhash: true
      - scheme: Digest
        algorithm: MD5
        qop: [auth, auth-int]
      - scheme: NTLM
        domain: EXAMPLE
        server-challenge: 0123456789abcdef
      - scheme: Negotiate
        domain: EXAMPLE
    timeline:
      - after-successes: 1
        user: alice
        password: changed
    """

/// The older and stricter options: Basic without charset, RFC 2069 Digest (no qop), a -sess algorithm,
/// nonces that are stale at first use or after one use or 30 s, NTLMv2 only without target info, one
/// combined challenge field, and alice locked at the second request.
let legacyYAML = """
    version: 1
    name: fuzz-legacy
    users:
      - name: alice
        password: wonderland
      - name: bäcker
        password: pässwört
    challenges:
      - scheme: Basic
      - scheme: Digest
        qop: none
        opaque: fixed-opaque
      - scheme: Digest
        algorithm: SHA-512-256-sess
        qop: auth-int
      - scheme: NTLM
        allow-v1: false
        target-info: false
    challenge-style: combined
    nonce:
      max-uses: 1
      stale-first: 1
      lifetime: 30s
      strict-nc: true
    timeline:
      - at-request: 2
        user: alice
        lock: true
    """

/// A forward proxy (407, Proxy-Authorization) with Basic, Digest and NTLM.
let proxyYAML = """
    version: 1
    name: fuzz-proxy
    users: []
    challenges: []
    resources:
      - path: /
        protected: false
    proxy:
      users:
        - name: alice
          password: wonderland
          domain: EXAMPLE
        - name: bäcker
          password: pässwört
      challenges:
        - scheme: Basic
        - scheme: Digest
          algorithm: SHA-256
          qop: auth
        - scheme: NTLM
          domain: EXAMPLE
    """

/// An engine after its first (unauthenticated) request, with the Digest challenges it issued.
struct Prepared: Sendable {
    var engine: JournaledEngine
    var realm: String
    /// The Digest challenges of the 401/407, in order: algorithm token (lower-case), nonce, opaque.
    var digest: [(algorithm: String, nonce: String, opaque: String?)]
    var target: String
    var method: String

    var hop: Hop { engine.hop }

    init(_ yaml: String, hop: Hop = .origin, method: String = "GET", target: String = "/") {
        let loaded: Scenario
        do {
            loaded = try ScenarioLoader.load(yaml: yaml, file: "fuzz.yaml", files: ScenarioFileReader.inMemory([:]))
        } catch {
            fatalError("a fuzz scenario does not load: \(error)")
        }
        let scenario = hop == .proxy ? loaded.proxyScenario! : loaded
        var random = RandomSource.seeded(7)
        engine = JournaledEngine(
            Engine(scenario: scenario, configuration: .init(hop: hop), random: &random), capacity: 1000
        )
        realm = scenario.realm
        self.method = method
        self.target = target
        digest = []
        let first = send(
            &engine, value: nil, hop: hop, method: method, target: target, connection: 1, exchange: 1, now: t0
        )
        precondition(first.response.status == hop.challengeStatus, "the first request was not challenged")
        for value in first.response.headers.values(hop.challengeHeader) {
            guard let challenges = try? AuthHeader.parseChallenges(value) else { continue }
            for challenge in challenges where challenge.scheme == "Digest" {
                digest.append((
                    (challenge[parameter: "algorithm"] ?? "MD5").lowercased(), challenge[parameter: "nonce"]!,
                    challenge[parameter: "opaque"]
                ))
            }
        }
    }

    /// Fills in the Digest placeholders of a header value (see the top of FuzzAuthorization.swift).
    func fillDigestPlaceholders(_ value: String) -> String {
        guard value.contains("{"), !digest.isEmpty else { return value }
        var text = value
        let algorithmToken = (try? AuthHeader.parseCredentials(text))?[parameter: "algorithm"] ?? "MD5"
        let issued = digest.first { $0.algorithm == algorithmToken.lowercased() } ?? digest[0]
        let algorithm = DigestAlgorithm(token: algorithmToken) ?? .md5
        text = text.replacingOccurrences(of: "{realm}", with: realm)
        text = text.replacingOccurrences(of: "{nonce}", with: issued.nonce)
        text = text.replacingOccurrences(of: "{opaque}", with: issued.opaque ?? "")
        text = text.replacingOccurrences(of: "{userhash}", with: algorithm.userhash(username: "alice", realm: realm))
        guard text.contains("{response}"), let credentials = try? AuthHeader.parseCredentials(text) else { return text }
        let userhash = credentials[parameter: "userhash"]?.lowercased() == "true"
        let user = userhash ? "alice" : credentials[parameter: "username"] ?? "alice"
        let inputs = DigestInputs(
            algorithm: algorithm, username: user, realm: credentials[parameter: "realm"] ?? realm,
            password: passwords[user] ?? "wonderland", method: method, uri: credentials[parameter: "uri"] ?? target,
            nonce: credentials[parameter: "nonce"] ?? issued.nonce,
            qop: credentials[parameter: "qop"].flatMap { DigestQOP(rawValue: $0.lowercased()) },
            nc: credentials[parameter: "nc"] ?? "", cnonce: credentials[parameter: "cnonce"] ?? ""
        )
        return text.replacingOccurrences(of: "{response}", with: inputs.response)
    }
}

/// Two origins and a proxy (absolute-form), each after its first 401/407.
let engines: [Prepared] = [
    Prepared(originYAML),
    Prepared(legacyYAML),
    Prepared(proxyYAML, hop: .proxy, target: "http://127.0.0.1:8080/"),
]
