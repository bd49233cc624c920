internal import CYAML

/// Composes a YAML text into `YAMLNode`s over libyaml's event parser (Debian's libyaml-dev), the way Yams'
/// `compose(yaml:)` did with its bundled copy: one document, aliases resolved to their anchored node, a key
/// twice in one mapping refused, marks 1-based. Yams' libyaml refuses collections nested deeper than 1000
/// (a patch after 0.2.5); that limit is applied here with the same test and message, so a hostile file is
/// refused the same way, and composing (iterative, no recursion) stays bounded.
package enum YAMLParser {
    /// libyaml's nesting limit as Yams' copy of it applies it.
    static let maximumNesting = 1000

    /// The single document of `text`; nil when the text holds none (empty, or only comments).
    package static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
        // A NUL after the text, so that an empty text still has an address (libyaml asserts one).
        var bytes = Array(text.utf8) + [0]
        var parser = yaml_parser_t()
        guard yaml_parser_initialize(&parser) == 1 else { throw .memory }
        defer { yaml_parser_delete(&parser) }
        return try bytes.withUnsafeMutableBufferPointer { buffer throws(YAMLError) -> YAMLNode? in
            yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING)
            yaml_parser_set_input_string(&parser, buffer.baseAddress, buffer.count - 1)
            var composer = Composer(text: text)
            return try composer.singleDocument(&parser)
        }
    }
}

/// One event's facts, copied out of libyaml's event before it is freed.
private struct Event {
    var type: yaml_event_type_t
    var start: YAMLMark
    var anchor: String?
    var tag: String?
    var scalar: YAMLNode.Scalar?
}

private struct Composer {
    let text: String
    var anchors: [String: YAMLNode] = [:]
    /// Events made here rather than by libyaml (see `emptyKeySwallowedFlowSequenceEnd`), given out first.
    var pending: [Event] = []

    init(text: String) { self.text = text }

    /// A collection being composed: its start event and the nodes read so far.
    private struct Open {
        var start: Event
        var nodes: [YAMLNode] = []
    }

    mutating func singleDocument(_ parser: inout yaml_parser_t) throws(YAMLError) -> YAMLNode? {
        _ = try next(&parser)  // STREAM-START
        guard parser.stream_end_produced == 0, try next(&parser).type != YAML_STREAM_END_EVENT else { return nil }
        let root = try node(&parser)
        _ = try next(&parser)  // DOCUMENT-END
        let after = try next(&parser)
        if after.type != YAML_STREAM_END_EVENT {
            throw .composer(
                context: .init(text: "expected a single document in the stream", mark: .init(line: 1, column: 1)),
                problem: "but found another document", after.start
            )
        }
        return root
    }

    /// The node whose first event comes next, collections composed with a stack of open ones. A node's
    /// anchor names it once it is complete, so an alias inside its own anchored node is undefined.
    private mutating func node(_ parser: inout yaml_parser_t) throws(YAMLError) -> YAMLNode {
        var open: [Open] = []
        while true {
            let event = try next(&parser)
            let done: YAMLNode
            let anchor: String?
            switch event.type {
            case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
                open.append(Open(start: event))
                continue
            case YAML_SEQUENCE_END_EVENT:
                let top = open.removeLast()
                done = .sequence(.init(top.nodes, tag: top.start.tag, mark: top.start.start))
                anchor = top.start.anchor
            case YAML_MAPPING_END_EVENT:
                let top = open.removeLast()
                done = try mapping(top)
                anchor = top.start.anchor
            case YAML_ALIAS_EVENT:
                guard let name = event.anchor, let target = anchors[name] else {
                    throw .composer(context: nil, problem: "found undefined alias", event.start)
                }
                done = target
                anchor = nil
            default:
                done = .scalar(event.scalar ?? .init(""))
                anchor = event.anchor
            }
            if let anchor { anchors[anchor] = done }
            if open.isEmpty { return done }
            open[open.count - 1].nodes.append(done)
        }
    }

    /// A mapping from its start event and its nodes (key, value, key, value…), refused when a key is there
    /// twice, naming the duplicates as Yams did (sorted, the first one's first occurrence as the mark).
    private func mapping(_ open: Open) throws(YAMLError) -> YAMLNode {
        var pairs: [(YAMLNode, YAMLNode)] = []
        var index = 0
        while index + 1 < open.nodes.count {
            pairs.append((open.nodes[index], open.nodes[index + 1]))
            index += 2
        }
        var seen: [YAMLNode: Int] = [:]
        var duplicates: [YAMLNode] = []
        for (key, _) in pairs {
            seen[key, default: 0] += 1
            if seen[key] == 2 { duplicates.append(pairs.first { $0.0 == key }!.0) }
        }
        if !duplicates.isEmpty {
            let sorted = duplicates.sorted(by: YAMLNode.precedes)
            throw .duplicatedKeysInMapping(
                duplicates: sorted.map { $0.string ?? "<uncovertable>" },
                mark: sorted[0].mark ?? .init(line: 0, column: 0)
            )
        }
        return .mapping(.init(pairs, tag: open.start.tag, mark: open.start.start))
    }
}

// MARK: - Events

extension Composer {
    /// The next event, its facts copied out and libyaml's copy freed; libyaml's error as a `YAMLError`.
    mutating func next(_ parser: inout yaml_parser_t) throws(YAMLError) -> Event {
        if !pending.isEmpty { return pending.removeFirst() }
        var event = yaml_event_t()
        let before = parser.state
        guard yaml_parser_parse(&parser, &event) == 1 else { throw Self.error(parser, text: text) }
        defer { yaml_event_delete(&event) }
        if let fixed = emptyKeySwallowedFlowSequenceEnd(&parser, before: before, event) { return fixed }
        let start = Self.mark(event.start_mark)
        var result = Event(type: event.type, start: start)
        switch event.type {
        case YAML_ALIAS_EVENT:
            result.anchor = Self.string(event.data.alias.anchor)
        case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            result.anchor = Self.string(scalar.anchor)
            let value = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            result.scalar = .init(
                value, tag: scalar.quoted_implicit == 1 ? YAMLNode.strTag : Self.string(scalar.tag),
                style: YAMLNode.Scalar.Style(rawValue: Int(scalar.style.rawValue)) ?? .any, mark: start
            )
        case YAML_SEQUENCE_START_EVENT:
            let sequence = event.data.sequence_start
            result.anchor = Self.string(sequence.anchor)
            result.tag = sequence.implicit != 0 ? nil : Self.string(sequence.tag)
            if let refusal = Self.nestingRefusal(parser, event) { throw refusal }
        case YAML_MAPPING_START_EVENT:
            let mapping = event.data.mapping_start
            result.anchor = Self.string(mapping.anchor)
            result.tag = mapping.implicit != 0 ? nil : Self.string(mapping.tag)
            if let refusal = Self.nestingRefusal(parser, event) { throw refusal }
        default:
            break
        }
        return result
    }

    /// Yams' libyaml refuses a collection that starts a node when the scanner's indentation stack holds
    /// `maximumNesting - flow level` entries or more (Debian's 0.2.5 has no limit). libyaml decides that
    /// with the collection's first token still at the head of its queue, and no token is scanned after the
    /// event is made, so the same test on the same state here refuses the same files at the same token.
    static func nestingRefusal(_ parser: yaml_parser_t, _ event: yaml_event_t) -> YAMLError? {
        guard let start = parser.indents.start, let top = parser.indents.top,
            start.distance(to: top) >= YAMLParser.maximumNesting - Int(parser.flow_level),
            let head = parser.tokens.head, head != parser.tokens.tail
        else { return nil }
        let token = head.pointee
        let starts =
            event.type == YAML_SEQUENCE_START_EVENT
            ? [YAML_FLOW_SEQUENCE_START_TOKEN, YAML_BLOCK_SEQUENCE_START_TOKEN]
            : [YAML_FLOW_MAPPING_START_TOKEN, YAML_BLOCK_MAPPING_START_TOKEN]
        // The event is the token's own (not a mapping a `? key` opens in a flow sequence, nor an
        // indentless sequence), which libyaml's test covers: it ends where the token ends.
        guard starts.contains(token.type), token.end_mark.index == event.end_mark.index else { return nil }
        return .parser(
            context: .init(text: "while parsing", mark: mark(event.start_mark)),
            problem: "Maximum nesting level reached, set with yaml_set_max_nest_level())", mark(token.start_mark)
        )
    }

    /// `[ ? ]`: a flow sequence that ends right after an explicit key. Yams' libyaml (a fix after 0.2.5)
    /// reads an empty key and value there and ends the mapping and the sequence at the `]`; Debian's 0.2.5
    /// swallows the `]` as if it were the `:` and makes the empty key after it. On exactly that event (from
    /// that state, empty, right after a `]`), the key is moved onto the `]`, the events the fix makes are
    /// queued, and libyaml's state is set where the fix leaves it (the sequence's parent, its mark popped).
    mutating func emptyKeySwallowedFlowSequenceEnd(
        _ parser: inout yaml_parser_t, before: yaml_parser_state_t, _ event: yaml_event_t
    ) -> Event? {
        let scalar = event.data.scalar
        guard before == YAML_PARSE_FLOW_SEQUENCE_ENTRY_MAPPING_KEY_STATE, event.type == YAML_SCALAR_EVENT,
            scalar.length == 0, scalar.style == YAML_PLAIN_SCALAR_STYLE,
            event.start_mark.index == event.end_mark.index, event.start_mark.index > 0, event.start_mark.column > 0,
            Self.scalar(text, at: Int(event.start_mark.index) - 1) == "]",
            let states = parser.states.top, let statesStart = parser.states.start, statesStart < states,
            let marks = parser.marks.top, let marksStart = parser.marks.start, marksStart < marks
        else { return nil }
        parser.states.top = states - 1
        parser.state = (states - 1).pointee
        parser.marks.top = marks - 1
        let at = YAMLMark(line: Int(event.start_mark.line) + 1, column: Int(event.start_mark.column))
        let empty = Event(type: YAML_SCALAR_EVENT, start: at, scalar: .init("", style: .plain, mark: at))
        pending = [
            empty, Event(type: YAML_MAPPING_END_EVENT, start: at), Event(type: YAML_SEQUENCE_END_EVENT, start: at),
        ]
        return empty
    }

    /// The Unicode scalar at `offset` (libyaml's mark index counts them).
    static func scalar(_ text: String, at offset: Int) -> Unicode.Scalar? {
        let scalars = text.unicodeScalars
        return scalars.index(scalars.startIndex, offsetBy: offset, limitedBy: scalars.endIndex).flatMap {
            $0 < scalars.endIndex ? scalars[$0] : nil
        }
    }

    static func error(_ parser: yaml_parser_t, text: String) -> YAMLError {
        let problem = parser.problem.map { String(cString: $0) } ?? ""
        let context = parser.context.map {
            YAMLError.Context(text: String(cString: $0), mark: mark(parser.context_mark))
        }
        let at = mark(parser.problem_mark)
        switch parser.error {
        case YAML_READER_ERROR:
            // Yams' offset: the byte offset as a character offset, when it falls on a character.
            let utf8 = text.utf8
            let offset = utf8.index(utf8.startIndex, offsetBy: parser.problem_offset, limitedBy: utf8.endIndex)
                .flatMap { $0.samePosition(in: text) }
                .map { text.distance(from: text.startIndex, to: $0) }
            return .reader(problem: problem, offset: offset, value: parser.problem_value, yaml: text)
        case YAML_SCANNER_ERROR: return .scanner(context: context, problem: problem, at)
        case YAML_PARSER_ERROR: return .parser(context: context, problem: problem, at)
        case YAML_COMPOSER_ERROR: return .composer(context: context, problem: problem, at)
        default: return .memory
        }
    }

    static func mark(_ mark: yaml_mark_t) -> YAMLMark {
        YAMLMark(line: Int(mark.line) + 1, column: Int(mark.column) + 1)
    }

    static func string(_ pointer: UnsafeMutablePointer<UInt8>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
