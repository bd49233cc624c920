import AuthMockCore
import FuzzDriver
import FuzzSupport
import Foundation

// The first byte of an input says what the rest of it is and where it goes (any byte value selects one
// of eight targets, by its value modulo 8; the seeds use the digits '0' to '7', and '8' to '?' for the
// same targets on a second connection). One exchange path per input keeps each run short, so a bounded
// run reaches millions of inputs; libFuzzer mutates the selector like any other byte.
//
// - '0' origin, '1' legacy, '2' proxy: the rest is text, each line (up to four) the value of one
//   request's `Authorization` header (`Proxy-Authorization` for the proxy), sent in turn on one
//   connection, so that multi-leg handshakes and timelines are reached. Digest placeholders let a seed
//   reach the checks behind a correct response: `{realm}` becomes the engine's realm, `{nonce}` and
//   `{opaque}` the ones it issued (for the `algorithm=` the line names), `{userhash}` alice's userhash,
//   and `{response}` the response a correct client computes from the line's own parameters.
// - '3' to '7': the rest is bytes, base64-encoded into the token that answers a real CHALLENGE: '3' NTLM
//   on the origin (Unicode), '4' NTLM on the legacy origin (OEM), '5' Negotiate on the origin (the
//   SPNEGO token as it is), '6' NTLM on the proxy (OEM), '7' Negotiate on the origin with the bytes
//   wrapped in a NegTokenResp; so the message parsers are reached past base64. With bit 3 set ('8' to
//   '?'), the token arrives on another connection than the one its CHALLENGE was sent on.
//
// Whatever the selector, the rest also goes to `AuthHeader.parseCredentials` and `parseChallenges`, which
// must round-trip what they accept.
//
// Invariants (a violation is a crash for libFuzzer): every request yields one journal entry (the
// journal and the sequence grow by the entries the exchange reports), the status is one the hop can
// give, the verdict header names the entry's verdict, a challenge status carries challenges that parse,
// a 200 names the user, no response header holds CR, LF or NUL, and the entry encodes as JSON.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = Int(data[0])
    let rest = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    fuzzHeaderParsers(rest)
    switch selector % 8 {
    case 0...2: fuzzEngine(engines[selector % 8], lines: rest)
    case let token: fuzzToken(challenged[token - 3], rest, otherConnection: selector & 8 != 0)
    }
    return 0
}

// MARK: - Invariants

/// The statuses an engine of this hop may answer "/" (or the proxy's "*") with.
func allowedStatuses(_ hop: Hop) -> Set<Int> {
    hop == .proxy ? [200, 400, 403, 407] : [200, 400, 401, 403]
}

/// Handles one request and checks what every exchange must satisfy.
@discardableResult
func send(
    _ engine: inout JournaledEngine, value: String?, hop: Hop, method: String = "GET", target: String = "/",
    connection: UInt64 = 1, exchange: Int, now: Date
) -> Exchange {
    let headers = value.map { [HeaderField(hop.credentialsHeader, $0)] } ?? []
    let request = Request(
        method: method, target: target, headers: headers,
        connection: ConnectionInfo(id: connection, exchange: exchange, remote: "127.0.0.1:40000")
    )
    let journalBefore = engine.state.journal.count
    let seqBefore = engine.state.nextSeq
    var random = RandomSource.seeded(UInt64(exchange))
    let result = engine.handle(request, now: now, random: &random)

    guard let entry = result.entry else { fatalError("no journal entry for a request with \(value.debugDescription)") }
    let status = result.response.status
    precondition(
        allowedStatuses(hop).contains(status), "status \(status) (\(entry.verdict)) for \(value.debugDescription)"
    )
    precondition(entry.status == status, "the journal says \(entry.status), the response \(status)")
    let produced = result.journalEntries.count
    precondition(produced >= 1 && result.journalEntries.contains(entry), "the exchange does not list its own entry")
    precondition(
        engine.state.journal.count == journalBefore + produced,
        "the journal grew by \(engine.state.journal.count - journalBefore), not \(produced)"
    )
    precondition(
        engine.state.nextSeq == seqBefore + produced,
        "seq moved from \(seqBefore) to \(engine.state.nextSeq) for \(produced) entries"
    )
    precondition(
        (seqBefore..<seqBefore + produced).contains(entry.seq),
        "entry seq \(entry.seq) outside \(seqBefore)..<\(seqBefore + produced)"
    )
    precondition(
        result.response.headers.first("X-Authmock-Verdict") == entry.verdict.rawValue,
        "verdict header differs from the journal"
    )
    checkAnswer(result, entry: entry, hop: hop)
    do {
        _ = try JSONEncoder().encode(entry)
    } catch {
        fatalError("the journal entry does not encode: \(error)")
    }
    return result
}

/// What every answer must satisfy beyond its journal entry: no header holds CR, LF or NUL, a challenge status
/// carries challenges that parse and a 400 none, and a 200 names a user of the scenario.
func checkAnswer(_ result: Exchange, entry: JournalEntry, hop: Hop) {
    let status = result.response.status
    for field in result.response.headers {
        precondition(
            !field.value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 },
            "response header \(field.name) holds CR, LF or NUL: \(field.value.debugDescription)"
        )
    }
    let challengeHeader = status == 401 ? "WWW-Authenticate" : "Proxy-Authenticate"
    let challenges = result.response.headers.values(challengeHeader)
    if status == hop.challengeStatus {
        precondition(!challenges.isEmpty, "\(status) without \(challengeHeader) (\(entry.verdict))")
        for challenge in challenges {
            do throws(AuthSyntaxError) {
                _ = try AuthHeader.parseChallenges(challenge)
            } catch {
                fatalError(
                    "the engine sent a challenge it cannot parse: \(challenge.debugDescription): \(error.reason)"
                )
            }
        }
    }
    if status == 400 {
        precondition(challenges.isEmpty, "a 400 carries a challenge")
    }
    if status == 200 {
        precondition(
            result.authenticatedUser != nil,
            "200 on a protected resource without an authenticated user (\(entry.verdict))"
        )
    }
    if let user = result.authenticatedUser {
        precondition(passwords[user] != nil, "authenticated as '\(user)', who is not a user")
    }
}

// MARK: - Header parsers

func fuzzHeaderParsers(_ bytes: [UInt8]) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let credentials = try? AuthHeader.parseCredentials(text) {
        precondition(!credentials.scheme.isEmpty, "credentials without a scheme")
        precondition(credentials.token68 == nil || credentials.parameters.isEmpty, "both a token68 and parameters")
        let again = try? AuthHeader.parseCredentials(credentials.rendered)
        precondition(
            again == credentials,
            "credentials do not round-trip: \(text.debugDescription) -> \(credentials.rendered.debugDescription) "
                + "-> \(String(describing: again))"
        )
    }
    if let challenges = try? AuthHeader.parseChallenges(text) {
        precondition(!challenges.isEmpty, "an empty challenge list was accepted")
        let rendered = challenges.map(\.rendered).joined(separator: ", ")
        let again = try? AuthHeader.parseChallenges(rendered)
        precondition(
            again == challenges,
            "challenges do not round-trip: \(text.debugDescription) -> \(rendered.debugDescription) "
                + "-> \(String(describing: again))"
        )
    }
    fuzzCookieField(text)
}

/// A `Cookie` field as the journal reads it (its `cookies`): no pair keeps a ';' or blanks around it, and a
/// cookie made of each pair is found again, by its name, in the field it came from.
func fuzzCookieField(_ text: String) {
    let pairs = SetCookie.pairs(inCookieFields: [text])
    let blanks = CharacterSet(charactersIn: " \t")
    for pair in pairs {
        precondition(
            !pair.name.contains(";") && !pair.value.contains(";")
                && pair.name == pair.name.trimmingCharacters(in: blanks)
                && pair.value == pair.value.trimmingCharacters(in: blanks),
            "a cookie pair kept a ';' or blanks: \(text.debugDescription)"
        )
    }
    let cookies = pairs.map { SetCookie(name: $0.name, value: $0.value) }
    var names: [String] = []
    for cookie in cookies where !names.contains(cookie.name) { names.append(cookie.name) }
    let returned = SetCookie.returned(cookies, inCookieFields: [text])
    precondition(returned == names, "cookies \(names) read from \(text.debugDescription) came back as \(returned)")
}

// MARK: - Engines, one header value per line

func fuzzEngine(_ prepared: Prepared, lines bytes: [UInt8]) {
    let lines = bytes.split(separator: UInt8(ascii: "\n"), maxSplits: 4, omittingEmptySubsequences: false).prefix(4)
    var engine = prepared.engine
    for (index, line) in lines.enumerated() {
        var value = String(decoding: line, as: UTF8.self)
        if value.hasSuffix("\r") { value.removeLast() }
        value = prepared.fillDigestPlaceholders(value)
        // 20 s apart: the third request finds a 30-second nonce expired.
        send(
            &engine, value: value, hop: prepared.hop, method: prepared.method, target: prepared.target,
            exchange: index + 2, now: t0 + Double(20 * index)
        )
    }
}

// MARK: - NTLM and SPNEGO tokens

func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> ($0 * 8)) } }

/// A NEGOTIATE (type 1) with these flags.
func ntlmNegotiate(flags: UInt32) -> [UInt8] {
    Array("NTLMSSP".utf8) + [0] + le32(1) + le32(flags) + [UInt8](repeating: 0, count: 16)
}

/// Unicode | RequestTarget | NTLM | ExtendedSessionSecurity, and the same with OEM instead of Unicode.
let unicodeFlags: UInt32 = 0x0008_0205
let oemFlags: UInt32 = 0x0008_0206

func der(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
    switch value.count {
    case ..<0x80: return [tag, UInt8(value.count)] + value
    case ..<0x100: return [tag, 0x81, UInt8(value.count)] + value
    default: return [tag, 0x82, UInt8(value.count >> 8), UInt8(value.count & 0xFF)] + value
    }
}

let spnegoOID: [UInt8] = [0x2B, 0x06, 0x01, 0x05, 0x05, 0x02]
let ntlmOID: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0A]

/// NegTokenInit proposing NTLM with an optimistic NEGOTIATE.
func negTokenInit(_ mechToken: [UInt8]) -> [UInt8] {
    let fields = der(0xA0, der(0x30, der(0x06, ntlmOID))) + der(0xA2, der(0x04, mechToken))
    return der(0x60, der(0x06, spnegoOID) + der(0xA0, der(0x30, fields)))
}

/// NegTokenResp carrying `token`.
func negTokenResp(_ token: [UInt8]) -> [UInt8] {
    der(0xA1, der(0x30, der(0xA2, der(0x04, token))))
}

/// An engine whose connection 1 received a CHALLENGE, and the scheme that sent it.
struct Challenged: Sendable {
    var engine: JournaledEngine
    var scheme: String

    init(_ prepared: Prepared, scheme: String, token: [UInt8]) {
        engine = prepared.engine
        self.scheme = scheme
        let answer = send(
            &engine, value: "\(scheme) \(Data(token).base64EncodedString())", hop: prepared.hop,
            method: prepared.method, target: prepared.target, exchange: 2, now: t0
        )
        precondition(
            answer.response.status == prepared.hop.challengeStatus && answer.entry?.verdict == .ntlmNegotiate,
            "no CHALLENGE: \(String(describing: answer.entry))"
        )
    }
}

/// What selectors '3' to '7' answer: the engine that sent a CHALLENGE, the engine it was prepared from, and
/// whether the bytes are wrapped in a NegTokenResp.
let challenged: [(state: Challenged, prepared: Prepared, wrap: Bool)] = [
    (Challenged(engines[0], scheme: "NTLM", token: ntlmNegotiate(flags: unicodeFlags)), engines[0], false),
    (Challenged(engines[1], scheme: "NTLM", token: ntlmNegotiate(flags: oemFlags)), engines[1], false),
    (
        Challenged(engines[0], scheme: "Negotiate", token: negTokenInit(ntlmNegotiate(flags: unicodeFlags))),
        engines[0], false
    ),
    (Challenged(engines[2], scheme: "NTLM", token: ntlmNegotiate(flags: oemFlags)), engines[2], false),
    (
        Challenged(engines[0], scheme: "Negotiate", token: negTokenInit(ntlmNegotiate(flags: unicodeFlags))),
        engines[0], true
    ),
]

/// Answers the CHALLENGE with `bytes` as the token: on connection 1, which it was sent on, or on another.
func fuzzToken(_ target: (state: Challenged, prepared: Prepared, wrap: Bool), _ bytes: [UInt8], otherConnection: Bool) {
    var engine = target.state.engine
    let token = Data(target.wrap ? negTokenResp(bytes) : bytes).base64EncodedString()
    let prepared = target.prepared
    send(
        &engine, value: "\(target.state.scheme) \(token)", hop: prepared.hop, method: prepared.method,
        target: prepared.target, connection: otherConnection ? 2 : 1, exchange: otherConnection ? 1 : 3, now: t0
    )
}

/// SwiftPM links this as the executable's `main`; it runs libFuzzer with the command line.
@main
enum Main {
    static func main() {
        runLibFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
    }
}
