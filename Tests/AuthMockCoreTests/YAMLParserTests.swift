import Testing

@testable import AuthMockCore

/// The core's YAML reader over libyaml: marks, styles, tags, aliases, errors and bounds, as the scenario,
/// case and profile readers rely on them (the same as Yams gave; YAMLGoldenTests holds the whole CLI to it).
struct YAMLParserTests {
    func compose(_ text: String) throws(YAMLError) -> YAMLNode {
        guard let node = try YAMLParser.compose(text) else {
            Issue.record("no document in \(text.debugDescription)")
            return .scalar(.init(""))
        }
        return node
    }

    func error(_ text: String) -> YAMLError? {
        do {
            _ = try YAMLParser.compose(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func marksAreOneBasedLinesAndScalarColumns() throws {
        let root = try compose("name: x\nusers:\n  - é: \"ü\"\n    b: [1, {c: d}]\n")
        guard case .mapping(let mapping) = root else { Issue.record("not a mapping"); return }
        #expect(root.mark == YAMLMark(line: 1, column: 1))
        #expect(mapping[0].key.mark == YAMLMark(line: 1, column: 1))
        #expect(mapping[0].value.mark == YAMLMark(line: 1, column: 7))
        guard case .sequence(let users) = mapping["users"], case .mapping(let user) = users[0] else {
            Issue.record("users is not a list of mappings"); return
        }
        #expect(users.mark == YAMLMark(line: 3, column: 3))
        #expect(user.mark == YAMLMark(line: 3, column: 5))
        // Columns count characters, not bytes: `"ü"` starts after `é: `.
        #expect(user[0].value.mark == YAMLMark(line: 3, column: 8))
        guard case .sequence(let flow) = user["b"], case .mapping(let inner) = flow[1] else {
            Issue.record("b is not a flow list"); return
        }
        #expect(flow.mark == YAMLMark(line: 4, column: 8))
        #expect(inner.mark == YAMLMark(line: 4, column: 12))
        #expect(inner["c"]?.string == "d")
    }

    @Test func stylesAndTagsAreKept() throws {
        let text = "a: plain\nb: 'single'\nc: \"double\"\nd: |\n  lit\ne: >\n  fold\n  ed\nf: !!int 1\ng: ~\n"
        guard case .mapping(let mapping) = try compose(text) else { Issue.record("not a mapping"); return }
        func scalar(_ key: String) -> YAMLNode.Scalar? {
            if case .scalar(let scalar) = mapping[key] { scalar } else { nil }
        }
        #expect(scalar("a")?.style == .plain && scalar("a")?.tag == nil)
        #expect(scalar("b")?.style == .singleQuoted && scalar("b")?.tag == YAMLNode.strTag)
        #expect(scalar("c")?.style == .doubleQuoted)
        #expect(scalar("d")?.style == .literal && scalar("d")?.string == "lit\n")
        #expect(scalar("e")?.style == .folded && scalar("e")?.string == "fold ed\n")
        #expect(scalar("f")?.tag == "tag:yaml.org,2002:int" && scalar("f")?.string == "1")
        // No resolver: null, booleans and YAML 1.1's yes/on stay text for the readers to judge.
        #expect(scalar("g")?.string == "~" && scalar("g")?.style == .plain)
    }

    @Test func aliasesAreTheAnchoredNodeWithItsMark() throws {
        guard case .mapping(let mapping) = try compose("a: &x {k: v}\nb: *x\nc: &y s\nd: *y\n") else {
            Issue.record("not a mapping"); return
        }
        #expect(mapping["b"] == mapping["a"])
        #expect(mapping["b"]?.mark == YAMLMark(line: 1, column: 4))
        #expect(mapping["d"]?.string == "s" && mapping["d"]?.mark == YAMLMark(line: 3, column: 4))
        // A later anchor of the same name shadows the earlier one.
        guard case .mapping(let shadow) = try compose("a: &x 1\nb: &x 2\nc: *x\n") else { return }
        #expect(shadow["c"]?.string == "2")
    }

    @Test func syntaxErrorsCarryLibyamlsProblemContextAndMark() {
        guard case .parser(let context, let problem, let mark) = error("name: [a, b\n") else {
            Issue.record("not a parser error"); return
        }
        #expect(problem == "did not find expected ',' or ']'")
        #expect(context?.text == "while parsing a flow sequence")
        #expect(mark == YAMLMark(line: 2, column: 1))
        guard case .scanner(_, let scanProblem, let scanMark) = error("a: 1\n\t- b\n") else {
            Issue.record("not a scanner error"); return
        }
        #expect(scanProblem == "found a tab character that violates indentation")
        #expect(scanMark == YAMLMark(line: 2, column: 1))
    }

    @Test func composerRefusesUndefinedAliasesSecondDocumentsAndDuplicateKeys() {
        guard case .composer(nil, "found undefined alias", let alias) = error("a: &x [*x]\n") else {
            Issue.record("a recursive alias was not refused"); return
        }
        #expect(alias == YAMLMark(line: 1, column: 8))
        guard case .composer(let context, "but found another document", let second) = error("a: 1\n---\nb: 2\n") else {
            Issue.record("a second document was not refused"); return
        }
        #expect(context?.text == "expected a single document in the stream" && second == YAMLMark(line: 2, column: 1))
        // `b` and `"b"` are the same key; the duplicates are named sorted, with the first one's first mark.
        guard case .duplicatedKeysInMapping(let keys, let first) = error("z: 1\nb: 2\nz: 3\n\"b\": 4\n") else {
            Issue.record("duplicate keys were not refused"); return
        }
        #expect(keys == ["b", "z"] && first == YAMLMark(line: 2, column: 1))
        // A tagged key is another key.
        #expect(error("a: 1\n!!int a: 2\n").map { "\($0)" } == nil)
    }

    @Test func emptyTextsHoldNoDocument() throws {
        #expect(try YAMLParser.compose("") == nil)
        #expect(try YAMLParser.compose("# comment\n") == nil)
        #expect(try compose("---\n") == .scalar(.init("")))
    }

    @Test func controlCharactersAreAReaderErrorWithTheLine() {
        guard case .reader(let problem, let offset, let value, _) = error("a: b\nc: d\u{1}e\n") else {
            Issue.record("not a reader error"); return
        }
        #expect(problem == "control characters are not allowed" && offset == 9 && value == 1)
        #expect(error("a: b\nc: d\u{1}e\n")?.description == "2:5: error: reader: control characters are not allowed:\nc: d\u{1}e\n    ^")
    }

    /// Yams' libyaml stops at 1000 levels; the same limit here, so a hostile file is refused, not composed
    /// (and never recursed into).
    @Test func deepNestingIsRefusedAtYamsLimit() throws {
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        guard case .parser(let context, let problem, let mark) = error(deep) else {
            Issue.record("5000 nested lists were not refused"); return
        }
        #expect(context?.text == "while parsing" && problem.hasPrefix("Maximum nesting level reached"))
        // libyaml scans a flow collection up to 1024 characters ahead (it could be a simple key), so the
        // flow level is already past the limit at the first `[`: refused there, as Yams refused it.
        #expect(mark == YAMLMark(line: 1, column: 1))
        let shallow = String(repeating: "[", count: 990) + String(repeating: "]", count: 990)
        #expect(error(shallow).map { "\($0)" } == nil)
        var block = ""
        for level in 0..<1100 { block += String(repeating: " ", count: level) + "k:\n" }
        guard case .parser(_, _, let blockMark) = error(block + String(repeating: " ", count: 1100) + "v\n") else {
            Issue.record("1100 nested mappings were not refused"); return
        }
        #expect(blockMark.line == 1000)
    }

    /// `[ ? ]` reads as a mapping with an empty key, as Yams' libyaml (newer than Debian's 0.2.5) read it.
    @Test func explicitKeyBeforeFlowSequenceEndIsAnEmptyKey() throws {
        guard case .sequence(let items) = try compose("[ ? ]"), case .mapping(let pair) = items.first else {
            Issue.record("not a list holding a mapping"); return
        }
        #expect(pair.count == 1 && pair[0].key.string == "" && pair[0].value.string == "")
        #expect(pair[0].key.mark == YAMLMark(line: 1, column: 5))
    }

    /// Aliases share their node, so a billion laughs costs what its text does.
    @Test func aliasBombsStayShared() throws {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x]\n"
        for level in 1..<20 {
            text += "a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ") + "]\n"
        }
        guard case .mapping(let mapping) = try compose(text) else { Issue.record("not a mapping"); return }
        #expect(mapping.count == 20)
    }
}
