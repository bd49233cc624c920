@testable import AuthMockServer
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// Password changes seen through curl: the timeline and the control endpoint.
@Suite(.serialized)
struct PasswordChangeCurlTests {
    /// After the timeline changes alice's password, curl with the old one fails; the journal counts its
    /// attempts with the dead password (curl tries it once per run: it does not loop).
    @Test func timelineChange() async throws {
        try await withServer(try shipped("password-change.yaml")) { server in
            let first = try await curl(["--digest", "-u", "alice:wonderland", server.url])
            #expect(first.status == 200)
            for _ in 0..<3 {
                let dead = try await curl(["--digest", "-u", "alice:wonderland", server.url])
                #expect(dead.status == 401)
            }
            let journal = server.journal
            #expect(journal.filter { $0.verdict == .userPasswordChanged }.count == 1)
            #expect(journal.filter { $0.verdict == .credentialStalePassword }.count == 3, "one dead-password attempt per curl run")
            let renewed = try await curl(["--digest", "-u", "alice:looking-glass", server.url])
            #expect(renewed.status == 200)
        }
    }

    /// The control endpoint changes a password mid-run.
    @Test func controlChange() async throws {
        try await withServer(try shipped("password-change.yaml")) { server in
            let before = try await curl(["--basic", "-u", "bob:builder", server.url])
            #expect(before.status == 200)
            let change = try await curl(["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"password": "rebuilt"}"#, server.url + "_authmock/users/bob"])
            #expect(change.status == 200)
            #expect(change.body.contains(#""password":"rebuilt""#))
            let old = try await curl(["--basic", "-u", "bob:builder", server.url])
            #expect(old.status == 401)
            #expect(server.journal.last?.verdict == .credentialStalePassword)
            let new = try await curl(["--basic", "-u", "bob:rebuilt", server.url])
            #expect(new.status == 200)
        }
    }
}
