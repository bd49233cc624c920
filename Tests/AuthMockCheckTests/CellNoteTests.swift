import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// A profile's `cells:` entries: read strictly, checked against the run by `authmock matrix` (a
/// contradiction is reported where the entry stands and fails the command), and shown on their cells in
/// the Markdown and HTML reports.
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

    static func suite(_ verdicts: [(String, CaseVerdict)]) -> SuiteReport {
        SuiteReport(
            client: "curl", version: "curl 7.88.1", authmock: "test", started: "",
            cases: verdicts.map { CaseReport(id: $0.0, title: "the \($0.0) case", verdict: $0.1, findings: $0.1 == .pass ? [] : ["it did \($0.0)"]) }
        )
    }

    /// The run today: one entry agrees, one contradicts (redirect.other-port passes now), one cell is
    /// unexplained.
    static let run = suite([
        ("basic.challenge", .pass), ("digest.sha512-256", .fail), ("digest.stale-loop", .fail), ("redirect.other-host", .nonStrict),
        ("redirect.other-port", .pass), ("tls.expired", .skip),
    ])

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

    /// An entry whose verdict is not the run's is a contradiction, at the entry's verdict; an entry naming
    /// no case of the suite too; a non-pass cell without an entry is a warning.
    @Test func checkFindsContradictionsAndUnexplainedCells() throws {
        var profile = try ClientProfileLoader.load(yaml: Self.profile, file: "clients/curl.yaml")
        let known = Self.run.cases.map(\.id) + ["digest.md5"]
        let result = CellNoteCheck.check(profile, against: Self.run, file: "clients/curl.yaml", known: known)
        #expect(result.contradictions.map(\.description) == [
            "clients/curl.yaml:10:14: redirect.other-port is pass in the run, the note says non-strict — update the entry's verdict and why to what the client does now (or remove the entry)"
        ])
        #expect(result.unexplained.map(\.id) == ["digest.stale-loop"])
        #expect(result.warnings(file: "clients/curl.yaml") == ["clients/curl.yaml: warning: digest.stale-loop is fail in the run and no `cells:` entry explains it"])

        profile.cells[0].cases = ["digest.md55"]
        let unknown = CellNoteCheck.check(profile, against: Self.run, file: "clients/curl.yaml", known: known)
        #expect(unknown.contradictions.first?.description == "clients/curl.yaml:5:11: no case 'digest.md55' in the suite — did you mean 'digest.md5'?")
        // Without the suite only the run's cases are checked: a case the run did not select is no contradiction.
        #expect(CellNoteCheck.check(profile, against: Self.run, file: "f", known: nil).contradictions.count == 1)
    }

    /// The Markdown links each explained cell to its explanation under the table, which shows why and the
    /// links as autolinks; a contradicting entry shows no explanation; unexplained cells are listed.
    @Test func markdownShowsEachExplanationOnItsCell() throws {
        let profile = try ClientProfileLoader.load(yaml: Self.profile, file: "clients/curl.yaml")
        let text = Reports.matrix([Self.run], notes: ["curl": profile.matrixNotes!], cells: ["curl": profile.cells])
        #expect(text.contains("| `digest.sha512-256` the digest.sha512-256 case | [❌](#note-curl--digest.sha512-256) |"))
        #expect(text.contains("| `digest.stale-loop` the digest.stale-loop case | ❌ |"))
        #expect(text.contains("| `basic.challenge` the basic.challenge case | [✅](#note-curl--basic.challenge) |"))
        #expect(text.contains(
            "- <a id=\"note-curl--digest.sha512-256\"></a>`digest.sha512-256` ❌ fail: it did digest.sha512-256\n\n"
                + "  **Why:** answers SHA-512-256 with a SHA-256 hash, as [curl#12897](https://github.com/curl/curl/pull/12897) says; `<b>` stays text\n\n"
                + "  Links: <https://github.com/curl/curl/pull/12897>\n"
        ))
        #expect(text.contains("  **Why:** Keeps the credentials across the redirect.\n\n  Second paragraph.\n"))
        #expect(text.contains("- <a id=\"note-curl--basic.challenge\"></a>`basic.challenge` ✅ pass\n\n  **Why:** Passes, surprisingly."))
        #expect(text.contains("the run says pass: its explanation is left out"))
        #expect(text.components(separatedBy: "Keeps the credentials").count == 2, "the contradicting entry's why is not shown for its other case")
        #expect(text.contains("- not explained yet (no `cells:` entry in its profile): `digest.stale-loop`"))
        // Without a profile nothing is listed as unexplained, and no cell links anywhere.
        let bare = Reports.matrix([Self.run])
        #expect(!bare.contains("not explained yet") && !bare.contains("](#note-"))
    }

    /// The cell's page shows why, with its inline code and links rendered and everything else escaped, and
    /// the links as `<a href>`; the index's cell carries a marker and the explanation's opening as its title.
    @Test func htmlShowsEachExplanationOnItsCell() throws {
        var profile = try ClientProfileLoader.load(yaml: Self.profile, file: "clients/curl.yaml")
        profile.cells[2].why = "Passes <script>alert(1)</script> [x](javascript:alert(2)) **bold**"
        let site = Reports.html([Self.run], cells: ["curl": profile.cells])
        let page = try #require(site["cases/curl/digest.sha512-256.html"])
        #expect(page.contains("<section class=\"why\">\n<h2>Why</h2>\n<div class=\"note\">\n<p>answers SHA-512-256 with a SHA-256 hash, as "
            + "<a href=\"https://github.com/curl/curl/pull/12897\">curl#12897</a> says; <code>&lt;b&gt;</code> stays text</p>\n</div>\n"))
        #expect(page.contains("<ul class=\"links\">\n<li><a href=\"https://github.com/curl/curl/pull/12897\">https://github.com/curl/curl/pull/12897</a></li>\n</ul>"))
        let pass = try #require(site["cases/curl/basic.challenge.html"])
        #expect(pass.contains("<p>Passes &lt;script&gt;alert(1)&lt;/script&gt; [x](javascript:alert(2)) <strong>bold</strong></p>"))
        #expect(!pass.contains("href=\"javascript"))
        let stale = try #require(site["cases/curl/redirect.other-port.html"])
        #expect(stale.contains("<p class=\"stale\">") && !stale.contains("Keeps the credentials"))
        #expect(try #require(site["cases/curl/digest.stale-loop.html"]).contains("<section class=\"why\">") == false)

        let index = try #require(site["index.html"])
        #expect(index.contains(
            "<td class=\"cell v-fail noted\"><a href=\"cases/curl/digest.sha512-256.html\" title=\"curl · digest.sha512-256: fail — why: answers SHA-512-256 with a SHA-256 hash, as [curl#12897](https://github.com/curl/curl/pull/12897) says; `&lt;b&gt;` stays text\">"
        ))
        #expect(index.contains("<sup class=\"noted\" aria-hidden=\"true\">*</sup>"))
        #expect(index.contains("<td class=\"cell v-pass noted stale\">"))
        #expect(index.contains("<div class=\"why\"><strong>Why:</strong> answers SHA-512-256"))
        #expect(index.contains("<p class=\"unexplained\">Not explained yet (no <code>cells:</code> entry in its profile): <a href=\"cases/curl/digest.stale-loop.html\">"))
    }

    /// `authmock matrix` reports a contradicting entry as file:line:column, warns about an unexplained
    /// cell, still writes the matrix, and exits 3; with the entry fixed it exits 0.
    @Test func matrixExitsThreeOnAContradiction() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("authmock-cells-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("curl.json").path
        try Reports.json(Self.run).write(to: URL(fileURLWithPath: json))
        let profilePath = directory.appendingPathComponent("curl.yaml")
        try Data(Self.profile.utf8).write(to: profilePath)
        let output = directory.appendingPathComponent("matrix.md").path
        let suite = repositoryRoot.appendingPathComponent("scenarios/conformance").path
        let arguments = ["matrix", json, "--profiles", directory.path, "--suite", suite, "-o", output, "--html", directory.appendingPathComponent("html").path]

        let failing = try await AuthMockCheckTests.run(authmockBinary, arguments)
        #expect(failing.status == 3, "\(failing.stderr)")
        #expect(failing.stderr.contains("\(profilePath.path):10:14: redirect.other-port is pass in the run, the note says non-strict — "))
        #expect(failing.stderr.contains("\(profilePath.path): warning: digest.stale-loop is fail in the run and no `cells:` entry explains it"))
        #expect(try String(contentsOfFile: output, encoding: .utf8).contains("[❌](#note-curl--digest.sha512-256)"))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("html/cases/curl/digest.sha512-256.html").path))

        try Data(Self.profile.replacingOccurrences(of: "verdict: non-strict", with: "verdict: pass").utf8).write(to: profilePath)
        let mixed = try await AuthMockCheckTests.run(authmockBinary, arguments)
        #expect(mixed.status == 3, "redirect.other-host is non-strict: one entry cannot explain both now")
        var fixed = Self.profile.replacingOccurrences(of: "case: [redirect.other-host, redirect.other-port]", with: "case: redirect.other-host")
        fixed += "\n  - case: redirect.other-port\n    verdict: pass\n    why: Drops them now."
        try Data(fixed.utf8).write(to: profilePath)
        let passing = try await AuthMockCheckTests.run(authmockBinary, arguments)
        #expect(passing.status == 0, "\(passing.stderr)")
        #expect(passing.stderr.contains("warning: digest.stale-loop"))

        // An entry naming a case the suite does not have is a contradiction too.
        try Data((fixed + "\n  - case: digest.md55\n    verdict: fail\n    why: x").utf8).write(to: profilePath)
        let unknown = try await AuthMockCheckTests.run(authmockBinary, arguments)
        #expect(unknown.status == 3)
        #expect(unknown.stderr.contains("no case 'digest.md55' in the suite — did you mean 'digest.md5'?"))
    }

    /// Every shipped profile loads, and its entries name cases of the shipped suite, each once.
    @Test func shippedProfilesNameShippedCases() throws {
        let ids = Set(try Suite.load(directory: repositoryRoot.appendingPathComponent("scenarios/conformance").path).map(\.id))
        let directory = repositoryRoot.appendingPathComponent("clients")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".yaml") }.sorted()
        #expect(!files.isEmpty)
        for file in files {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            let profile = try ClientProfileLoader.load(yaml: text, file: "clients/\(file)")
            for note in profile.cells {
                for id in note.cases { #expect(ids.contains(id), "clients/\(file) explains \(id), which is not a case") }
            }
        }
    }
}
