import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// Issue 29's Digest `Authentication-Info` and body cases: each is judged on a deliberately wrong client (a
/// few lines of Python in Clients/) as the grade the case gives that mistake, with the finding quoted, and
/// passed by right ones (the Python client done right, and curl where it meets the case).
extension CheckRunnerTests {
    struct AuthInfoCase: Sendable, CustomTestStringConvertible {
        var id: String
        var wrong: [String]
        /// What the wrong client earns: `fail`, or the case's grade for a SHOULD (`non-strict`) or for what the
        /// RFCs leave to clients (`informational`).
        var wrongVerdict: CaseVerdict
        var finding: String
        var right: [[String]]
        var testDescription: String { id }

        static func python(_ script: String, _ flags: String...) -> [String] {
            ["python3", "\(CheckRunnerTests.clients)/\(script)"] + flags
        }

        /// As the curl profile sends a body (`-T FILE` would append the file's name to the URL's path).
        static let curlBody = [
            "curl", "-sS", "--fail", "--anyauth", "-u", "{user}:{password}", "--request", "PUT", "--data-binary",
            "@{body_file}", "{url}",
        ]

        static let all: [AuthInfoCase] = [
            AuthInfoCase(
                id: "digest.nextnonce", wrong: python("digest.py", "--ignore-nextnonce"), wrongVerdict: .nonStrict,
                finding: "answers its next request with the nextnonce it was given (a SHOULD; a client that waits for a new challenge does not) — 0 request(s)",
                right: [python("digest.py")]
            ),
            AuthInfoCase(
                id: "digest.rspauth-right", wrong: python("digest.py", "--verify-rspauth", "--rspauth-with-method"),
                wrongVerdict: .fail, finding: "expected the client to succeed (exit 0); it exited 1",
                right: [python("digest.py", "--verify-rspauth"), FieldCase.curl]
            ),
            AuthInfoCase(
                id: "digest.rspauth-forged", wrong: python("digest.py"), wrongVerdict: .informational,
                finding: "expected the client to report failure (non-zero exit); it exited 0",
                right: [python("digest.py", "--verify-rspauth")]
            ),
            AuthInfoCase(
                id: "body.401-without-100-reuse", wrong: python("expect-continue.py", "--reuse-without-body"),
                wrongVerdict: .fail,
                finding: "never sends a request the server reads out of step (the next request taken as the last one's body) — 1 request(s) judged http.malformed",
                right: [python("expect-continue.py"), python("expect-continue.py", "--send-body-anyway"), curlBody]
            ),
            AuthInfoCase(
                id: "body.ntlm-expect-continue", wrong: python("ntlm-expect.py", "--empty-after-challenge"),
                wrongVerdict: .fail, finding: "the AUTHENTICATE leg carries the whole body",
                right: [
                    python("ntlm-expect.py"),
                    [
                        "curl", "-sS", "--fail", "--anyauth", "-u", "{domain}\\{user}:{password}", "--request", "PUT",
                        "--data-binary", "@{body_file}", "{url}",
                    ],
                ]
            ),
            AuthInfoCase(
                id: "body.unreplayable-stream", wrong: python("stream-body.py"), wrongVerdict: .fail,
                finding: "never sends its credentials with an empty body once the stream was read — 1 request(s)",
                right: [
                    python("stream-body.py", "--buffer"), python("stream-body.py", "--give-up"),
                    ["curl", "-sS", "--fail", "--anyauth", "-u", "{user}:{password}", "-T", "{body_stdin}", "{url}"],
                ]
            ),
        ]
    }

    @Test(arguments: AuthInfoCase.all)
    func authInfoCaseJudgesTheWrongClient(_ field: AuthInfoCase) async throws {
        let wrong = try only(try await check(field.wrong, field.id, timeout: 20))
        #expect(wrong.verdict == field.wrongVerdict, "\(wrong.findings) \(wrong.stderr ?? "")")
        #expect(wrong.findings.contains { $0.contains(field.finding) }, "\(wrong.findings)")
        for command in field.right {
            let right = try only(try await check(command, field.id, timeout: 20))
            #expect(right.verdict == .pass, "\(command): \(right.findings) \(right.stderr ?? "")")
        }
    }

    /// The early 401 of `before-body: keep-open` leaves the connection usable: the client that sends the body
    /// it announced anyway has its next request read on the same connection; without keep-open (the Basic body
    /// case) the 401 closes it and the client comes back on another.
    @Test func earlyChallengeKeptOpenReadsTheNextRequest() async throws {
        let kept = try only(try await check(
            AuthInfoCase.python("expect-continue.py", "--send-body-anyway"), "body.401-without-100-reuse", timeout: 20
        ))
        #expect(kept.verdict == .pass, "\(kept.findings)")
        let exchanges = kept.journal.filter(\.isExchange)
        #expect(exchanges.map(\.status) == [401, 200])
        #expect(Set(exchanges.map(\.connection)).count == 1, "\(exchanges.map(\.connection))")
        #expect(exchanges.map(\.bodyBytes) == [0, 1_572_864])

        let closed = try only(try await check(
            AuthInfoCase.python("expect-continue.py", "--send-body-anyway"), "body.put-expect-continue", timeout: 20
        ))
        #expect(closed.verdict == .pass, "\(closed.findings)")
        #expect(Set(closed.journal.filter(\.isExchange).map(\.connection)).count == 2)
    }

    /// A client that never reads its standard input sends no body at all: not judged on a body it never had.
    @Test func unreadStandardInputIsUnimplemented() async throws {
        let command = ["curl", "-sS", "--fail", "--anyauth", "-u", "{user}:{password}", "-X", "PUT", "{url}"]
        let report = try only(try await check(command, "body.unreplayable-stream", timeout: 20))
        #expect(report.verdict == .unimplemented, "\(report.findings)")
    }
}
