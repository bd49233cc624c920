import AuthMockCore
import FuzzDriver
import FuzzSupport
import Foundation

// Scenario files: the input up to the first NUL byte is the scenario's YAML; what follows it, when there
// is a NUL, is the content of every user file the scenario names (`users: {htpasswd: …}` or htdigest),
// read from memory, so no disk is touched. Without a NUL, user files do not exist.
//
// Invariants: the loader yields a scenario or at least one diagnostic, every diagnostic at a positive
// line and column with a message; and a scenario it yields can be served: a fresh engine (and the proxy's)
// answers a request without credentials, with Basic, with an NTLM and a Negotiate NEGOTIATE, and with a
// Digest answer, each with one journal entry, a status in 200...599, and challenges that parse (all but
// raw challenges, which are hostile on purpose and journaled as such).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let nul = bytes.firstIndex(of: 0)
    let yaml = String(decoding: bytes[..<(nul ?? size)], as: UTF8.self)
    let userFile = nul.map { String(decoding: bytes[($0 + 1)...], as: UTF8.self) }
    let files = ScenarioFileReader { path in
        guard let userFile else { throw CocoaError(.fileReadNoSuchFile) }
        return userFile
    }

    let scenario: Scenario
    do throws(ScenarioLoadError) {
        scenario = try ScenarioLoader.load(yaml: yaml, file: "fuzz/scenario.yaml", files: files)
    } catch {
        precondition(!error.diagnostics.isEmpty, "the loader refused the scenario without a diagnostic")
        for diagnostic in error.diagnostics {
            precondition(
                diagnostic.line >= 1 && diagnostic.column >= 1,
                "diagnostic at \(diagnostic.line):\(diagnostic.column): \(diagnostic)"
            )
            precondition(
                !diagnostic.message.isEmpty && !diagnostic.file.isEmpty,
                "a diagnostic without a message or file: \(diagnostic)"
            )
        }
        return 0
    }
    serve(scenario, hop: .origin)
    if let proxy = scenario.proxyScenario {
        serve(proxy, hop: .proxy)
    }
    return 0
}

let t0 = Date(timeIntervalSince1970: 1_800_000_000)

func serve(_ scenario: Scenario, hop: Hop) {
    var random = RandomSource.seeded(1)
    var engine = JournaledEngine(
        Engine(scenario: scenario, configuration: .init(hop: hop), random: &random), capacity: 100
    )
    let target = hop == .proxy ? "http://127.0.0.1:8080/" : "/"
    let first = send(&engine, nil, hop: hop, target: target, exchange: 1)
    // A user whose password the scenario knows, else one it does not have: a user file's hashes cost
    // what their authors chose (bcrypt cost 31 takes days), which is no finding.
    let user = scenario.users.first { $0.knowsPassword }
    let name = user?.name ?? "fuzz-nobody"
    let password = user?.password ?? "wonderland"
    send(
        &engine, "Basic " + Data("\(name):\(password)".utf8).base64EncodedString(), hop: hop, target: target,
        exchange: 2
    )
    let negotiate = Array("NTLMSSP".utf8) + [0, 1, 0, 0, 0, 0x05, 0x02, 0x08, 0x00] + [UInt8](repeating: 0, count: 16)
    send(&engine, "NTLM " + Data(negotiate).base64EncodedString(), hop: hop, target: target, exchange: 3)
    send(&engine, "Negotiate " + Data(negotiate).base64EncodedString(), hop: hop, target: target, exchange: 4)
    // A correct Digest answer to the first Digest challenge, when there is one.
    let challenges = first.response.headers.values(hop.challengeHeader).flatMap {
        (try? AuthHeader.parseChallenges($0)) ?? []
    }
    if let digest = challenges.first(where: { $0.scheme == "Digest" }), let nonce = digest[parameter: "nonce"] {
        let algorithm = DigestAlgorithm(token: digest[parameter: "algorithm"] ?? "MD5") ?? .md5
        let offered = (digest[parameter: "qop"] ?? "").split(separator: ",").compactMap {
            DigestQOP(rawValue: $0.trimmingCharacters(in: .whitespaces))
        }
        let qop = offered.contains(.auth) ? .auth : offered.first
        let realm = digest[parameter: "realm"] ?? scenario.realm
        let inputs = DigestInputs(
            algorithm: algorithm, username: name, realm: realm, password: password, method: "GET", uri: target,
            nonce: nonce, qop: qop, nc: "00000001", cnonce: "0a4f113b"
        )
        var value = "Digest username=\(AuthHeader.quote(name)), realm=\(AuthHeader.quote(realm)), uri=\"\(target)\", "
            + "algorithm=\(algorithm.token), nonce=\"\(nonce)\", response=\"\(inputs.response)\""
        if let qop { value += ", qop=\(qop.rawValue), nc=00000001, cnonce=\"0a4f113b\"" }
        if let opaque = digest[parameter: "opaque"] { value += ", opaque=\(AuthHeader.quote(opaque))" }
        send(&engine, value, hop: hop, target: target, exchange: 5)
    }
}

func rawChallenges(of scenario: Scenario) -> [String] {
    scenario.challenges.compactMap { if case .raw(let raw) = $0 { raw.value } else { nil } }
}

@discardableResult
func send(_ engine: inout JournaledEngine, _ value: String?, hop: Hop, target: String, exchange: Int) -> Exchange {
    let headers = value.map { [HeaderField(hop.credentialsHeader, $0)] } ?? []
    let request = Request(
        method: "GET", target: target, headers: headers, connection: ConnectionInfo(id: 1, exchange: exchange)
    )
    let journalBefore = engine.state.journal.count
    let seqBefore = engine.state.nextSeq
    var random = RandomSource.seeded(UInt64(exchange))
    let result = engine.handle(request, now: t0 + Double(exchange), random: &random)
    guard let entry = result.entry else { fatalError("no journal entry") }
    let status = result.response.status
    precondition((200...599).contains(status), "status \(status)")
    precondition(entry.status == status, "the journal says \(entry.status), the response \(status)")
    let produced = result.journalEntries.count
    precondition(
        engine.state.journal.count == min(journalBefore + produced, 100), "the journal did not grow by \(produced)"
    )
    precondition(engine.state.nextSeq == seqBefore + produced, "seq did not move by \(produced)")
    for field in result.response.headers {
        precondition(
            !field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 },
            "response header \(field.name) holds CR, LF or NUL: \(field.value.debugDescription)"
        )
    }
    // Raw challenges are sent as written and need not parse (they are hostile on purpose); every other must.
    let raw = Set(rawChallenges(of: engine.scenario))
    precondition(
        entry.hostile != nil || !result.response.headers.contains { raw.contains($0.value) },
        "a raw challenge was sent without the journal's hostile"
    )
    for name in ["WWW-Authenticate", "Proxy-Authenticate"] {
        // In one field (challenge-style: combined) the raw values are joined with the others.
        for challenge in result.response.headers.values(name)
        where !raw.contains(challenge) && (raw.isEmpty || engine.scenario.challengeStyle != .singleField) {
            do throws(AuthSyntaxError) {
                _ = try AuthHeader.parseChallenges(challenge)
            } catch {
                fatalError(
                    "the scenario makes a challenge that does not parse: \(challenge.debugDescription): \(error.reason)"
                )
            }
        }
    }
    return result
}

/// SwiftPM links this as the executable's `main`; it runs libFuzzer with the command line.
@main
enum Main {
    static func main() {
        runLibFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
    }
}
