import Foundation
import Testing

@testable import AuthMockCore

/// Who may use `/_authmock/`: the ``ControlGuard``'s rules one by one (Host, token, content type), the answers
/// it gives, and the journal entries a pair with a guard writes for the requests it refuses.
struct ControlGuardTests {
    static let token = "k3Y-for-the-control_plane.0123456789abcdef"

    /// A wildcard listener on 8080 (not loopback), as a container's `--host 0.0.0.0` makes.
    static let wide = ControlGuard(
        loopback: false, token: token, names: ["0.0.0.0", "127.0.0.1", "localhost", "::1", "10.1.2.3", "authmock"],
        listeners: [.init(port: 8080, tls: false)]
    )
    /// A loopback listener on 8080.
    static let local = ControlGuard(
        loopback: true, token: token, names: ["127.0.0.1", "localhost", "::1"], listeners: [.init(port: 8080, tls: false)]
    )

    static func request(
        _ method: String = "GET", _ target: String = "/_authmock/users", host: String? = "127.0.0.1:8080",
        bearer: String? = nil, contentType: String? = nil, headers: [HeaderField] = []
    ) -> Request {
        var fields = headers
        if let host { fields.append(HeaderField("Host", host)) }
        if let bearer { fields.append(HeaderField("Authorization", "Bearer \(bearer)")) }
        if let contentType { fields.append(HeaderField("Content-Type", contentType)) }
        return Request(
            method: method, target: target, headers: fields,
            connection: ConnectionInfo(id: 9, exchange: 1, remote: "10.9.9.9:5000")
        )
    }

    // MARK: - The token

    @Test func offLoopbackAControlRequestWithoutTheTokenIs401() {
        let refusal = Self.wide.check(Self.request())
        #expect(refusal?.reason == .tokenMissing)
        #expect(refusal?.status == 401)
        let response = Self.wide.response(to: try! #require(refusal))
        #expect(response.status == 401)
        #expect(response.headers.first("WWW-Authenticate") == #"Bearer realm="authmock-control""#)
        #expect(response.headers.first("X-Authmock-Verdict") == "control.refused")
    }

    @Test func offLoopbackAWrongTokenOrAnotherSchemeIs401() {
        let wrong = Self.wide.check(Self.request(bearer: Self.token + "x"))
        #expect(wrong?.reason == .tokenWrong)
        #expect(wrong?.status == 401)
        #expect(
            Self.wide.response(to: try! #require(wrong)).headers.first("WWW-Authenticate")
                == #"Bearer realm="authmock-control", error="invalid_token""#
        )
        let basic = Self.wide.check(Self.request(headers: [HeaderField("Authorization", "Basic YWxpY2U6eA==")]))
        #expect(basic?.reason == .tokenMissing)
        let twice = Self.wide.check(
            Self.request(bearer: Self.token, headers: [HeaderField("Authorization", "Bearer \(Self.token)")])
        )
        #expect(twice?.reason == .tokenWrong)
    }

    @Test func offLoopbackTheRightTokenIsLetThrough() {
        #expect(Self.wide.check(Self.request(bearer: Self.token)) == nil)
        #expect(Self.wide.check(Self.request(host: "authmock:8080", bearer: Self.token)) == nil)
        #expect(Self.wide.check(Self.request(host: "10.1.2.3:8080", bearer: Self.token)) == nil)
        // The scheme's name is case-insensitive (RFC 9110 §11.1).
        let lower = Self.request(headers: [HeaderField("Authorization", "bearer \(Self.token)")])
        #expect(Self.wide.check(lower) == nil)
    }

    @Test func onLoopbackTheTokenIsOptionalButAWrongOneIsRefused() {
        #expect(Self.local.check(Self.request()) == nil)
        #expect(Self.local.check(Self.request(bearer: Self.token)) == nil)
        #expect(Self.local.check(Self.request(host: "localhost:8080")) == nil)
        #expect(Self.local.check(Self.request(host: "[::1]:8080")) == nil)
        #expect(Self.local.check(Self.request(bearer: "guess")).map(\.reason) == .tokenWrong)
    }

    @Test func withoutAConfiguredTokenNothingOffLoopbackGetsIn() {
        let none = ControlGuard(loopback: false, token: nil, names: ["0.0.0.0"], listeners: [.init(port: 1, tls: false)])
        #expect(none.check(Self.request(host: "0.0.0.0:1", bearer: "")) != nil)
        #expect(none.check(Self.request(host: "0.0.0.0:1", bearer: "anything"))?.reason == .tokenWrong)
    }

    @Test func anEmptyConfiguredTokenMatchesNothing() {
        // A library caller's `controlToken: ""` must not let `Authorization: Bearer ` (nothing after it) in.
        let empty = ControlGuard(loopback: false, token: "", names: ["0.0.0.0"], listeners: [.init(port: 1, tls: false)])
        #expect(empty.check(Self.request(host: "0.0.0.0:1", bearer: "")) != nil)
        #expect(empty.check(Self.request(host: "0.0.0.0:1", headers: [HeaderField("Authorization", "Bearer ")])) != nil)
    }

    @Test func aForeignHostLearnsTheNamesOnlyOnLoopback() {
        // Host is checked before the token: off loopback the refusal must not list this machine's addresses.
        let wide = Self.wide.check(Self.request(host: "evil.example"))
        #expect(wide?.reason == .host)
        #expect(wide.map { !$0.detail.contains("10.1.2.3") } == true)
        let local = Self.local.check(Self.request(host: "evil.example"))
        #expect(local.map { $0.detail.contains("127.0.0.1:8080") } == true)
    }

    // MARK: - The content type

    @Test func aTextPlainPostIs415EvenWithTheToken() {
        let post = Self.request("POST", "/_authmock/users/alice", bearer: Self.token, contentType: "text/plain")
        let refusal = Self.wide.check(post)
        #expect(refusal?.reason == .contentType)
        #expect(refusal?.status == 415)
        #expect(Self.wide.response(to: try! #require(refusal)).headers.first("Accept-Post") == "application/json")
        // On loopback too, where no token is needed: a web page's cross-site POST is exactly this.
        let local = Self.request("POST", "/_authmock/users/alice", contentType: "text/plain")
        #expect(Self.local.check(local)?.reason == .contentType)
        #expect(Self.local.check(Self.request("POST", "/_authmock/reset"))?.reason == .contentType)
        let form = Self.request("POST", "/_authmock/reset", contentType: "application/x-www-form-urlencoded")
        #expect(Self.local.check(form)?.status == 415)
        #expect(Self.local.check(Self.request("DELETE", "/_authmock/reset"))?.status == 415)
    }

    @Test func jsonWithParametersAndGetWithoutAContentTypePass() {
        for value in ["application/json", "Application/JSON", "application/json; charset=utf-8", " application/json ;x=y"] {
            #expect(Self.local.check(Self.request("POST", "/_authmock/reset", contentType: value)) == nil, "\(value)")
        }
        #expect(Self.local.check(Self.request("POST", "/_authmock/reset", contentType: "application/jsonp")) != nil)
        #expect(Self.local.check(Self.request("GET", "/_authmock/journal")) == nil)
        #expect(Self.local.check(Self.request("HEAD", "/_authmock/")) == nil)
    }

    // MARK: - The Host

    @Test func aForeignHostIs403EvenWithTheToken() {
        let refusal = Self.wide.check(Self.request(host: "evil.example", bearer: Self.token))
        #expect(refusal?.reason == .host)
        #expect(refusal?.status == 403)
        #expect(refusal?.detail.contains("--control-host") == true)
        #expect(Self.wide.check(Self.request(host: "authmock:9999", bearer: Self.token))?.reason == .host)
        #expect(Self.wide.check(Self.request(host: nil, bearer: Self.token))?.reason == .host)
    }

    /// DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 reaches a loopback
    /// listener, but its requests name evil.example.
    @Test func aRebindingHostIsRefusedOnLoopback() {
        for host in ["evil.example:8080", "evil.example", "127.0.0.1.evil.example:8080", "localhost:8081"] {
            #expect(Self.local.check(Self.request(host: host))?.reason == .host, "\(host)")
        }
        // The Host is checked first: with a text/plain POST too, the answer is 403.
        let post = Self.request("POST", "/_authmock/users/alice", host: "evil.example:8080", contentType: "text/plain")
        #expect(Self.local.check(post)?.status == 403)
    }

    @Test func namesAreAllowedWithTheirPortsAndAloneOnDefaultPorts() {
        let hosts = ControlGuard.authorities(
            names: ["Authmock", "localhost:9000", "::1", "[fe80::1]", "10.0.0.5"],
            listeners: [.init(port: 80, tls: false), .init(port: 8443, tls: true)]
        )
        #expect(hosts.isSuperset(of: ["authmock:80", "authmock", "authmock:8443", "localhost:9000", "[::1]:8443"]))
        #expect(hosts.isSuperset(of: ["[fe80::1]:80", "[fe80::1]", "10.0.0.5:8443", "10.0.0.5"]))
        #expect(!hosts.contains("localhost:80"), "a name given with a port is allowed with that port only")
        #expect(!hosts.contains("authmock:443"))
        let tls = ControlGuard.authorities(names: ["a"], listeners: [.init(port: 443, tls: true)])
        #expect(tls == ["a:443", "a"])
    }

    // MARK: - Tokens

    @Test func tokensAre256BitsOfBase64URL() {
        var random = RandomSource.seeded(1)
        let first = ControlGuard.makeToken(using: &random), second = ControlGuard.makeToken(using: &random)
        #expect(first.count == 43)
        #expect(first != second)
        #expect(ControlGuard.isValidToken(first))
        #expect(first.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(ControlGuard.isValidToken("abc+/=="))
        #expect(!ControlGuard.isValidToken(""))
        #expect(!ControlGuard.isValidToken("two words"))
        #expect(!ControlGuard.isValidToken("a=b"))
    }

    // MARK: - In a pair: journaled refusals

    @Test func aPairWithAGuardJournalsRefusalsAndNeverTheToken() throws {
        var pair = EnginePair(scenario: try loadShipped("basic.yaml"), journalCapacity: 100, random: .seeded(1), startedAt: t0)
        pair.controlGuard = Self.wide
        let attack = Self.request("POST", "/_authmock/users/alice", contentType: "text/plain").withBody(#"{"password":"pwned"}"#)
        let refused = pair.handle(attack, now: t0)
        #expect(refused.response.status == 401)
        #expect(refused.entry?.verdict == .controlRefused)
        #expect(refused.entry?.detail?.hasPrefix("token-missing: ") == true)
        #expect(refused.entry?.status == 401)
        #expect(pair.currentUsers.first { $0.name == "alice" }?.password == "wonderland")

        let withToken = Self.request("POST", "/_authmock/users/alice", bearer: Self.token, contentType: "text/plain")
        let typed = pair.handle(withToken.withBody(#"{"password":"pwned"}"#), now: t0)
        #expect(typed.response.status == 415)
        #expect(typed.entry?.detail?.hasPrefix("content-type: ") == true)
        let line = try #require(typed.entry?.jsonLine())
        #expect(!line.contains(Self.token), "the right token never reaches the journal")
        #expect(pair.currentUsers.first { $0.name == "alice" }?.password == "wonderland")

        let rebound = pair.handle(Self.request(host: "evil.example", bearer: Self.token), now: t0)
        #expect(rebound.response.status == 403)
        #expect(rebound.entry?.detail?.hasPrefix("host: ") == true)
        // The journal page itself is behind the guard.
        #expect(pair.handle(Self.request("GET", "/_authmock/journal"), now: t0).response.status == 401)
        #expect(pair.journal.entries.map(\.verdict) == Array(repeating: .controlRefused, count: 4))

        let json = Self.request("POST", "/_authmock/users/alice", bearer: Self.token, contentType: "application/json")
        let changed = pair.handle(json.withBody(#"{"password":"rebuilt"}"#), now: t0)
        #expect(changed.response.status == 200)
        #expect(pair.currentUsers.first { $0.name == "alice" }?.password == "rebuilt")
    }

    /// The proxy's users, reached at the origin's `/_authmock/proxy/users…`, follow the same rules, checked once.
    @Test func theProxysUsersFollowTheSameRules() throws {
        var pair = EnginePair(
            scenario: try loadShipped("proxy-and-origin.yaml"), journalCapacity: 100, random: .seeded(1), startedAt: t0
        )
        pair.controlGuard = Self.wide
        #expect(pair.handle(Self.request("GET", "/_authmock/proxy/users"), now: t0).response.status == 401)
        let plain = Self.request("POST", "/_authmock/proxy/users/carrier", bearer: Self.token, contentType: "text/plain")
        #expect(pair.handle(plain.withBody(#"{"enabled": false}"#), now: t0).response.status == 415)
        let listed = pair.handle(Self.request("GET", "/_authmock/proxy/users", bearer: Self.token), now: t0)
        #expect(listed.response.status == 200)
        #expect(pair.journal.entries.map(\.verdict) == [.controlRefused, .controlRefused])
        #expect(pair.journal.entries.allSatisfy { $0.hop == nil }, "refused at the origin, where they arrived")
    }
}
