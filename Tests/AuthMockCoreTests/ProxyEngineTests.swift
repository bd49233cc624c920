import Testing
import Foundation
@testable import AuthMockCore

struct ProxyEngineTests {
    /// CONNECT's authority-form and a GET's absolute-form give the host, the port (80 when none is written) and
    /// the origin-form to forward (`/` when the path is empty, the query kept); all of these are loopback.
    @Test(arguments: [
        ("CONNECT", "localhost:8443", "localhost", 8443, true, ""),
        ("CONNECT", "[::1]:443", "::1", 443, true, ""),
        ("GET", "http://127.0.0.1:8080/a?b=c", "127.0.0.1", 8080, false, "/a?b=c"),
        ("GET", "http://localhost", "localhost", 80, false, "/"),
        ("POST", "http://localhost:81?x", "localhost", 81, false, "/?x"),
    ])
    func targets(method: String, target: String, host: String, port: Int, isConnect: Bool, originForm: String) throws {
        let parsed = try ProxyTarget.parse(method: method, target: target)
        #expect(parsed == ProxyTarget(host: host, port: port, isConnect: isConnect, originForm: originForm))
        #expect(parsed.isLoopback)
    }

    /// A proxy target without a port, with port 0 or 99999, userinfo, an unclosed bracket, origin-form, https or
    /// a space is refused with 400; an overlong target with 414.
    @Test(arguments: [
        ("CONNECT", "", 400), ("CONNECT", "localhost", 400), ("CONNECT", "localhost:0", 400), ("CONNECT", "localhost:99999", 400),
        ("CONNECT", "user@localhost:443", 400), ("CONNECT", "[::1:443", 400), ("GET", "/relative", 400), ("GET", "https://localhost/", 400),
        ("CONNECT", "a" + String(repeating: "b", count: 5000) + ":443", 414), ("GET", "http://ho st/", 400),
    ])
    func badTargets(method: String, target: String, status: Int) {
        #expect(throws: ProxyTargetError.self) { try ProxyTarget.parse(method: method, target: target) }
        #expect((try? ProxyTarget.parse(method: method, target: target)) == nil)
        do { _ = try ProxyTarget.parse(method: method, target: target) } catch { #expect(error.status == status) }
    }

    /// A port is digits only (RFC 3986 §3.2.3); `Int(_:)` alone also took a sign. Found by
    /// FuzzProxyTarget: `CONNECT ::+4` went to port 4.
    @Test(arguments: [("CONNECT", "::+4"), ("CONNECT", "localhost:+443"), ("CONNECT", "[::1]:+443"), ("GET", "http://localhost:+80/")])
    func signedPortRefused(method: String, target: String) {
        do throws(ProxyTargetError) {
            let parsed = try ProxyTarget.parse(method: method, target: target)
            Issue.record("\(method) \(target) was accepted as port \(parsed.port)")
        } catch {
            #expect(error.status == 400)
            #expect(error.reason.hasPrefix("bad port"))
        }
    }

    /// Delimiters are found byte by byte, and a host is ASCII (RFC 3986). As Characters, a combining
    /// mark joined the '[' before it, so a host that parsed bare did not parse in brackets. Found by
    /// FuzzProxyTarget: `CONNECT \u{05B9}:::::::3` was accepted, `[\u{05B9}::::::]:3` refused.
    @Test(arguments: ["\u{05B9}:::::::3", "[\u{05B9}::::::]:3", "b\u{00FC}cher.example:443", "[::1]\u{0301}:443", "localhost:\u{0663}"])
    func nonASCIIAuthorityRefused(target: String) {
        #expect((try? ProxyTarget.parse(method: "CONNECT", target: target)) == nil)
        #expect((try? ProxyTarget.parse(method: "GET", target: "http://\(target)/")) == nil)
    }

    /// Absolute-form is recognised and split on bytes too: a combining mark after '?' keeps the query.
    @Test func absoluteFormSplitsOnBytes() throws {
        let parsed = try ProxyTarget.parse(method: "GET", target: "HTTP://localhost:81?\u{0301}x")
        #expect(parsed == ProxyTarget(host: "localhost", port: 81, isConnect: false, originForm: "/?\u{0301}x"))
    }

    /// A documentation address (192.0.2.1) and a public name are not loopback; any address in 127/8 is.
    @Test(arguments: [("192.0.2.1:443", false), ("example.com:443", false), ("127.1.2.3:443", true)])
    func loopbackOnly(target: String, isLoopback: Bool) throws {
        #expect(try ProxyTarget.parse(method: "CONNECT", target: target).isLoopback == isLoopback)
    }

    /// The proxy hop: 407 with Proxy-Authenticate, credentials from Proxy-Authorization.
    @Test func proxyRole() throws {
        let scenario = try loadShipped("proxy-and-origin.yaml")
        var random = RandomSource.seeded(3)
        var proxy = Engine(scenario: try #require(scenario.proxyScenario), configuration: .init(hop: .proxy), random: &random)
        var journal = JournalLog()
        let challenged = proxy.handle(Request(method: "GET", target: "http://127.0.0.1:1/"), now: t0, random: &random, journal: &journal)
        #expect(challenged.response.status == 407)
        #expect(challenged.response.headers.values("Proxy-Authenticate").count == 2)
        #expect(challenged.response.headers.values("WWW-Authenticate").isEmpty)
        #expect(challenged.entry?.hop == .proxy)
        let credentials = "Basic " + Data("carrier:pigeon".utf8).base64EncodedString()
        let wrongHeader = proxy.handle(Request(method: "GET", target: "http://127.0.0.1:1/", headers: [HeaderField("Authorization", credentials)]), now: t0, random: &random, journal: &journal)
        #expect(wrongHeader.response.status == 407, "origin credentials do not authenticate to the proxy")
    }

    /// Leaks: Proxy-Authorization at the origin; Authorization on a CONNECT to the proxy.
    @Test func leaks() {
        let toOrigin = Request(method: "GET", target: "/", headers: [HeaderField("Proxy-Authorization", "Basic eA==")])
        #expect(Engine.leaks(in: toOrigin, hop: .origin) == ["Proxy-Authorization reached the origin"])
        let connect = Request(method: "CONNECT", target: "localhost:1", headers: [HeaderField("Authorization", "Basic eA==")])
        #expect(Engine.leaks(in: connect, hop: .proxy) == ["Authorization (origin credentials) was sent to the proxy on CONNECT"])
        let absolute = Request(method: "GET", target: "http://localhost:1/", headers: [HeaderField("Authorization", "Basic eA==")])
        #expect(Engine.leaks(in: absolute, hop: .proxy) == nil, "absolute-form requests carry origin credentials on purpose")
    }

    /// The origin's user and password in the proxy's own header (aiohttp 3.14 turns a session's default
    /// Authorization into Proxy-Authorization) is a leak; the proxy's own user, or a wrong password, is not.
    @Test func originCredentialsAtTheProxy() throws {
        let alice = User(name: "alice", password: "wonderland")
        func proxyRequest(_ credentials: String) -> Request {
            Request(method: "CONNECT", target: "localhost:1", headers: [HeaderField("Proxy-Authorization", "Basic " + Data(credentials.utf8).base64EncodedString())])
        }
        #expect(Engine.leaks(in: proxyRequest("alice:wonderland"), hop: .proxy, foreignUsers: [alice])
            == ["Proxy-Authorization carried the origin's credentials (user alice), not the proxy's"])
        #expect(Engine.leaks(in: proxyRequest("alice:wrong"), hop: .proxy, foreignUsers: [alice]) == nil)
        #expect(Engine.leaks(in: proxyRequest("carrier:pigeon"), hop: .proxy, foreignUsers: [alice]) == nil)
        // Through the pair: the proxy engine knows the origin's users.
        var pair = EnginePair(
            scenario: try ScenarioLoader.load(yaml: """
                version: 1
                name: t
                users: [{name: alice, password: wonderland}]
                challenges: [{scheme: Basic}]
                proxy:
                  users: [{name: carrier, password: pigeon}]
                  challenges: [{scheme: Basic}]
                """, file: "t.yaml", files: .inMemory([:])),
            journalCapacity: 10, random: .seeded(1), startedAt: Date()
        )
        let exchange = pair.handleProxy(proxyRequest("alice:wonderland"), now: Date())
        #expect(exchange.response.status == 407)
        #expect(exchange.entry?.leaks == ["Proxy-Authorization carried the origin's credentials (user alice), not the proxy's"])
    }

    /// Digest's uri may name the resource in absolute- or origin-form; a different resource still fails.
    @Test(arguments: [
        ("/a?b", "http://h:1/a?b", true), ("http://h:1/a?b", "/a?b", true), ("localhost:443", "localhost:443", true),
        ("/a", "http://h:1/a?b", false), ("http://h:1/a", "http://h:2/a", false),
    ])
    func digestURIForms(uri: String, target: String, same: Bool) {
        #expect(Engine.sameResource(uri, target) == same)
    }
}
