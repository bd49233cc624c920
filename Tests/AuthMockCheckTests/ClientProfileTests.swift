import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

struct ClientProfileTests {
    static let yaml = """
        name: curl
        version: [curl, --version]
        skip-features: [negotiate]
        command: [curl, -sS, -w, "%{http_code}"]
        args:
          - when: [user]
            unless: [domain]
            add: [-u, "{user}:{password}"]
          - when: [user, domain]
            add: [-u, "{domain}\\\\{user}:{password}"]
          - when: [ca_file]
            add: [--cacert, "{ca_file}"]
        per-fetch: ["{url}"]
        """

    /// Conditional arguments follow the inputs a case gives; braces that are not placeholders stay.
    @Test func commandLineFollowsTheInputs() throws {
        let profile = try ClientProfileLoader.load(yaml: Self.yaml, file: "curl.yaml")
        #expect(profile.skipFeatures == ["negotiate"])
        let plain = profile.commandLine(values: ["user": "alice", "password": "pw", "url": "http://x/"], given: ["user", "password"], fetches: 2)
        #expect(plain == ["curl", "-sS", "-w", "%{http_code}", "-u", "alice:pw", "http://x/", "http://x/"])
        let ntlm = profile.commandLine(
            values: ["user": "alice", "password": "pw", "domain": "EX", "ca_file": "/ca.pem", "url": "u"], given: ["user", "password", "domain", "ca_file"],
            fetches: 1
        )
        #expect(ntlm == ["curl", "-sS", "-w", "%{http_code}", "-u", "EX\\alice:pw", "--cacert", "/ca.pem", "u"])
        #expect(ClientProfile.substitute("{proxy_user}:{nothing}{", ["proxy_user": "p"]) == "p:{nothing}{")
        #expect(ClientProfile.substitute("{ca_file}", [:]) == "")
    }

    /// A typo in a placeholder or a condition is caught when the profile is read.
    @Test func profileMistakesArePositioned() {
        let broken = Self.yaml.replacingOccurrences(of: "when: [ca_file]", with: "when: [ca-file]")
            .replacingOccurrences(of: "\"{user}:{password}\"", with: "\"{usr}:{password}\"")
        do {
            _ = try ClientProfileLoader.load(yaml: broken, file: "curl.yaml")
            Issue.record("a broken profile loaded")
        } catch {
            let messages = error.diagnostics.map(\.description)
            #expect(messages.contains { $0.hasPrefix("curl.yaml:8:") && $0.hasSuffix("placeholder {usr} is not known — did you mean {user}?") })
            #expect(messages.contains { $0.contains("when names 'ca-file', which is not an input — did you mean 'ca_file'?") })
        }
    }

    /// `install:` lists packages by source; an option where a package belongs is refused, with its place.
    /// `env:` sets variables with placeholders filled, and leaves out one whose placeholders a case does
    /// not give; a name that is no variable name is refused where it stands.
    @Test func environmentFollowsTheInputs() throws {
        let profile = try ClientProfileLoader.load(yaml: Self.yaml + "\nenv:\n  NTLM_USER_FILE: \"{ntlm_user_file}\"\n  LANG: C.UTF-8\n", file: "curl.yaml")
        #expect(profile.environment(values: ["ntlm_user_file": "/case/ntlm-users"]) == ["NTLM_USER_FILE": "/case/ntlm-users", "LANG": "C.UTF-8"])
        #expect(profile.environment(values: [:]) == ["LANG": "C.UTF-8"])
        do {
            _ = try ClientProfileLoader.load(yaml: Self.yaml + "\nenv:\n  \"A B\": x\n", file: "curl.yaml")
            Issue.record("a bad env name loaded")
        } catch {
            #expect(error.diagnostics.first?.description.hasPrefix("curl.yaml:") == true)
            #expect(error.diagnostics.first?.message == "env name 'A B' is not a variable name")
        }
    }

    @Test func installListsArePackageNames() throws {
        let profile = try ClientProfileLoader.load(
            yaml: Self.yaml + "\ninstall:\n  debian: [default-jdk-headless, libokhttp-java]\n  pypi: [httpx]\n", file: "okhttp.yaml"
        )
        #expect(profile.install == .init(debian: ["default-jdk-headless", "libokhttp-java"], pypi: ["httpx"]))
        #expect(try ClientProfileLoader.load(yaml: Self.yaml, file: "curl.yaml").install == .init())
        do {
            _ = try ClientProfileLoader.load(yaml: Self.yaml + "\ninstall:\n  debian: [-y curl]\n  brew: [curl]\n", file: "curl.yaml")
            Issue.record("an install list with an option loaded")
        } catch {
            let messages = error.diagnostics.map(\.description)
            #expect(messages.contains { $0.hasPrefix("curl.yaml:15:12:") && $0.contains("install.debian names '-y curl', which is not a package name") }, "\(messages)")
            #expect(messages.contains { $0.hasPrefix("curl.yaml:16:3: unknown key 'brew' in install") })
        }
    }

    /// `tls-notes:` joins the notes under the client as its "TLS and pinning" paragraph; a feature list may
    /// not offer alternatives (only a case's may), and a case's alternatives are skipped only when the client
    /// lacks every one.
    @Test func tlsNotesAndFeatureAlternatives() throws {
        let profile = try ClientProfileLoader.load(yaml: Self.yaml + "\nnotes: Picks NTLM.\ntls-notes: Pins keys with --pinnedpubkey.\n", file: "curl.yaml")
        #expect(profile.matrixNotes == "Picks NTLM.\n\n**TLS and pinning.** Pins keys with --pinnedpubkey.")
        let matrix = Reports.matrix([SuiteReport(client: "curl", authmock: "", started: "", cases: [])], notes: ["curl": profile.matrixNotes!])
        #expect(matrix.contains("### curl\n\nPicks NTLM.\n\n**TLS and pinning.** Pins keys with --pinnedpubkey."))

        #expect(throws: (any Error).self) {
            try ClientProfileLoader.load(yaml: Self.yaml.replacingOccurrences(of: "[negotiate]", with: "[pinning|cert-pinning]"), file: "curl.yaml")
        }
    }
}
