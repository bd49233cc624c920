@testable import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

/// The credentials a case gives as an application supplies them (`case.give.credentials-in`): the loader's
/// rules, the values and files the runner makes, and what a client actually receives.
struct AppCredentialsTests {
    typealias Entry = CaseInputs.NetrcEntry

    @Test func netrcEntriesNameTheHostsAndLeaveOutWhatTheCaseSays() {
        let text = AppCredentials.netrc(
            [Entry(), Entry(machine: .other, password: .none), Entry(machine: .default, login: .none, password: .none)],
            firstHost: "127.0.0.1", user: "alice", password: "wonderland"
        )
        #expect(text == "machine 127.0.0.1 login alice password wonderland\nmachine localhost login alice\ndefault\n")
        let tls = AppCredentials.netrc([Entry(machine: .other)], firstHost: "localhost", user: "a", password: "b")
        #expect(tls == "machine 127.0.0.1 login a password b\n")
    }

    @Test func userinfoIsPercentEncoded() {
        let url = AppCredentials.withUserinfo("http://127.0.0.1:8080/a?b", user: "al@ce", password: "p:ss/w rd%é")
        #expect(url == "http://al%40ce:p%3Ass%2Fw%20rd%25%C3%A9@127.0.0.1:8080/a?b")
        #expect(URLComponents(string: url)?.host == "127.0.0.1" && URLComponents(string: url)?.port == 8080)
        #expect(URLComponents(string: url)?.user == "al@ce" && URLComponents(string: url)?.password == "p:ss/w rd%é")
    }

    @Test func headerValues() {
        #expect(AppCredentials.headerValue(name: "Authorization", user: "alice", password: "wonderland")
            == "Basic YWxpY2U6d29uZGVybGFuZA==")
        #expect(AppCredentials.headerValue(name: "proxy-authorization", user: "a", password: "b") == "Basic YTpi")
        #expect(AppCredentials.headerValue(name: "X-Api-Key", user: "alice", password: "wonderland") == "wonderland")
    }

    static let scenario = """
        version: 1
        name: c
        users: [{name: alice, password: wonderland}]
        challenges: [{scheme: Basic}]
        resources: [{path: /}]
        case:
          title: t
        """

    func load(_ give: String, scenario: String = scenario) throws -> CaseInputs {
        let yaml = scenario + "\n  give: " + give + "\nexpect: {outcome: success}\n"
        return try #require(try CaseLoader.load(yaml: yaml, file: "c.yaml", files: .inMemory([:])).conformance).give
    }

    func problems(_ give: String, scenario: String = scenario) -> [String] {
        do {
            _ = try load(give, scenario: scenario)
            return []
        } catch let error as ScenarioLoadError {
            return error.diagnostics.map(\.message)
        } catch {
            return ["\(error)"]
        }
    }

    @Test func headerAndNetrcImplyWhereTheCredentialsGo() throws {
        let header = try load("{header: X-Api-Key}")
        #expect(header.credentialsIn == .header && header.header == "X-Api-Key")
        #expect(try load("{credentials-in: header}").header == "Authorization")
        let netrc = try load("{netrc: [{machine: other, login: none}, {machine: default, password: none}]}")
        #expect(netrc.credentialsIn == .netrc)
        #expect(netrc.netrc == [Entry(machine: .other, login: .none), Entry(machine: .default, password: .none)])
        #expect(try load("{credentials-in: netrc}").netrc == [Entry()])
        #expect(try load("{credentials-in: userinfo}").credentialsIn == .userinfo)
    }

    @Test func impossibleCredentialInputsAreRefused() {
        #expect(problems("{header: 'X Api'}").contains("header 'X Api' is not a header name"))
        #expect(problems("{credentials-in: userinfo, header: X-Api-Key}")
            .contains("case.give.header names the header of credentials-in: header"))
        #expect(problems("{credentials-in: header, netrc: [{machine: first}]}")
            .contains("case.give.netrc lists the entries of credentials-in: netrc"))
        #expect(problems("{netrc: []}").contains("case.give.netrc is an empty list"))
        #expect(problems("{netrc: [{machine: elsewhere}]}").contains("netrc.machine 'elsewhere' is not known"))
        #expect(problems("{netrc: [{login: none}]}").contains("a netrc entry has no 'machine'"))
        #expect(problems("{credentials-in: cookie}").contains("case.give.credentials-in 'cookie' is not known"))
        let noUsers = Self.scenario.replacingOccurrences(of: "users: [{name: alice, password: wonderland}]", with: "users: []")
        #expect(problems("{credentials-in: netrc}", scenario: noUsers)
            .contains("case.give.credentials-in cannot be given: the scenario has no users whose passwords it knows"))
    }
}

/// What a client receives: no `{user}`/`{password}`, the URL's userinfo, the header, or a netrc file only its
/// owner can read with `.netrc` in `{home}`.
extension CheckRunnerTests {
    @Test func appCredentialInputsReachTheClient() async throws {
        let dump = ["sh", "-c", "env | grep ^AUTHMOCK_ | sort >&2; stat -c 'mode %a' \"$AUTHMOCK_NETRC_FILE\" >&2; "
            + "cat \"$AUTHMOCK_HOME/.netrc\" >&2; exit 1"]
        let netrc = try only(try await check(dump, "leak.netrc.entry-without-password"))
        let said = netrc.stderr ?? ""
        #expect(!said.contains("AUTHMOCK_USER=") && !said.contains("AUTHMOCK_PASSWORD="), "\(said)")
        #expect(said.contains("mode 600"), "\(said)")
        #expect(said.contains("machine 127.0.0.1 login alice password wonderland\nmachine localhost login alice\n"), "\(said)")
        #expect(said.contains("AUTHMOCK_NETRC_FILE=") && said.contains("/home/.netrc"), "\(said)")

        let userinfo = try only(try await check(dump, "leak.userinfo.other-host")).stderr ?? ""
        #expect(userinfo.contains("AUTHMOCK_URL=http://alice:wonderland@127.0.0.1:"), "\(userinfo)")
        #expect(!userinfo.contains("AUTHMOCK_USER="), "\(userinfo)")

        let header = try only(try await check(dump, "leak.api-key-header.other-host")).stderr ?? ""
        #expect(header.contains("AUTHMOCK_HEADER=X-Api-Key: wonderland\n"), "\(header)")
        #expect(header.contains("AUTHMOCK_HEADER_NAME=X-Api-Key\n") && header.contains("AUTHMOCK_HEADER_VALUE=wonderland\n"))
        #expect(!header.contains("AUTHMOCK_NETRC_FILE=") && !header.contains("AUTHMOCK_PASSWORD="), "\(header)")
    }
}
