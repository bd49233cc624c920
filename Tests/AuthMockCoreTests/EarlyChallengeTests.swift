import Foundation
import Testing
@testable import AuthMockCore

/// `unauthorized.before-body`: which requests with `Expect: 100-continue` are answered before their body, and
/// whether the connection stays open after.
struct EarlyChallengeTests {
    func engine(_ beforeBody: String?) throws -> Engine {
        let option = beforeBody.map { "unauthorized: {before-body: \($0)}\n" } ?? ""
        var random = RandomSource.seeded(1)
        let scenario = try load(
            "version: 1\nname: x\nusers: [{name: alice, password: wonderland}]\nchallenges: [{scheme: NTLM}]\n" + option
        )
        return Engine(scenario: scenario, random: &random)
    }

    func request(_ authorization: String?) -> Request {
        Request(method: "PUT", target: "/", headers: authorization.map { [HeaderField("Authorization", $0)] } ?? [])
    }

    static let negotiate = "NTLM " + Data("NTLMSSP\0".utf8 + [1, 0, 0, 0, 7, 0x82, 0x88, 0] + [UInt8](repeating: 0, count: 16))
        .base64EncodedString()
    static let authenticate = "NTLM " + Data("NTLMSSP\0".utf8 + [3, 0, 0, 0] + [UInt8](repeating: 0, count: 56))
        .base64EncodedString()

    /// Without credentials, always; an NTLM NEGOTIATE only with keep-open; an AUTHENTICATE never (its body is
    /// the one that counts).
    @Test func whichRequestsAreAnsweredBeforeTheirBody() throws {
        let closing = try engine(nil)
        #expect(closing.challengesBeforeBody(request(nil)))
        #expect(!closing.challengesBeforeBody(request(Self.negotiate)))
        #expect(!closing.keepsConnectionAfterEarlyChallenge)

        let open = try engine("keep-open")
        #expect(open.challengesBeforeBody(request(nil)))
        #expect(open.challengesBeforeBody(request(Self.negotiate)))
        #expect(!open.challengesBeforeBody(request(Self.authenticate)))
        #expect(!open.challengesBeforeBody(request("NTLM !!!")))
        #expect(open.keepsConnectionAfterEarlyChallenge)

        let continuing = try engine("continue")
        #expect(!continuing.challengesBeforeBody(request(nil)), "100 Continue, and the 401 after the body")
        #expect(!continuing.challengesBeforeBody(request(Self.negotiate)))
        #expect(!continuing.keepsConnectionAfterEarlyChallenge)
    }

    @Test func unknownValueIsRefusedWithItsPlace() {
        let problems = diagnostics(
            "version: 1\nname: x\nusers: [{name: a, password: b}]\nchallenges: [{scheme: Basic}]\n"
                + "unauthorized: {before-body: later}\n"
        )
        #expect(problems.first?.hasPrefix("bad.yaml:5:29: unauthorized.before-body 'later' is not known") == true, "\(problems)")
    }
}
