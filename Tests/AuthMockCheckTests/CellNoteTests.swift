import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// A profile's `cells:` entries, read strictly.
struct CellNoteTests {
    static let profile = """
        name: curl
        command: [curl, -sS]
        notes: curl 7.88.1 from Debian 12.
        cells:
          - case: digest.sha512-256
            verdict: fail
            why: "answers SHA-512-256 with a SHA-256 hash, as [curl#12897](https://github.com/curl/curl/pull/12897) says; `<b>` stays text"
            links: [https://github.com/curl/curl/pull/12897]
          - case: [redirect.other-host, redirect.other-port]
            verdict: non-strict
            why: |
              Keeps the credentials across the redirect.

              Second paragraph.
          - case: basic.challenge
            verdict: pass
            why: Passes, surprisingly.
        """

    @Test func entriesAreRead() throws {
        let profile = try ClientProfileLoader.load(yaml: Self.profile, file: "clients/curl.yaml")
        #expect(profile.cells.count == 3)
        let first = try #require(profile.cells.first)
        #expect(first.cases == ["digest.sha512-256"])
        #expect(first.verdict == .fail)
        #expect(first.links == ["https://github.com/curl/curl/pull/12897"])
        #expect(first.line == 6 && first.column == 14)
        #expect(profile.cellNote(for: "redirect.other-port")?.verdict == .nonStrict)
        #expect(profile.cellNote(for: "redirect.other-port")?.casePositions.map(\.line) == [9, 9])
        #expect(profile.cellNote(for: "redirect.other-port")?.why == "Keeps the credentials across the redirect.\n\nSecond paragraph.")
        #expect(profile.cellNote(for: "basic.challenge")?.verdict == .pass)
        #expect(profile.cellNote(for: "digest.md5") == nil)
    }

    /// Every mistake in an entry is refused where it stands, all at once.
    @Test func badEntriesArePositioned() {
        let broken = """
            name: curl
            command: [curl]
            cells:
              - case: digest.md5
                verdict: failed
                why: x
              - case: digest.*
                verdict: error
                why: x
              - case: digest.md5
                verdict: fail
                why: twice
                links: ["javascript:alert(1)", "https://ok.example/a b"]
              - case: digest.sha256
                verdict: pass
                because: typo
              - verdict: pass
                why: ""
            """
        do {
            _ = try ClientProfileLoader.load(yaml: broken, file: "clients/curl.yaml")
            Issue.record("a profile with broken cells: entries loaded")
        } catch {
            let messages = error.diagnostics.map(\.description)
            let expected = [
                "clients/curl.yaml:5:14: verdict 'failed' is not known — did you mean 'fail'?",
                "clients/curl.yaml:7:11: case 'digest.*' is not a case name",
                "clients/curl.yaml:8:14: verdict 'error' cannot be explained by a client's profile",
                "clients/curl.yaml:10:11: case 'digest.md5' is explained twice — keep one entry; the first is on line 4",
                "clients/curl.yaml:13:13: 'javascript:alert(1)' is not an http(s) URL",
                "clients/curl.yaml:13:36: 'https://ok.example/a b' is not an http(s) URL",
                "clients/curl.yaml:16:5: unknown key 'because' in a cells entry",
                "clients/curl.yaml:14:5: a cells entry has no 'why'",
                "clients/curl.yaml:17:5: a cells entry has no 'case'",
                "clients/curl.yaml:18:10: why must not be empty",
            ]
            for line in expected {
                #expect(messages.contains { $0.hasPrefix(line) }, "missing: \(line)\n\(messages.joined(separator: "\n"))")
            }
        }
    }
}
