import Testing
import Foundation
@testable import AuthMockCore

/// Digest credentials wrong in two ways get the verdict of the check that runs first: syntax, then the
/// challenge answered, then the user, then the response, and only then the nonce's freshness.
struct DigestCheckOrderTests {
    /// A request wrong in two ways, and the verdict of the earlier check.
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var overrides: [String: String] = [:]
        var omitting: Set<String> = []
        var qop: DigestQOP? = .auth
        var user = "alice"
        var password = "wonderland"
        var userhash = false
        var unquotedUsername = false
        var target = "/"
        var uri = "/"
        var verdict: Verdict
        var detail: String

        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "an unquoted username with a nonce missing: the missing parameter", omitting: ["nonce"], unquotedUsername: true, verdict: .digestMalformed, detail: "missing parameter 'nonce'"),
        Case(name: "a bad qop with the username missing: the username", overrides: ["qop": "bogus"], omitting: ["username"], verdict: .digestMalformed, detail: "missing parameter 'username'"),
        Case(name: "another uri and another realm: the uri (400)", overrides: ["realm": "elsewhere"], target: "/search", uri: "/", verdict: .digestURIMismatch, detail: "differs from the request target"),
        Case(name: "another realm and an algorithm not offered: the realm", overrides: ["realm": "elsewhere", "algorithm": "SHA-512-256"], verdict: .digestWrongRealm, detail: "is not this scenario's realm"),
        Case(name: "an algorithm not offered and a forged nonce: the algorithm", overrides: ["algorithm": "SHA-512-256", "nonce": "forged"], verdict: .digestAlgorithmNotOffered, detail: "was not offered"),
        Case(name: "a forged nonce and no qop: the nonce", overrides: ["nonce": "forged"], qop: nil, verdict: .digestUnknownNonce, detail: "not issued by this server"),
        Case(name: "no qop and another opaque: the qop", overrides: ["opaque": "other"], qop: nil, verdict: .digestQOPMissing, detail: "the client sent none"),
        Case(name: "another opaque and an unknown user: the opaque", overrides: ["opaque": "other"], user: "mallory", verdict: .digestOpaqueMismatch, detail: "does not echo"),
        Case(name: "a userhash not offered and an unknown user: the userhash", user: "mallory", userhash: true, verdict: .digestUserhashNotOffered, detail: "did not offer userhash"),
        Case(name: "an unknown user and a wrong password: the user", user: "mallory", password: "nope", verdict: .digestUnknownUser, detail: "no user named 'mallory'"),
        Case(name: "a wrong password and a replayed nc: the password", password: "nope", verdict: .digestBadResponse, detail: "does not match alice's password"),
    ]

    /// After one correct use of the nonce, each request wrong in two ways gets the verdict and detail of the
    /// check that runs first.
    @Test(arguments: cases)
    func earlierCheckDecides(_ c: Case) throws {
        var h = Harness(try loadShipped("digest.yaml"))
        let challenge = try #require(h.send("GET", c.target).digestChallenge("SHA-256"))
        // A first correct use, so that a replayed nc would be caught if the password check came later.
        #expect(h.send(authorization: DigestClient(user: "alice", password: "wonderland").authorization(for: challenge)).verdict == .digestOK)
        var header = DigestClient(user: c.user, password: c.password)
            .authorization(for: challenge, uri: c.uri, qop: c.qop, userhash: c.userhash, overrides: c.overrides, omitting: c.omitting)
        if c.unquotedUsername { header = header.replacingOccurrences(of: "username=\"\(c.user)\"", with: "username=\(c.user)") }
        let answer = h.send(authorization: header, "GET", c.target)
        #expect(answer.verdict == c.verdict)
        #expect(answer.entry?.detail?.contains(c.detail) == true, "\(answer.entry?.detail ?? "no detail")")
    }

    /// digest.yaml's SHA-256 nonce, answered correctly its five allowed times (nc 1 to 5).
    static func nonceUsedUp() throws -> (Harness, AuthHeaderValue, DigestClient) {
        var h = Harness(try loadShipped("digest.yaml"))
        let challenge = try #require(h.send().digestChallenge("SHA-256"))
        var client = DigestClient(user: "alice", password: "wonderland")
        for nc in 1...5 {
            client.nc = nc
            #expect(h.send(authorization: client.authorization(for: challenge)).verdict == .digestOK)
        }
        return (h, challenge, client)
    }

    /// A correct response on a nonce both too old and used up is told the lifetime first.
    @Test func lifetimeIsCheckedBeforeUses() throws {
        var (h, challenge, client) = try Self.nonceUsedUp()
        client.nc = 6
        h.now = t0.addingTimeInterval(31)
        let answer = h.send(authorization: client.authorization(for: challenge))
        #expect(answer.verdict == .digestStaleNonce)
        #expect(answer.entry?.detail?.contains("its lifetime is 30 s") == true)
    }

    /// A correct response on a used-up nonce with a replayed nc is told the nonce is used up, and stale.
    @Test func usesAreCheckedBeforeTheNC() throws {
        var (h, challenge, client) = try Self.nonceUsedUp()
        let answer = h.send(authorization: client.authorization(for: challenge))
        #expect(answer.verdict == .digestStaleNonce)
        #expect(answer.challenges.allSatisfy { $0[parameter: "stale"] == "true" })
    }
}
