#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Apache's user files, read strictly: every line that is not a user, a comment or blank is an error at
/// `file:line:column`, like scenario files.
///
/// - htpasswd (`htpasswd -c users.htpasswd alice`): `name:hash`, one user per line.
/// - htdigest (`htdigest -c users.htdigest realm alice`): `name:realm:md5hex`, where the hex is
///   `MD5(name:realm:password)`; one file may hold several realms.
enum UserFile {
    struct Line {
        var number: Int
        var text: Substring
    }

    /// The lines that hold entries (not blank, not `#` comments), with their numbers; CR before LF dropped.
    static func entries(_ text: String) -> [Line] {
        var lines: [Line] = []
        // "\r\n" is one Character in Swift: normalise it before splitting on "\n".
        let normalised = text.replacing("\r\n", with: "\n")
        for (index, line) in normalised.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            lines.append(Line(number: index + 1, text: line))
        }
        return lines
    }

    static func htpasswd(_ text: String, file: String) -> (users: [User], diagnostics: [ScenarioDiagnostic]) {
        var users: [User] = []
        var diagnostics: [ScenarioDiagnostic] = []
        var seen: [String: Int] = [:]
        func report(_ line: Line, column: Int, _ message: String, hint: String) {
            diagnostics.append(
                ScenarioDiagnostic(file: file, line: line.number, column: column, message: message, hint: hint)
            )
        }
        for line in entries(text) {
            guard let colon = line.text.firstIndex(of: ":") else {
                report(
                    line, column: 1, "the line has no ':' between the user name and the hash",
                    hint: "write `name:hash`, as `htpasswd -nB name` prints it"
                )
                continue
            }
            let name = String(line.text[..<colon])
            let hash = String(line.text[line.text.index(after: colon)...])
            // Columns count code points, as the YAML diagnostics do.
            let hashColumn = name.unicodeScalars.count + 2
            guard !name.isEmpty else {
                report(line, column: 1, "the user name is empty", hint: "write `name:hash`")
                continue
            }
            if let first = seen[name] {
                report(
                    line, column: 1, "user '\(name)' is listed twice", hint: "keep one; the first is on line \(first)"
                )
                continue
            }
            guard let stored = StoredPassword.htpasswd(hash) else {
                let shown = hash.count > 24 ? String(hash.prefix(24)) + "…" : hash
                report(
                    line, column: hashColumn, "'\(shown)' is not a password hash htpasswd writes",
                    hint: "make it with htpasswd: -B (bcrypt), -5 (SHA-512), -2 (SHA-256), -m ($apr1$) or -s ({SHA}); "
                        + "a password in clear belongs in the scenario's `users:` list"
                )
                continue
            }
            seen[name] = line.number
            users.append(User(name: name, stored: stored, source: "\(file):\(line.number)"))
        }
        return (users, diagnostics)
    }

    static func htdigest(_ text: String, file: String)
        -> (users: [(user: User, realm: String)], diagnostics: [ScenarioDiagnostic])
    {
        var users: [(user: User, realm: String)] = []
        var diagnostics: [ScenarioDiagnostic] = []
        var seen: [String: Int] = [:]
        for line in entries(text) {
            let fields = line.text.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3 else {
                diagnostics.append(ScenarioDiagnostic(
                    file: file, line: line.number, column: 1,
                    message: "the line has \(fields.count) field(s); htdigest lines have 3",
                    hint: "write `name:realm:md5hex`, as `htdigest users.htdigest realm name` writes it"
                ))
                continue
            }
            let name = String(fields[0]), realm = String(fields[1]), ha1 = String(fields[2])
            guard !name.isEmpty else {
                diagnostics.append(ScenarioDiagnostic(
                    file: file, line: line.number, column: 1, message: "the user name is empty",
                    hint: "write `name:realm:md5hex`"
                ))
                continue
            }
            let key = name + ":" + realm
            if let first = seen[key] {
                diagnostics.append(ScenarioDiagnostic(
                    file: file, line: line.number, column: 1,
                    message: "user '\(name)' is listed twice for realm '\(realm)'",
                    hint: "keep one; the first is on line \(first)"
                ))
                continue
            }
            guard ha1.count == 32,
                ha1.utf8.allSatisfy({
                    ("0"..."9").contains(Character(Unicode.Scalar($0)))
                        || ("a"..."f").contains(Character(Unicode.Scalar($0)))
                })
            else {
                diagnostics.append(ScenarioDiagnostic(
                    file: file, line: line.number, column: name.unicodeScalars.count + realm.unicodeScalars.count + 3,
                    message: "'\(ha1.prefix(40))' is not an MD5 digest (32 lower-case hex digits)",
                    hint: "htdigest writes MD5(name:realm:password) in hex; make the line again with htdigest"
                ))
                continue
            }
            seen[key] = line.number
            users.append(
                (User(name: name, stored: .htdigest(realm: realm, ha1: ha1), source: "\(file):\(line.number)"), realm)
            )
        }
        return (users, diagnostics)
    }
}
