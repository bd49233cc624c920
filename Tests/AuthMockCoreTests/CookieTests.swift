import AuthMockCore
import Foundation
import Testing

/// Cookies a resource sets (`set-cookies:`): how the scenario reads them, the `Set-Cookie` fields the engine
/// sends, how `Cookie` is read, and which of them the journal says came back. And `subdomains: true`.
struct CookieTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static let yaml = """
        version: 1
        name: cookies
        users: []
        challenges: []
        subdomains: true
        resources:
          - path: /login
            protected: false
            set-cookies:
              - name: session
                value: s3cr3t
                domain: authmock.localhost
                path: /account
                secure: true
                http-only: true
              - name: theme
          - path: /account/*
            protected: false
            headers:
              Location: "{subdomain_url}x"
        """

    @Test func setCookiesReadAsWritten() throws {
        let scenario = try load(Self.yaml)
        #expect(scenario.subdomains)
        let cookies = try #require(scenario.resource(forPath: "/login")).setCookies
        #expect(cookies == [
            SetCookie(name: "session", value: "s3cr3t", domain: "authmock.localhost", path: "/account", secure: true, httpOnly: true),
            SetCookie(name: "theme", value: "authmock-theme"),
        ])
        #expect(cookies[0].fieldValue == "session=s3cr3t; Domain=authmock.localhost; Path=/account; Secure; HttpOnly")
        #expect(cookies[1].fieldValue == "theme=authmock-theme")
        #expect(scenario.setCookies.map(\.name) == ["session", "theme"])
    }

    /// Every bad value is reported at its line and column, all at once.
    @Test func badCookiesAreReportedWhereTheyAre() {
        let found = diagnostics("""
            version: 1
            name: x
            resources:
              - path: /
                protected: false
                set-cookies:
                  - name: "bad name"
                    value: "a;b"
                  - name: ok
                    domain: "exa mple"
                    path: account
                    secure: maybe
                    expires: tomorrow
                  - name: ok
            """)
        #expect(found.contains("bad.yaml:7:15: cookie name 'bad name' is not an HTTP token — use letters, digits, - and _"))
        #expect(found.contains { $0.hasPrefix("bad.yaml:8:16: cookie value 'a;b' has a character a cookie value cannot hold — RFC 6265 §4.1.1") })
        #expect(found.contains("bad.yaml:10:17: domain 'exa mple' is not a host name — write a name such as authmock.localhost"))
        #expect(found.contains("bad.yaml:11:15: path 'account' is not a cookie path — start it with '/', without ';'"))
        #expect(found.contains { $0.hasPrefix("bad.yaml:12:17:") && $0.contains("secure") })
        #expect(found.contains { $0.hasPrefix("bad.yaml:13:9: unknown key 'expires' in a cookie") })
        #expect(found.contains("bad.yaml:14:15: cookie 'ok' is set twice by this resource — keep one"))
        #expect(found.count == 7, "\(found)")
    }

    /// `{subdomain_url}` and `{sibling_url}` need `subdomains: true`; an empty `set-cookies` is refused.
    @Test func subdomainLinksNeedSubdomains() {
        let found = diagnostics("""
            version: 1
            name: x
            resources:
              - path: /
                protected: false
                set-cookies: []
                headers:
                  Location: "{subdomain_url}a"
                  Link: "{sibling_url}b"
            """)
        #expect(found.contains { $0.hasPrefix("bad.yaml:6:18: set-cookies is an empty list") })
        #expect(found.contains("bad.yaml:8:17: {subdomain_url} names this server under a loopback name, which it is not given — add `subdomains: true`"))
        #expect(found.contains { $0.hasPrefix("bad.yaml:9:13: {sibling_url} names this server under a loopback name") })
    }

    /// `Cookie` fields: pairs split at `;`, spaces trimmed, a value may hold `=`, several fields read in order.
    @Test func cookieFieldsAreReadAsPairs() {
        let pairs = SetCookie.pairs(inCookieFields: ["a=1; session=s3=cr3t ;;flag", "\t b = 2 \t"])
        #expect(pairs.map(\.name) == ["a", "session", "", "b"])
        #expect(pairs.map(\.value) == ["1", "s3=cr3t", "flag", "2"])
        let session = SetCookie(name: "session", value: "s3cr3t")
        let theme = SetCookie(name: "theme", value: "dark")
        #expect(SetCookie.returned([session, theme], inCookieFields: ["theme=dark; session=s3cr3t"]) == ["session", "theme"])
        #expect(SetCookie.returned([session], inCookieFields: ["session=other"]).isEmpty, "another value is not the server's cookie")
        #expect(SetCookie.returned([session], inCookieFields: ["Session=s3cr3t"]).isEmpty, "names are case-sensitive")
        #expect(SetCookie.returned([session], inCookieFields: []).isEmpty)
    }

    /// The granted answer carries one `Set-Cookie` per cookie; the journal marks Cookie as a credential and
    /// names the cookies that came back with the server's value, and nothing when none did.
    @Test func engineSetsCookiesAndJournalsThemComingBack() throws {
        var random = RandomSource.seeded(1)
        var engine = Engine(scenario: try load(Self.yaml), random: &random)
        var journal = JournalLog()
        let login = engine.handle(Request(method: "GET", target: "/login"), now: Self.now, random: &random, journal: &journal)
        #expect(login.response.headers.values("Set-Cookie") == [
            "session=s3cr3t; Domain=authmock.localhost; Path=/account; Secure; HttpOnly", "theme=authmock-theme",
        ])
        #expect(login.entry?.cookies == nil)

        let back = engine.handle(
            Request(method: "GET", target: "/account/home", headers: [HeaderField("Cookie", "session=s3cr3t; x=1")]),
            now: Self.now, random: &random, journal: &journal
        )
        #expect(back.entry?.cookies == ["session"])
        #expect(back.entry?.headers.first { $0.name == "Cookie" }?.credential == true)
        #expect(back.response.headers.values("Set-Cookie").isEmpty, "only /login sets cookies")

        let forged = engine.handle(
            Request(method: "GET", target: "/account/home", headers: [HeaderField("Cookie", "session=guess")]),
            now: Self.now, random: &random, journal: &journal
        )
        #expect(forged.entry?.cookies == nil)
        #expect(forged.entry?.headers.first { $0.name == "Cookie" }?.credential == true, "still a credential header")

        // The journal's JSON keeps the field, and reads it back.
        let data = try JSONEncoder().encode(try #require(back.entry))
        #expect(String(decoding: data, as: UTF8.self).contains("\"cookies\":[\"session\"]"))
        #expect(try JSONDecoder().decode(JournalEntry.self, from: data).cookies == ["session"])
    }
}
