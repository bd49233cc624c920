import AuthMock
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The control plane of a server bound beyond loopback (`0.0.0.0`, reached here through 127.0.0.1: still a
/// listener that is not loopback only), against the issue's three attacks, with curl; the loopback default;
/// the fixture; and `serve --host 0.0.0.0` from the binary.
@Suite(.serialized)
struct ControlPlaneServerTests {
    static let token = "test-control-token_0123456789abcdefghijkl"

    static var wide: ServerConfiguration {
        var configuration = ServerConfiguration(host: "0.0.0.0", port: 0)
        configuration.controlToken = token
        return configuration
    }

    static let json = ["-H", "Content-Type: application/json"]
    static let bearer = ["-H", "Authorization: Bearer \(token)"]

    /// The issue's attacks on `serve scenarios/basic.yaml --host 0.0.0.0`: a text/plain POST changing alice's
    /// password, the users listed with `Host: evil.example`, and no token at all. Each is refused and journaled;
    /// the right request still works.
    @Test func offLoopbackTheAttacksAreRefusedAndJournaled() async throws {
        try await withServer(try shipped("basic.yaml"), configuration: Self.wide) { server in
            #expect(!server.isLoopbackOnly)
            #expect(server.boundAddresses == ["0.0.0.0:\(server.port)"])
            #expect(server.wildcardAddresses.first == "127.0.0.1")
            #expect(server.controlHosts.contains("127.0.0.1:\(server.port)"))
            #expect(!server.controlHosts.contains { $0.hasPrefix("evil") })
            let users = server.url + "_authmock/users"
            let pwn = ["-X", "POST", "-H", "Content-Type: text/plain", "--data", #"{"password":"pwned"}"#]

            let crossSite = try await curl(["-i"] + pwn + [users + "/alice"])
            #expect(crossSite.status == 401)
            #expect(crossSite.body.contains(#"WWW-Authenticate: Bearer realm="authmock-control""#))
            let crossSiteWithToken = try await curl(["-i"] + Self.bearer + pwn + [users + "/alice"])
            #expect(crossSiteWithToken.status == 415)
            #expect(crossSiteWithToken.body.contains("Accept-Post: application/json"))
            let rebound = try await curl(Self.bearer + ["-H", "Host: evil.example", users])
            #expect(rebound.status == 403)
            #expect(!rebound.body.contains("wonderland"))
            let anonymous = try await curl([users])
            #expect(anonymous.status == 401)
            #expect(!anonymous.body.contains("wonderland"))
            let wrong = try await curl(["-H", "Authorization: Bearer nope", users])
            #expect(wrong.status == 401)
            #expect(try await curl([server.url + "_authmock/journal"]).status == 401)
            #expect(server.users.first { $0.name == "alice" }?.password == "wonderland")

            let refusals = server.journal.filter { $0.verdict == .controlRefused }
            #expect(refusals.map(\.status) == [401, 415, 403, 401, 401, 401])
            #expect(
                refusals.compactMap { $0.detail?.split(separator: ":").first.map(String.init) }
                    == ["token-missing", "content-type", "host", "token-missing", "token-wrong", "token-missing"]
            )
            #expect(refusals.allSatisfy { $0.remote?.hasPrefix("127.0.0.1:") == true })
            #expect(!refusals.contains { $0.jsonLine().contains(Self.token) })

            let change = try await curl(
                Self.bearer + Self.json + ["-X", "POST", "--data", #"{"password":"rebuilt"}"#, users + "/alice"]
            )
            #expect(change.status == 200)
            #expect(server.users.first { $0.name == "alice" }?.password == "rebuilt")
            let listed = try await curl(Self.bearer + [users])
            #expect(listed.status == 200 && listed.body.contains("rebuilt"))
            let page = try await curl(Self.bearer + [server.url + "_authmock/journal"])
            #expect(page.status == 200 && page.body.contains("control.refused"))

            // From the machine's own non-loopback address, where it has one: the way another host comes in.
            if let outside = server.wildcardAddresses.first(where: { !$0.hasPrefix("127.") && !$0.contains(":") }) {
                let there = "http://\(outside):\(server.port)/_authmock/users"
                #expect(try await curl([there]).status == 401)
                #expect(try await curl(Self.bearer + [there]).status == 200)
                #expect(try await curl(Self.bearer + ["-H", "Host: evil.example", there]).status == 403)
            }
        }
    }

    /// On loopback (the default) the token is optional, a wrong one is refused, POSTs need JSON, and a
    /// rebinding Host is refused; every server gets a token of its own.
    @Test func onLoopbackTheTokenIsOptionalButTheOtherRulesHold() async throws {
        try await withServer(try shipped("basic.yaml")) { (server: AuthMockServer) async throws in
            #expect(server.isLoopbackOnly)
            #expect(server.controlToken.count == 43)
            #expect(ReadyInfo(server: server).controlToken == server.controlToken)
            let users = server.url + "_authmock/users"
            #expect(try await curl([users]).status == 200)
            #expect(try await curl(["-H", "Authorization: Bearer \(server.controlToken)", users]).status == 200)
            #expect(try await curl(["-H", "Authorization: Bearer wrong", users]).status == 401)
            #expect(try await curl(["-H", "Host: evil.example:\(server.port)", users]).status == 403)
            #expect(try await curl(["-H", "Host: localhost:\(server.port)", users]).status == 200)
            let plain = ["-X", "POST", "-H", "Content-Type: text/plain", "--data", #"{"password":"x"}"#, users + "/alice"]
            #expect(try await curl(plain).status == 415)
            #expect(try await curl(["-X", "POST", server.url + "_authmock/reset"]).status == 415)
            #expect(try await curl(Self.json + ["-X", "POST", server.url + "_authmock/reset"]).status == 200)
        }
        try await withServer(try shipped("basic.yaml")) { other in
            try await withServer(try shipped("basic.yaml")) { server in
                #expect(other.controlToken != server.controlToken)
            }
        }
    }

    /// `--control-host`: a container's service name, with the listener's port; a name with a port as given.
    @Test func controlHostsAddNames() async throws {
        var configuration = Self.wide
        configuration.controlHosts = ["authmock", "localhost:9000"]
        try await withServer(try shipped("basic.yaml"), configuration: configuration) {
            (server: AuthMockServer) async throws in
            let users = server.url + "_authmock/users"
            #expect(try await curl(Self.bearer + ["-H", "Host: authmock:\(server.port)", users]).status == 200)
            #expect(try await curl(Self.bearer + ["-H", "Host: localhost:9000", users]).status == 200)
            #expect(try await curl(Self.bearer + ["-H", "Host: authmock:1", users]).status == 403)
            #expect(server.controlHosts.contains("authmock:\(server.port)"))
        }
    }

    /// The fixture bound beyond loopback still works: its own controls are in-process, and its token opens
    /// the control plane over HTTP.
    @Test func theFixtureWorksOffLoopback() async throws {
        var configuration = AuthMockFixture.fixtureConfiguration
        configuration.host = "0.0.0.0"
        let fixture = try await AuthMockFixture.start(try shipped("basic.yaml"), configuration: configuration)
        do {
            try fixture.setPassword("rebuilt", for: "alice")
            #expect(try await curl(["-u", "alice:rebuilt", fixture.url.absoluteString]).status == 200)
            let users = fixture.url.absoluteString + "_authmock/users"
            #expect(try await curl([users]).status == 401)
            let listed = try await curl(["-H", "Authorization: Bearer \(fixture.controlToken)", users])
            #expect(listed.status == 200 && listed.body.contains("rebuilt"))
            try await fixture.shutdown()
        } catch {
            try? await fixture.shutdown()
            throw error
        }
    }

    /// `authmock serve --host 0.0.0.0 --control-token T`: the ready line carries the token, the banner says
    /// where it is bound and that the control plane needs the token.
    @Test func serveOffLoopbackSaysSoAndUsesTheToken() async throws {
        let (process, ready, err) = try await CLITests.startServe([
            repositoryRoot.appendingPathComponent("scenarios/basic.yaml").path, "--port", "0", "--host", "0.0.0.0",
            "--control-token", Self.token, "--control-host", "authmock",
        ])
        defer { if process.isRunning { process.terminate() } }
        #expect(ready.controlToken == Self.token)
        let users = ready.url + "_authmock/users"
        #expect(try await curl([users]).status == 401)
        #expect(try await curl(Self.bearer + ["-H", "Host: authmock:\(ready.port)", users]).status == 200)
        let banner = await CLITests.stopServe(process, stderr: err)
        #expect(process.terminationStatus == 0)
        #expect(banner.contains("bound      0.0.0.0:\(ready.port)  (every address of this machine: 127.0.0.1"))
        #expect(banner.contains("needs Authorization: Bearer \(Self.token)"))
    }
}
