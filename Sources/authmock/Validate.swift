import ArgumentParser
import AuthMockCore

extension AuthMockCommand {
    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "validate",
            abstract: "Check scenario files without serving them.",
            discussion: "Prints one line per valid file; problems go to stderr as file:line:column. "
                + "Exits 2 if any file is invalid."
        )

        @Argument(help: "Scenario files to check.", completion: .file(extensions: ["yaml", "yml"]))
        var files: [String]

        func run() throws {
            var invalid = 0
            for file in files {
                guard let scenario = ScenarioFiles.load(file) else {
                    invalid += 1
                    continue
                }
                let challenges = scenario.challenges.map(\.summary).joined(separator: "; ")
                var transport = scenario.tls.map { "HTTPS (\($0.identity.rawValue))" } ?? "HTTP"
                if scenario.http2.mode != .off {
                    transport += " speaking " + scenario.http2.protocols.joined(separator: ", ")
                }
                if let proxy = scenario.proxy {
                    transport += proxy.tls.map { ", HTTPS proxy (\($0.identity.rawValue))" } ?? ", proxy"
                    transport += " offering "
                        + (proxy.challenges.isEmpty
                            ? "nothing (open)" : proxy.challenges.map(\.summary).joined(separator: "; "))
                }
                printOut(
                    "\(file): ok — \(scenario.name): \(transport); \(scenario.users.count) user(s); "
                        + "offers \(challenges); \(scenario.resources.count) resource(s)"
                )
            }
            if invalid > 0 { throw exitInvalidScenario }
        }
    }
}
