/// Joins the reports of one client's shards (`authmock check --shard I/N`) into one column.
public enum ReportMerge {
    public struct Problem: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Reports of the same client become one, its cases in suite order, its scheme gates settled on the
    /// evidence of every shard; clients keep the order of their first report. A client's reports must be
    /// the shards of one suite, each exactly once: a missing or repeated shard would leave cells empty or
    /// doubled without anyone noticing, so it is a problem, not a warning.
    public static func merge(_ reports: [SuiteReport]) throws(Problem) -> [SuiteReport] {
        var order: [String] = []
        var byClient: [String: [SuiteReport]] = [:]
        for report in reports {
            if byClient[report.client] == nil { order.append(report.client) }
            byClient[report.client, default: []].append(report)
        }
        var merged: [SuiteReport] = []
        for client in order {
            let parts = byClient[client]!
            guard parts.count > 1 else {
                var single = parts[0]
                if let shard = single.shard {
                    throw Problem(
                        description: "\(client): only shard \(shard) was given; give every shard's report,"
                            + " or run the whole suite without --shard"
                    )
                }
                single.settleSchemeGates()
                merged.append(single)
                continue
            }
            let shards = parts.map { $0.shard.flatMap(Shard.init) }
            guard let count = shards.first??.count, shards.allSatisfy({ $0?.count == count }) else {
                let given = parts.map { $0.shard ?? "the whole suite" }.joined(separator: ", ")
                throw Problem(
                    description: "\(client): \(parts.count) reports that are not the shards of one run (\(given));"
                        + " give each shard of one --shard I/N split once"
                )
            }
            let indexes = shards.map { $0!.index }
            let missing = (1...count).filter { !indexes.contains($0) }
            let repeated = Set(indexes.filter { index in indexes.filter { $0 == index }.count > 1 })
            guard missing.isEmpty, repeated.isEmpty else {
                let what = missing.map { "shard \($0)/\(count) is missing" }
                    + repeated.sorted().map { "shard \($0)/\(count) is given twice" }
                throw Problem(description: "\(client): " + what.joined(separator: ", "))
            }
            var cases: [CaseReport] = []
            var seen: Set<String> = []
            for part in parts {
                for report in part.cases {
                    guard seen.insert(report.id).inserted else {
                        throw Problem(
                            description: "\(client): case \(report.id) is in two shards;"
                                + " were they cut from different suites?"
                        )
                    }
                    cases.append(report)
                }
            }
            var whole = parts[0]
            (whole.shard, whole.seconds) = (nil, parts.compactMap(\.seconds).max())
            whole.started = parts.map(\.started).min() ?? whole.started
            whole.cases = cases.sorted { $0.id < $1.id }
            whole.settleSchemeGates()
            merged.append(whole)
        }
        return merged
    }
}
