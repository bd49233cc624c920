import ArgumentParser
import AuthMockCheck

/// The shipped files the commands read by default (the suite, the client profiles, the scenarios), found
/// through `ShareDirectory`: AUTHMOCK_SHARE, beside the binary, its source checkout, the working directory.
enum SharedData {
    static let suite = "scenarios/conformance"
    static let share = ShareDirectory.current()

    /// The path of the shipped `relative`, or a message naming every place tried and exit 2.
    static func locate(_ relative: String, for command: String, flag: String) throws -> String {
        if let found = share.locate(relative) { return found }
        printError(
            "authmock \(command): cannot find \(relative) — looked in \(share.tried(relative)); "
                + "give \(flag) DIR, or set AUTHMOCK_SHARE to the directory that holds \(relative)"
        )
        throw ExitCode(2)
    }
}
