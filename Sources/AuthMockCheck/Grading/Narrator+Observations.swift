import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
internal import Foundation
#endif

/// What the observe checks report, and the TLS story findings quote: words about what the client did,
/// never a verdict.
extension Narrator {
    func observe(_ observation: Check.Observation, _ entries: [JournalEntry]) -> String {
        let credentialed = entries.filter { $0.exchange > 0 && $0.credentials != nil }
        let digest = credentialed.filter { AuthScheme(token: $0.credentials!.scheme) == .digest }
        switch observation {
        case .schemes:
            let schemes = credentialed.map { ($0.hop == .proxy ? "proxy " : "") + $0.credentials!.scheme }
            return schemes.isEmpty ? "no credentials sent" : Self.runs(schemes).joined(separator: " → ")
        case .algorithms:
            let algorithms = digest.map { $0.credentials!.params?["algorithm"] ?? "MD5 (implied)" }
            return algorithms.isEmpty ? "no Digest credentials sent" : Self.runs(algorithms).joined(separator: " → ")
        case .userhash:
            guard !digest.isEmpty else { return "no Digest credentials sent" }
            let hashed = digest.filter { $0.credentials!.params?["userhash"]?.lowercased() == "true" }.count
            return hashed == 0
                ? "sent the user name in clear (no userhash)"
                : "hashed the user name in \(hashed) of \(digest.count) request(s)"
        case .nonceReuse:
            guard !digest.isEmpty else { return "no Digest credentials sent" }
            let ncs = digest.compactMap { $0.credentials!.params?["nc"] }
            let reused = digest.filter { $0.nonceCount.map { $0 > 1 } ?? false }.count
            return reused == 0
                ? "never reused a nonce (a new challenge for every request; nc "
                    + "\(Self.runs(ncs).joined(separator: ", ")))"
                : "reused nonces in \(reused) request(s), nc \(ncs.joined(separator: ", "))"
        case .tlsConnections:
            // An observation quotes nothing: the story is told on a copy.
            var narrator = self
            return narrator.tlsStory(entries) ?? "no TLS connection"
        case .basicEncoding:
            let basic = credentialed.filter { $0.presentedScheme.flatMap { AuthScheme(token: $0) } == .basic }
            guard !basic.isEmpty else { return "no Basic credentials sent" }
            let shapes = basic.map { entry in "\(Self.basicEncoding(entry)) → \(entry.status) \(entry.verdict)" }
            return Self.runs(shapes).joined(separator: "; ")
        case .credentialsByPath:
            return Self.credentialsByPath(entries)
        case .requestShape:
            let shapes = entries.filter { $0.exchange > 0 }.map { entry -> String in
                let expect = entry.headers.first { $0.name.lowercased() == "expect" }.map { ", Expect: \($0.value)" }
                return "\(entry.method ?? "?") with \(entry.bodyBytes) body bytes\(expect ?? "") → \(entry.status)"
            }
            return shapes.isEmpty ? "no requests" : shapes.joined(separator: "; ")
        }
    }

    /// Per path, in order, the scheme of each request's credentials (or none) and the status answered.
    static func credentialsByPath(_ entries: [JournalEntry]) -> String {
        var paths: [(String, [String])] = []
        for entry in entries where entry.exchange > 0 {
            let path = String((entry.target ?? "?").prefix { $0 != "?" })
            let scheme = entry.presentedScheme ?? "none"
            let word = "\(scheme) → \(entry.status)"
            if let index = paths.firstIndex(where: { $0.0 == path }) {
                paths[index].1.append(word)
            } else {
                paths.append((path, [word]))
            }
        }
        guard !paths.isEmpty else { return "no requests" }
        return paths.map { "\($0.0): \($0.1.joined(separator: ", "))" }.joined(separator: "; ")
    }

    /// How a Basic credential's password was encoded, read from the header itself.
    static func basicEncoding(_ entry: JournalEntry) -> String {
        guard let value = entry.header((entry.hop ?? .origin).credentialsHeader),
            let password = BasicCredentials(field: value)?.password
        else { return "not decodable" }
        if password.allSatisfy({ $0 < 0x80 }) {
            return "the password in ASCII only (\(password.count) bytes: "
                + "characters outside ASCII were replaced or dropped)"
        }
        if String(validating: password, as: UTF8.self) != nil { return "the password in UTF-8" }
        let hex = password.prefix(12).map { TextFormat.hex($0, width: 2) }.joined(separator: " ")
        return "the password in neither UTF-8 nor ASCII (bytes \(hex)\(password.count > 12 ? " …" : ""))"
    }

    /// Collapses repeats: `[Digest, Digest, Basic]` → `[Digest ×2, Basic]`.
    static func runs(_ items: [String]) -> [String] {
        var result: [(String, Int)] = []
        for item in items {
            if let last = result.last, last.0 == item {
                result[result.count - 1].1 += 1
            } else {
                result.append((item, 1))
            }
        }
        return result.map { $0.1 == 1 ? $0.0 : "\($0.0) ×\($0.1)" }
    }

    /// Each TLS connection in a sentence: which certificate the server presented (numbered in order of
    /// appearance, saying whether a renewal kept the key) and what the client did — refused during the
    /// handshake (with its alert), completed it and closed without a request, or sent requests.
    mutating func tlsStory(_ entries: [JournalEntry]) -> String? {
        let connections = entries.filter { $0.requests != nil && $0.tls != nil }
        guard !connections.isEmpty else { return nil }
        var certificates: [String] = []
        var pins: [String] = []
        var lines: [String] = []
        var sameKeyRenewal: Bool?
        for entry in connections {
            quoted.insert(entry.seq)
            let facts = entry.tls!
            // An HTTPS proxy's connections show the proxy's own certificate: no renewal of the origin's.
            if entry.hop == .proxy {
                lines.append("connection \(entry.connection) to the HTTPS proxy: \(Self.tlsOutcome(entry, facts))")
                continue
            }
            var shown = "connection \(entry.connection)"
            if let certificate = facts.certificateSHA256 {
                if !certificates.contains(certificate) { certificates.append(certificate) }
                let number = certificates.firstIndex(of: certificate)! + 1
                shown += " (certificate \(number)"
                if number > 1, let pin = facts.pinSHA256, pins.contains(pin) {
                    shown += ", renewed with the same key"
                    sameKeyRenewal = sameKeyRenewal ?? (entry.verdict == .tlsOK)
                } else if number > 1 {
                    shown += ", renewed with a new key"
                }
                shown += ")"
                if let pin = facts.pinSHA256, !pins.contains(pin) { pins.append(pin) }
            }
            lines.append("\(shown): \(Self.tlsOutcome(entry, facts))")
        }
        let toOrigin = connections.contains { $0.hop != .proxy }
        var story = (toOrigin ? "shown " + (shown ?? "the scenario's certificate") : "TLS") + " — "
            + lines.joined(separator: "; ")
        // A renewal that kept the key tells a key pin from a certificate pin.
        switch sameKeyRenewal {
        case true?:
            story += " — it went on over the renewed certificate whose key was unchanged:"
                + " it pinned the key, or nothing"
        case false?:
            story += " — it refused the renewed certificate although its key was unchanged: it pinned the certificate"
        case nil: break
        }
        return story
    }

    /// What the client did on one TLS connection.
    private static func tlsOutcome(_ entry: JournalEntry, _ facts: TLSFacts) -> String {
        switch entry.verdict {
        case .tlsPlainHTTP:
            "spoke plain HTTP instead of TLS" + (entry.detail.map { ": \($0)" } ?? "")
        case .tlsHandshakeFailed:
            "refused during the handshake" + (facts.alert.map { " (alert \($0))" } ?? "")
                + (entry.detail.map { ": \($0)" } ?? "")
        case .tlsNoRequest:
            "completed the \(facts.version ?? "TLS") handshake, then closed without sending a request"
        default:
            "completed the \(facts.version ?? "TLS") handshake and sent \(entry.requests ?? 0) request(s)"
        }
    }
}
