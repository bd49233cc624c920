/// A position in a YAML text: 1-based line, and 1-based column counted in Unicode scalars (libyaml's
/// mark plus one), as the diagnostics print it.
package struct YAMLMark: Sendable, Hashable, CustomStringConvertible {
    package let line: Int
    package let column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package var description: String { "\(line):\(column)" }
}

/// A composed YAML node: what `YAMLParser` builds from libyaml's events. Aliases are resolved to the node
/// their anchor names (the same value, with the anchored node's mark), so no alias case exists. No scalar
/// is resolved to a type: the readers read the text themselves (`ScenarioReader.bool`, `int`, `isNull`),
/// as YAML 1.2's core schema would, so `yes`, `on` and `0x10` stay text.
package indirect enum YAMLNode: Sendable, Hashable {
    case scalar(Scalar)
    case mapping(Mapping)
    case sequence(Items)

    package static let strTag = "tag:yaml.org,2002:str"
    package static let mapTag = "tag:yaml.org,2002:map"
    package static let seqTag = "tag:yaml.org,2002:seq"

    /// Where the node starts; nil for a node made in code.
    package var mark: YAMLMark? {
        switch self {
        case .scalar(let scalar): scalar.mark
        case .mapping(let mapping): mapping.mark
        case .sequence(let items): items.mark
        }
    }

    /// A scalar's text; nil for a collection.
    package var string: String? {
        if case .scalar(let scalar) = self { scalar.string } else { nil }
    }

    package struct Scalar: Sendable, Hashable {
        /// libyaml's scalar styles, with its numbering.
        package enum Style: Int, Sendable {
            case any, plain, singleQuoted, doubleQuoted, literal, folded
        }

        package var string: String
        /// The explicit tag, fully expanded (`!!str` → `tag:yaml.org,2002:str`); a quoted scalar without
        /// one is a string, so it gets `strTag`. nil for a plain scalar without a tag.
        package var tag: String?
        package var style: Style
        package var mark: YAMLMark?

        package init(_ string: String, tag: String? = nil, style: Style = .any, mark: YAMLMark? = nil) {
            self.string = string
            self.tag = tag
            self.style = style
            self.mark = mark
        }

        /// No resolver: an untagged scalar is a string.
        package var resolvedTag: String { tag ?? YAMLNode.strTag }

        /// Equal when the text and the resolved tag are, whatever the style and position (so `a` and
        /// `"a"` are the same key).
        package static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.string == rhs.string && lhs.resolvedTag == rhs.resolvedTag
        }

        package func hash(into hasher: inout Hasher) {
            hasher.combine(string)
            hasher.combine(resolvedTag)
        }
    }

    /// A mapping's pairs in document order (duplicate keys are refused while composing).
    package struct Mapping: Sendable, Hashable, RandomAccessCollection {
        package var pairs: [Pair]
        package var tag: String?
        package var mark: YAMLMark?

        package struct Pair: Sendable, Hashable {
            package var key: YAMLNode
            package var value: YAMLNode
        }

        package init(_ pairs: [(YAMLNode, YAMLNode)], tag: String? = nil, mark: YAMLMark? = nil) {
            self.pairs = pairs.map { Pair(key: $0.0, value: $0.1) }
            self.tag = tag
            self.mark = mark
        }

        package var startIndex: Int { pairs.startIndex }
        package var endIndex: Int { pairs.endIndex }
        package subscript(position: Int) -> (key: YAMLNode, value: YAMLNode) {
            (pairs[position].key, pairs[position].value)
        }

        /// The value of the first key that is the untagged (or string-tagged) scalar `key`.
        package subscript(key: String) -> YAMLNode? {
            let wanted = YAMLNode.scalar(Scalar(key))
            return pairs.first { $0.key == wanted }?.value
        }

        package static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.pairs == rhs.pairs && (lhs.tag ?? YAMLNode.mapTag) == (rhs.tag ?? YAMLNode.mapTag)
        }

        /// Shallow (size and tag), so that hashing a key that is an alias bomb costs nothing.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(pairs.count)
            hasher.combine(tag ?? YAMLNode.mapTag)
        }
    }

    /// A sequence's items in document order.
    package struct Items: Sendable, Hashable, RandomAccessCollection {
        package var nodes: [YAMLNode]
        package var tag: String?
        package var mark: YAMLMark?

        package init(_ nodes: [YAMLNode], tag: String? = nil, mark: YAMLMark? = nil) {
            self.nodes = nodes
            self.tag = tag
            self.mark = mark
        }

        package var startIndex: Int { nodes.startIndex }
        package var endIndex: Int { nodes.endIndex }
        package subscript(position: Int) -> YAMLNode { nodes[position] }

        package static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.nodes == rhs.nodes && (lhs.tag ?? YAMLNode.seqTag) == (rhs.tag ?? YAMLNode.seqTag)
        }

        /// Shallow (size and tag), so that hashing a key that is an alias bomb costs nothing.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(nodes.count)
            hasher.combine(tag ?? YAMLNode.seqTag)
        }
    }
}

extension YAMLNode {
    /// The order Yams sorted duplicate keys in, to name the same one first: scalars by text, collections
    /// item by item; nodes of different kinds are unordered.
    static func precedes(_ lhs: YAMLNode, _ rhs: YAMLNode) -> Bool {
        switch (lhs, rhs) {
        case (.scalar(let lhs), .scalar(let rhs)):
            return lhs.string < rhs.string
        case (.mapping(let lhs), .mapping(let rhs)):
            return lexicographic(lhs.pairs.map(\.key), rhs.pairs.map(\.key))
        case (.sequence(let lhs), .sequence(let rhs)):
            return lexicographic(lhs.nodes, rhs.nodes)
        default:
            return false
        }
    }

    private static func lexicographic(_ lhs: [YAMLNode], _ rhs: [YAMLNode]) -> Bool {
        for (left, right) in zip(lhs, rhs) {
            if precedes(left, right) { return true }
            if precedes(right, left) { return false }
        }
        return lhs.count < rhs.count
    }
}
