@testable import AuthMockCore
import Foundation
import Testing

/// The SOCKS5 handshake (RFC 1928, RFC 1929) as the pure ``SOCKS5Session`` plays it: every reply code, the
/// verdict each ending is journaled with, and the `socks5:` section's reader.
@Suite
struct SOCKS5Tests {
    static let users = [SOCKS5User(name: "mole", password: "tunnel")]
    static let greeting: [UInt8] = [0x05, 0x01, 0x02]
    static let login: [UInt8] = [0x01, 0x04] + Array("mole".utf8) + [0x06] + Array("tunnel".utf8)

    /// A CONNECT to `host` (a domain name) on port 8080.
    static func connect(domain host: String, port: Int = 8080, command: UInt8 = 0x01) -> [UInt8] {
        [0x05, command, 0x00, 0x03, UInt8(host.utf8.count)] + Array(host.utf8) + [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    static func session(_ settings: SOCKS5Settings = SOCKS5Settings(users: users)) -> SOCKS5Session {
        SOCKS5Session(settings: settings)
    }

    /// Port 8080 is the scenario's origin; nothing else is.
    static func feed(_ session: inout SOCKS5Session, _ bytes: [UInt8]) -> SOCKS5Step {
        session.receive(bytes) { $0.port == 8080 }
    }

    @Test func usernamePasswordThenConnectOpensATunnel() throws {
        var session = Self.session()
        var step = Self.feed(&session, Self.greeting)
        #expect(step.reply == [0x05, 0x02])
        #expect(step.action == .wait)
        step = Self.feed(&session, Self.login)
        #expect(step.reply == [0x01, 0x00])
        #expect(step.outcome == nil)
        step = Self.feed(&session, Self.connect(domain: "localhost") + Array("GET / HTTP/1.1\r\n".utf8))
        #expect(step.reply == [0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0x1F, 0x90])
        let target = SOCKS5Target(host: "localhost", port: 8080, addressType: .domain)
        #expect(step.action == .tunnel(target, leftover: Array("GET / HTTP/1.1\r\n".utf8)))
        let outcome = try #require(step.outcome)
        #expect(outcome.verdict == .socks5OK)
        #expect(outcome.user == "mole" && outcome.password == "tunnel")
        #expect(outcome.facts.methods == ["username-password"])
        #expect(outcome.facts.method == "username-password")
        #expect(outcome.facts.address == "domain")
        #expect(outcome.facts.reply == 0)
        #expect(session.isDone)
    }

    /// Greeting, credentials and request in one write, split at every byte: the same answers.
    @Test func everySplitOfTheHandshakeGivesTheSameAnswer() {
        let all = Self.greeting + Self.login + Self.connect(domain: "127.0.0.1")
        for cut in 0...all.count {
            var session = Self.session()
            let first = Self.feed(&session, Array(all[..<cut]))
            let second = Self.feed(&session, Array(all[cut...]))
            #expect(first.reply + second.reply == [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(0, port: 8080))
            #expect((first.outcome ?? second.outcome)?.verdict == .socks5OK)
        }
    }

    @Test func anIPv4AndAnIPv6AddressAreRecordedAsTheClientResolvedThem() throws {
        var session = Self.session(SOCKS5Settings(methods: [.none], users: []))
        let selected = Self.feed(&session, [0x05, 0x01, 0x00])
        #expect(selected.reply == [0x05, 0x00])
        let first = Self.feed(&session, [0x05, 0x01, 0x00, 0x01, 127, 0, 0, 1, 0x1F, 0x90])
        let v4 = try #require(first.outcome)
        #expect(v4.facts.address == "ipv4" && v4.target?.authority == "127.0.0.1:8080" && v4.user == nil)
        var six = Self.session(SOCKS5Settings(methods: [.none], users: []))
        _ = Self.feed(&six, [0x05, 0x01, 0x00])
        let loopback: [UInt8] = Array(repeating: 0, count: 15) + [1]
        let second = Self.feed(&six, [0x05, 0x01, 0x00, 0x04] + loopback + [0x1F, 0x90])
        let v6 = try #require(second.outcome)
        #expect(v6.verdict == .socks5OK && v6.target?.authority == "[::1]:8080" && v6.facts.address == "ipv6")
    }

    /// Each refusal: the bytes sent, the verdict, and the connection closed.
    @Test(arguments: [
        // SOCKS4's version byte: X'FF', closed.
        ([0x04, 0x01, 0x00, 0x50], [0x05, 0xFF], Verdict.socks5BadVersion),
        ([0x07, 0x01, 0x02], [0x05, 0xFF], .socks5BadVersion),
        // No method the server takes (it takes username/password only), or none at all.
        ([0x05, 0x01, 0x00], [0x05, 0xFF], .socks5NoAcceptableMethod),
        ([0x05, 0x00], [0x05, 0xFF], .socks5NoAcceptableMethod),
        // RFC 1929: a wrong sub-negotiation version, an empty username, a wrong password, an unknown user.
        (greeting + [0x02, 0x01, 0x41, 0x01, 0x41], [0x05, 0x02, 0x01, 0x01], .socks5BadVersion),
        (greeting + [0x01, 0x00, 0x01, 0x41], [0x05, 0x02, 0x01, 0x01], .socks5BadUsername),
        (greeting + [0x01, 0x04] + Array("mole".utf8) + [0x05] + Array("wrong".utf8), [0x05, 0x02, 0x01, 0x01],
            .socks5BadPassword),
        (greeting + [0x01, 0x04] + Array("vole".utf8) + [0x06] + Array("tunnel".utf8), [0x05, 0x02, 0x01, 0x01],
            .socks5UnknownUser),
        // A 300-byte username behind a length byte of 44: the rest is no SOCKS5 request.
        (greeting + [0x01, 44] + Array(repeating: 0x75, count: 300) + [0x01, 0x70], [0x05, 0x02, 0x01, 0x01],
            .socks5BadUsername),
        // The request: BIND (7), UDP ASSOCIATE (7), an unknown address type (8), an empty name (1), a
        // target elsewhere (2), a wrong version (1).
        (greeting + login + connect(domain: "localhost", command: 0x02), [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(7),
            .socks5CommandNotSupported),
        (greeting + login + connect(domain: "localhost", command: 0x03), [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(7),
            .socks5CommandNotSupported),
        (greeting + login + [0x05, 0x01, 0x00, 0x09], [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(8),
            .socks5AddressTypeNotSupported),
        (greeting + login + [0x05, 0x01, 0x00, 0x03, 0x00, 0x1F, 0x90], [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(1),
            .socks5Malformed),
        (greeting + login + connect(domain: "example.com"), [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(2),
            .socks5TargetRefused),
        (greeting + login + connect(domain: "localhost", port: 9999), [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(2),
            .socks5TargetRefused),
    ] as [([UInt8], [UInt8], Verdict)])
    func refusalsAnswerTheFailureCodeAndClose(input: [UInt8], reply: [UInt8], verdict: Verdict) throws {
        var session = Self.session()
        let step = Self.feed(&session, input)
        #expect(step.reply == reply)
        #expect(step.action == .close)
        #expect(step.outcome?.verdict == verdict)
        #expect(session.isDone)
        let again = session.closed()
        #expect(again == nil, "journaled once")
    }

    /// A request with another version byte, after the credentials were answered: REP 1. (Sent in the same
    /// write as the credentials, bytes that are not a SOCKS5 request make the username's length suspect.)
    @Test func aRequestWithAnotherVersionIsAGeneralFailure() {
        var session = Self.session()
        let authenticated = Self.feed(&session, Self.greeting + Self.login)
        #expect(authenticated.reply == [0x05, 0x02, 0x01, 0x00])
        let step = Self.feed(&session, [0x04, 0x01, 0x00, 0x01])
        #expect(step.reply == SOCKS5Session.reply(1) && step.action == .close)
        #expect(step.outcome?.verdict == .socks5BadVersion && step.outcome?.facts.reply == 1)
        var pipelined = Self.session()
        let together = Self.feed(&pipelined, Self.greeting + Self.login + [0x04, 0x01, 0x00, 0x01])
        #expect(together.outcome?.verdict == .socks5BadUsername)
    }

    @Test func aTruncatedGreetingIsJournaledWhenTheClientCloses() throws {
        var session = Self.session()
        let step = Self.feed(&session, [0x05, 0x03, 0x00])
        #expect(step == SOCKS5Step(reply: [], action: .wait, outcome: nil))
        let closed = session.closed()
        let outcome = try #require(closed)
        #expect(outcome.verdict == .socks5Truncated)
        #expect(outcome.detail == "the client closed the connection after 3 byte(s) of the greeting")
        var silent = Self.session()
        let timedOut = silent.timedOut(after: 10)
        #expect(timedOut?.verdict == .socks5Timeout)
        let afterwards = silent.closed()
        #expect(afterwards == nil)
    }

    @Test func faults() throws {
        for (fault, input, reply, verdict) in [
            (SOCKS5Fault.noAcceptableMethod, Self.greeting, [0x05, 0xFF], Verdict.socks5NoAcceptableMethod),
            (.closeAfterGreeting, Self.greeting, [], .socks5Fault),
            (.closeAfterAuth, Self.greeting + Self.login, [0x05, 0x02], .socks5Fault),
            (.generalFailure, Self.greeting + Self.login + Self.connect(domain: "localhost"),
                [0x05, 0x02, 0x01, 0x00] + SOCKS5Session.reply(1), .socks5Fault),
        ] as [(SOCKS5Fault, [UInt8], [UInt8], Verdict)] {
            var session = Self.session(SOCKS5Settings(users: Self.users, fault: fault))
            let step = Self.feed(&session, input)
            #expect(step.reply == reply, "\(fault)")
            #expect(step.action == .close)
            #expect(step.outcome?.verdict == verdict)
            #expect(step.outcome?.fault == fault)
        }
    }

    /// Both methods offered and taken: the server's order of preference decides.
    @Test func theServersOrderOfPreferenceDecides() {
        var open = Self.session(SOCKS5Settings(methods: [.none, .usernamePassword], users: Self.users))
        let openReply = Self.feed(&open, [0x05, 0x02, 0x00, 0x02]).reply
        #expect(openReply == [0x05, 0x00])
        var guarded = Self.session(SOCKS5Settings(methods: [.usernamePassword, .none], users: Self.users))
        let guardedReply = Self.feed(&guarded, [0x05, 0x02, 0x00, 0x02]).reply
        #expect(guardedReply == [0x05, 0x02])
    }

    @Test func theJournalEntryCarriesTheHopAndTheFacts() throws {
        var session = Self.session()
        let step = Self.feed(&session, Self.greeting + Self.login + Self.connect(domain: "localhost"))
        let outcome = try #require(step.outcome)
        let entry = JournalEntry(
            socks5: outcome, connection: ConnectionInfo(id: 3, exchange: 0, remote: "127.0.0.1:5000"),
            time: Date(timeIntervalSince1970: 0)
        )
        let json = entry.jsonLine()
        #expect(json.contains(#""hop":"socks5""#))
        #expect(json.contains(#""socks5":{"address":"domain","auth_status":0,"command":"connect","method":"username-password""#))
        #expect(json.contains(#""target":"localhost:8080""#) && json.contains(#""verdict":"socks5.ok""#))
        let decoded = try JSONDecoder().decode(JournalEntry.self, from: Data(json.utf8))
        #expect(decoded == entry)
        #expect(!entry.isExchange, "status 0: not an HTTP exchange")
    }

    @Test func theSectionIsReadStrictly() throws {
        let scenario = try load("""
            version: 1
            name: x
            users: []
            challenges: []
            resources: [{path: /, protected: false}]
            socks5:
              methods: [none, username-password]
              users: [{name: mole, password: tunnel}]
              fault: close-after-auth
            """)
        #expect(scenario.socks5 == SOCKS5Settings(methods: [.none, .usernamePassword], users: Self.users, fault: .closeAfterAuth))
        #expect(try load("version: 1\nname: x\nchallenges: []\nresources: [{path: /, protected: false}]\n").socks5 == nil)
        let found = diagnostics("""
            version: 1
            name: x
            users: []
            challenges: []
            resources: [{path: /, protected: false}]
            socks5:
              methods: [gssapi]
              users: [{name: mole}]
              fault: explode
              port: 1080
            """)
        #expect(found.contains { $0.hasPrefix("bad.yaml:7:13: socks5 method 'gssapi' is not known") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:8:11: a socks5 user has no 'password'") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:9:10: socks5.fault 'explode' is not known") }, "\(found)")
        #expect(found.contains { $0.hasPrefix("bad.yaml:10:3: unknown key 'port' in socks5") }, "\(found)")
        let noUsers = diagnostics("version: 1\nname: x\nchallenges: []\nresources: [{path: /, protected: false}]\nsocks5: {methods: [username-password]}\n")
        #expect(noUsers.contains { $0.contains("socks5 takes username-password but has no users") }, "\(noUsers)")
    }
}
