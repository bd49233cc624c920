import AuthMockCore
import Foundation
import FuzzDriver

// The SOCKS5 handshake (RFC 1928 greeting and request, RFC 1929 username/password) as SOCKS5Session plays
// it. The first byte picks the listener's settings (methods, fault), the second how the rest is cut into
// reads (1 to 64 bytes each, or all at once), the rest is what the client sends.
//
// Invariants: every reply is one the protocol allows at that point (a method selection `05 XX`, an auth
// status `01 00`/`01 01`, a 10-byte request reply `05 REP 00 01 …`); a handshake ends at most once, with an
// outcome, and the session then takes no more bytes; a tunnel opens only with socks5.ok to a loopback
// target on an origin port (REP 0), never after a refused password; an ending's journal entry round-trips
// through JSON; a connection that closes before the end is journaled as socks5.truncated.

let users = [SOCKS5User(name: "mole", password: "tunnel")]
let methodChoices: [[SOCKS5Method]] = [
    [.usernamePassword], [.none], [.none, .usernamePassword], [.usernamePassword, .none],
]
let faults: [SOCKS5Fault?] = [nil, nil, nil, nil] + SOCKS5Fault.allCases.map { $0 }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 2 else { return 0 }
    let settings = SOCKS5Settings(
        methods: methodChoices[Int(data[0]) % methodChoices.count], users: users,
        fault: faults[Int(data[0] >> 2) % faults.count]
    )
    let chunk = Int(data[1]) % 65
    let bytes = Array(UnsafeBufferPointer(start: data + 2, count: size - 2))
    var session = SOCKS5Session(settings: settings)
    var replies: [UInt8] = []
    var ending: SOCKS5Step?
    var offset = 0
    repeat {
        let end = chunk == 0 ? bytes.count : min(bytes.count, offset + chunk)
        let step = session.receive(bytes[offset..<end]) { $0.port == 8080 }
        offset = end
        if ending != nil {
            precondition(step.reply.isEmpty && step.action == .wait && step.outcome == nil, "bytes taken after the end")
            continue
        }
        replies += step.reply
        precondition((step.outcome != nil) == (step.action != .wait), "an ending without an outcome: \(step)")
        if step.outcome != nil {
            precondition(session.isDone, "an outcome but the session goes on")
            ending = step
        }
    } while offset < bytes.count
    checkReplies(replies, settings: settings)
    guard let ending, let outcome = ending.outcome else {
        precondition(!session.isDone, "done without an outcome")
        let closed = session.closed()
        precondition(
            closed?.verdict == .socks5Truncated, "a close mid-handshake journaled as \(String(describing: closed))"
        )
        precondition(session.closed() == nil, "journaled twice")
        return 0
    }
    precondition(session.closed() == nil, "a closed connection journaled after the ending")
    if case .tunnel(let target, _) = ending.action {
        precondition(outcome.verdict == .socks5OK, "a tunnel judged \(outcome.verdict)")
        precondition(target.isLoopback && target.port == 8080, "a tunnel to \(target.authority)")
        precondition(outcome.facts.reply == 0 && replies.suffix(10).prefix(2) == [0x05, 0x00], "REP of a tunnel")
        if settings.methods.first(where: { outcome.facts.method == $0.rawValue }) == .usernamePassword {
            precondition(outcome.user == "mole" && outcome.password == "tunnel", "a tunnel without the password")
        }
    } else {
        precondition(outcome.verdict != .socks5OK, "socks5.ok without a tunnel")
    }
    let entry = JournalEntry(socks5: outcome, connection: ConnectionInfo(id: 1, exchange: 1), time: Date())
    let decoded = try? JSONDecoder().decode(JournalEntry.self, from: Data(entry.jsonLine().utf8))
    precondition(decoded?.verdict == entry.verdict && decoded?.socks5 == entry.socks5, "the entry does not round-trip")
    return 0
}

/// The replies in order: a method selection, then (username/password) an auth status, then a request reply.
func checkReplies(_ replies: [UInt8], settings: SOCKS5Settings) {
    var rest = replies[...]
    guard !rest.isEmpty else { return }
    precondition(rest.count >= 2 && rest.first == 0x05, "not a method selection: \(Array(rest.prefix(2)))")
    let method = rest[rest.startIndex + 1]
    precondition(method == 0xFF || settings.methods.contains { $0.code == method }, "method \(method) not offered")
    rest = rest.dropFirst(2)
    if method == 0x02, !rest.isEmpty {
        precondition(rest.count >= 2 && rest.first == 0x01, "not an auth status: \(Array(rest.prefix(2)))")
        precondition([0x00, 0x01].contains(rest[rest.startIndex + 1]), "auth status \(rest[rest.startIndex + 1])")
        let failed = rest[rest.startIndex + 1] != 0
        rest = rest.dropFirst(2)
        precondition(!failed || rest.isEmpty, "a reply after a refused password")
    }
    guard !rest.isEmpty else { return }
    precondition(method != 0xFF, "a reply after X'FF'")
    precondition(
        rest.count == 10 && rest.first == 0x05 && rest.dropFirst(2).first == 0x00, "request reply \(Array(rest))"
    )
    precondition([0, 1, 2, 7, 8].contains(rest[rest.startIndex + 1]), "REP \(rest[rest.startIndex + 1])")
}

/// SwiftPM links this as the executable's `main`; it runs libFuzzer with the command line.
@main
enum Main {
    static func main() {
        runLibFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
    }
}
