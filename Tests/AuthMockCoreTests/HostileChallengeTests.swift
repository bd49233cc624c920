import Foundation
import Testing
@testable import AuthMockCore

/// Raw challenges (hostile values sent as written, in pieces and fields) and the NTLM `corrupt:` key: how
/// the loader reads and refuses them, what the engine sends, and what the journal keeps of it.
struct HostileChallengeTests {
    static func scenario(_ challenges: String, style: String = "separate") throws -> Scenario {
        try load("""
            version: 1
            name: hostile
            users: [{name: alice, password: wonderland}]
            challenge-style: \(style)
            challenges:
            \(challenges)
            """)
    }

    @Test func piecesAndFieldsLoad() throws {
        let scenario = try Self.scenario("""
              - raw: ['Basic realm="', {repeat: ", ", times: 3}, '"']
                fields: 2
              - raw: Newauth x
            """)
        #expect(scenario.challenges == [
            .raw(RawChallenge(pieces: [.text("Basic realm=\""), .repeated(", ", times: 3), .text("\"")], fields: 2)),
            .raw(RawChallenge(pieces: [.text("Newauth x")])),
        ])
        guard case .raw(let raw) = scenario.challenges[0] else { return }
        #expect(raw.value == "Basic realm=\", , , \"")
        #expect(raw.byteCount == raw.value.utf8.count)
        #expect(raw.summary == #"2 fields of 20 bytes: "Basic realm=\"" + ", " ×3 + "\"""#)
        #expect(scenario.challenges[0].scheme == "Basic")
        #expect(!scenario.challenges[0].isAccepted)
    }

    /// Each mistake where it stands, with what would be right.
    @Test func mistakesArePlaced() {
        func first(_ challenges: String) -> String? {
            diagnostics("version: 1\nname: x\nusers: [{name: a, password: b}]\nchallenges:\n\(challenges)\n").first
        }
        #expect(first("  - raw: \"Basic\\r\\nX-Injected: 1\"") == "bad.yaml:5:10: a piece contains a line break or control character — header values cannot carry them; use printable text")
        #expect(first("  - raw: [Basic, {repeat: a, times: 2000000}]") == "bad.yaml:5:37: times is 2000000, out of range — use a number from 1 to 1048576")
        #expect(first("  - raw: [{repeat: aaaa, times: 300000}]") == "bad.yaml:5:10: the raw challenge is 1200000 bytes, more than 1048576 — lower a `times:`; 1 MiB is beyond what any client accepts")
        #expect(first("  - raw: [{repeat: aaaa, times: 1000}]\n    fields: 5000") == "bad.yaml:6:13: 5000 fields of 4000 bytes are 20000000 bytes, more than 16777216 — send fewer fields or a shorter value")
        #expect(first("  - raw: ' Basic'") == "bad.yaml:5:10: the raw challenge starts with white space or is empty — start it with the scheme, e.g. 'Basic realm=…'")
        #expect(first("  - raw: []") == "bad.yaml:5:10: the raw challenge is an empty list — give a string, or a list of strings and {repeat: TEXT, times: N}")
        #expect(first("  - raw: [{repeat: a}]") == "bad.yaml:5:11: a repeated piece has no 'times' — add `times: …`")
        #expect(first("  - raw: Basic\n    fields: 0") == "bad.yaml:6:13: fields is 0, out of range — use a number from 1 to 10000")
        #expect(first("  - raw: Basic\n    feilds: 2")?.hasPrefix("bad.yaml:6:5: unknown key 'feilds'") == true)
        #expect(first("  - scheme: NTLM\n    corrupt: target-info-too-long")?.hasPrefix("bad.yaml:6:14: corrupt 'target-info-too-long' is not known") == true)
        #expect(first("  - scheme: NTLM\n    target-info: false\n    corrupt: target-info-past-end") == "bad.yaml:7:14: corrupt: target-info-past-end corrupts the target info, which `target-info: false` leaves out — remove target-info: false")
        #expect(first("  - scheme: Basic\n    corrupt: target-info-past-end")?.hasPrefix("bad.yaml:6:5: 'corrupt' does not apply to Basic challenges") == true)
    }

    /// The 401 carries the value byte for byte, once per field, beside the real challenges; the journal
    /// keeps 32 fields of at most 512 bytes and says in `hostile` what all of it was.
    @Test func engineSendsEveryFieldAndJournalsASummary() throws {
        var h = Harness(try Self.scenario("""
              - scheme: Basic
              - raw: ['Digest nonce="', {repeat: n, times: 2000}, '"']
                fields: 40
            """))
        let exchange = h.send()
        let fields = exchange.response.headers.values("WWW-Authenticate")
        #expect(fields.count == 41)
        #expect(fields[0] == "Basic realm=\"authmock\"")
        #expect(fields[1] == "Digest nonce=\"" + String(repeating: "n", count: 2000) + "\"")
        #expect(Set(fields.dropFirst()).count == 1)
        let entry = try #require(exchange.entry)
        #expect(entry.hostile == #"raw challenge, 40 fields of 2015 bytes: "Digest nonce=\"" + "n" ×2000 + "\"""#)
        let journaled = try #require(entry.challenges)
        #expect(journaled.count == 33)
        #expect(journaled[0] == "Basic realm=\"authmock\"")
        #expect(journaled[1] == "Digest nonce=\"" + String(repeating: "n", count: 242) + "… (2015 bytes)")
        #expect(journaled.last == "… 9 more fields")
        // Basic still works beside it; the answer that grants carries no challenge and is not hostile.
        let granted = h.send(authorization: basic("alice", "wonderland"))
        #expect(granted.status == 200)
        #expect(granted.entry?.hostile == nil)
    }

    /// In one field (challenge-style: combined) the values are joined with commas; a raw challenge is never
    /// accepted, whatever the client answers.
    @Test func combinedAndNeverAccepted() throws {
        var h = Harness(try Self.scenario("  - raw: 'Basic realm=\"x\"'\n    fields: 3", style: "combined"))
        #expect(h.send().response.headers.values("WWW-Authenticate") == ["Basic realm=\"x\", Basic realm=\"x\", Basic realm=\"x\""])
        let answered = h.send(authorization: basic("alice", "wonderland"))
        #expect(answered.status == 401)
        #expect(answered.entry?.hostile != nil)
    }
}

/// Hostile sizes on a real Digest challenge (`realm:` in pieces, `nonce.size`): a client that echoes both
/// whole is accepted; one that cuts them (curl keeps 1,023 characters) sends a nonce the server never issued.
struct HugeDigestTests {
    static func harness() throws -> Harness {
        Harness(try load("""
            version: 1
            name: huge
            realm: ['huge-', {repeat: r, times: 20000}]
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Digest, algorithm: SHA-256}]
            nonce: {size: 20000}
            """))
    }

    @Test func wholeEchoIsAcceptedACutOneIsNot() throws {
        var h = try Self.harness()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let nonce = try #require(challenge[parameter: "nonce"])
        #expect(nonce.utf8.count == 20000)
        #expect(challenge[parameter: "realm"] == "huge-" + String(repeating: "r", count: 20000))
        let alice = DigestClient(user: "alice", password: "wonderland")
        #expect(h.send(authorization: alice.authorization(for: challenge)).verdict == .digestOK)

        var cut = challenge
        cut.parameters = cut.parameters.map { $0.name == "nonce" ? AuthParameter(name: "nonce", value: String(nonce.prefix(1023)), quoted: true) : $0 }
        let refused = h.send(authorization: alice.authorization(for: cut))
        #expect(refused.verdict == .digestUnknownNonce)
        #expect(refused.entry?.detail == "the nonce was not issued by this server; it has 1023 characters, the server's have 20000: cut?")

        var realmCut = try #require(h.send().digestChallenge("SHA-256"))
        realmCut.parameters = realmCut.parameters.map { $0.name == "realm" ? AuthParameter(name: "realm", value: String($0.value.prefix(1023)), quoted: true) : $0 }
        let wrongRealm = h.send(authorization: alice.authorization(for: realmCut))
        #expect(wrongRealm.verdict == .digestWrongRealm)
        #expect(wrongRealm.entry?.detail == "the realm has 1023 bytes, this scenario's has 20005; they differ from byte 1023")
    }

    /// The padding is fixed, so a nonce of the right length with other padding was not issued either.
    @Test func paddingIsChecked() throws {
        var h = try Self.harness()
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        let nonce = try #require(challenge[parameter: "nonce"])
        var forged = challenge
        forged.parameters = forged.parameters.map { $0.name == "nonce" ? AuthParameter(name: "nonce", value: String(nonce.dropLast()) + "!", quoted: true) : $0 }
        #expect(h.send(authorization: DigestClient(user: "alice", password: "wonderland").authorization(for: forged)).verdict == .digestUnknownNonce)
    }

    @Test func sizeMistakes() {
        #expect(diagnostics("version: 1\nname: x\nnonce: {size: 20}\n").first == "bad.yaml:3:15: nonce.size is 20, out of range — use a number from 39 to 1048576")
        #expect(diagnostics("version: 1\nname: x\nrealm: [a, \"b\\n\"]\n").first == "bad.yaml:3:12: a piece contains a line break or control character — header values cannot carry them; use printable text")
    }
}

/// `schemes:` on a resource: it offers, and accepts, only those of the scenario's challenges.
struct ResourceSchemesTests {
    static func harness() throws -> Harness {
        Harness(try load("""
            version: 1
            name: scoped
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Digest}, {scheme: Basic}, {custom: 'Newauth realm="x"'}]
            resources:
              - {path: /a/*, schemes: [basic]}
              - {path: /other, schemes: [Digest]}
              - {path: /, protected: true}
            """))
    }

    @Test func eachResourceOffersItsSchemes() throws {
        var h = try Self.harness()
        #expect(h.send("GET", "/a/b").response.headers.values("WWW-Authenticate") == ["Basic realm=\"authmock\""])
        #expect(h.send("GET", "/other").challenges.map(\.scheme) == ["Digest"])
        #expect(h.send("GET", "/").challenges.map(\.scheme) == ["Digest", "Basic", "Newauth"])
        #expect(h.send(authorization: basic("alice", "wonderland"), "GET", "/a/b").verdict == .basicOK)
        let refused = h.send(authorization: basic("alice", "wonderland"), "GET", "/other")
        #expect(refused.status == 401)
        #expect(refused.verdict == .schemeNotOffered)
        #expect(refused.entry?.detail == "the client used 'Basic', which /other does not accept (it offers Digest)")
        #expect(refused.challenges.map(\.scheme) == ["Digest"])
    }

    /// A raw challenge goes on every 401 but those of a resource naming its schemes, and only a 401 that
    /// carries it is journaled hostile.
    @Test func rawChallengesStayOffAResourceThatNamesItsSchemes() throws {
        var h = Harness(try load("""
            version: 1
            name: scoped
            users: [{name: alice, password: wonderland}]
            challenges: [{scheme: Basic}, {raw: 'Newauth ,,,,'}]
            resources: [{path: /basic, schemes: [Basic]}, {path: /}]
            """))
        let scoped = h.send("GET", "/basic")
        #expect(scoped.response.headers.values("WWW-Authenticate") == ["Basic realm=\"authmock\""])
        #expect(scoped.entry?.hostile == nil)
        let everything = h.send("GET", "/")
        #expect(everything.response.headers.values("WWW-Authenticate") == ["Basic realm=\"authmock\"", "Newauth ,,,,"])
        #expect(everything.entry?.hostile == #"raw challenge, 1 field of 12 bytes: "Newauth ,,,,""#)
    }

    @Test func mistakesArePlaced() {
        let head = "version: 1\nname: x\nusers: [{name: a, password: b}]\nchallenges: [{scheme: Basic}]\nresources:\n"
        #expect(diagnostics(head + "  - {path: /, schemes: [Digest]}\n").first == "bad.yaml:6:25: scheme 'Digest' is not one of the scenario's challenges — name schemes the scenario's challenges offer: Basic")
        #expect(diagnostics(head + "  - {path: /, protected: false, schemes: [Basic]}\n").first == "bad.yaml:6:42: schemes has no effect on a resource with protected: false — remove it, or protect the resource")
        #expect(diagnostics(head + "  - {path: /, schemes: []}\n").first == "bad.yaml:6:24: schemes is an empty list — name schemes the scenario's challenges offer: Basic")
    }
}
