@testable import AuthMockServer
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The journal file survives misuse: writing after close is ignored, not a crash.
struct JournalFileTests {
    /// An entry appended after the file is closed is dropped, not a crash.
    @Test func appendAfterCloseIsIgnored() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(UUID().uuidString).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let file = try JournalFile(path: path)
        var random = RandomSource.seeded(1)
        var engine = Engine(scenario: try shipped("basic.yaml"), random: &random)
        var journal = JournalLog()
        let entry = try #require(engine.handle(Request(method: "GET", target: "/"), now: Date(), random: &random, journal: &journal).entry)
        file.append(entry)
        file.close()
        file.append(entry)
        file.close()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 1)
    }
}
