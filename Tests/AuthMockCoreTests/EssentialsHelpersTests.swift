@testable import AuthMockCore
import Foundation
import Testing

/// The helpers that replace what FoundationEssentials lacks print and edit exactly as the Foundation calls
/// they replaced (the tests may use all of Foundation; the binary does not): reports, notes and journals
/// must not change by a byte.
struct EssentialsHelpersTests {
    static let seconds: [Double] = [
        0, 0.001, 0.0005, 0.0015, 0.005, 0.125, 0.375, 1.005, 2.675, 0.1 + 0.2, 12.3456, 59.9995, 1e-7, 123_456.789,
    ]

    @Test(arguments: seconds) func fixedPointIsPrintfs(value: Double) {
        for places in [1, 2, 3] {
            #expect(TextFormat.fixed(value, places: places) == String(format: "%.\(places)f", value))
        }
        #expect(TextFormat.fixed(-value, places: 2) == String(format: "%.2f", -value))
    }

    @Test func hexAndDecimalArePaddedAsPrintfPadded() {
        for value: UInt32 in [0, 1, 0xA, 0xFF, 0x1234, 0xE288_8215, .max] {
            #expect(TextFormat.hex(value, width: 8) == String(format: "%08x", value))
            #expect(TextFormat.hex(value, width: 2) == String(format: "%02x", value))
        }
        for value in [0, 7, 42, 999, 1000, 12345] {
            #expect(TextFormat.decimal(value, width: 3) == String(format: "%03d", value))
        }
    }

    @Test func trimmingMatchesFoundationsCharacterSets() {
        let samples = [
            "", "   ", " a b ", "\t x\t", "\n x \r\n", "\u{00A0}nbsp\u{2003}", "\u{2028}line\u{2029}", "\u{85}a\u{85}",
            " \u{301}e ", "x", "\u{000B}\u{000C}v\u{000B}",
        ]
        for text in samples {
            #expect(text.trimmingBlanks() == text.trimmingCharacters(in: .whitespaces), "\(Array(text.unicodeScalars))")
            #expect(
                text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines),
                "\(Array(text.unicodeScalars))"
            )
        }
    }

    @Test func percentEncodingMatchesFoundation() {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        for text in ["alice", "a b@c:d/e?f#g%h", "ünïcødé €", "p@ss:w0rd!", "~._-", "😀", ""] {
            #expect(PercentEncoding.encode(text, allowing: PercentEncoding.isUnreserved)
                == text.addingPercentEncoding(withAllowedCharacters: unreserved))
        }
        for text in ["alice", "a%20b", "%C3%BCber", "%e2%82%ac", "50%", "%zz", "%4", "%FF", "a%2Fb", ""] {
            #expect(PercentEncoding.decode(text) == text.removingPercentEncoding, "\(text)")
        }
    }

    @Test func jsonValuesReadAnyDocumentAndPrintStringsAsTheyAre() throws {
        let text = #"{"ca_file":"/tmp/ca.pem","n":3,"x":1.5,"ok":true,"none":null,"list":["a",2],"o":{"b":"\"q\"","a":1}}"#
        let facts = try JSONDecoder().decode([String: JSONValue].self, from: Data(text.utf8))
        #expect(facts["ca_file"]?.text == "/tmp/ca.pem")
        #expect(facts["n"]?.text == "3")
        #expect(facts["x"]?.text == "1.5")
        #expect(facts["ok"]?.text == "true")
        #expect(facts["none"]?.text == "null")
        #expect(facts["list"]?.text == #"["a",2]"#)
        #expect(facts["o"]?.text == #"{"a":1,"b":"\"q\""}"#)
    }

    @Test func scenarioPathsResolveAsNSStringDid() {
        for (file, path) in [
            ("/a/b/scenario.yaml", "users.htpasswd"), ("scenario.yaml", "u"), ("dir/s.yaml", "u"), ("/s.yaml", "u"),
            ("a//b/s.yaml", "u"), ("dir/sub/", "u"), ("/a/b/s.yaml", "../u"),
        ] {
            let directory = (file as NSString).deletingLastPathComponent
            let expected = directory.isEmpty ? path : (directory as NSString).appendingPathComponent(path)
            #expect(ScenarioFileReader.resolve(path, relativeTo: file) == expected, "\(file) + \(path)")
        }
        #expect(ScenarioFileReader.resolve("/abs", relativeTo: "/a/s.yaml") == "/abs")
        #expect(ScenarioFileReader.resolve("u", relativeTo: "<inline>") == "u")
    }
}
