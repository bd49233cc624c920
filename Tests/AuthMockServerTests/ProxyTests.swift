@testable import AuthMockServer
import AuthMockCore
import Foundation
import Testing

/// The forward proxy, driven by curl: absolute-form and CONNECT, Basic, Digest and NTLM, leaks, abuse.
@Suite(.serialized)
struct ProxyTests {
    func proxyURL(_ server: AuthMockServer) throws -> String { try #require(server.proxyURL) }

    /// --proxy-basic through absolute-form: 407 without credentials, 200 with, 407 with a wrong password.
    @Test func basicAbsoluteForm() async throws {
        try await withServer(try shipped("proxy-basic.yaml")) { server in
            let proxy = try proxyURL(server)
            let none = try await curl(["-x", proxy, server.url])
            #expect(none.status == 407)
            let ok = try await curl(["-x", proxy, "--proxy-basic", "--proxy-user", "carrier:pigeon", server.url])
            #expect(ok.status == 200)
            #expect(ok.body == "Through the proxy.\n")
            let wrong = try await curl(["-x", proxy, "--proxy-basic", "--proxy-user", "carrier:nope", server.url])
            #expect(wrong.status == 407)
            let journal = server.journal
            #expect(journal.map(\.verdict) == [.noCredentials, .basicOK, .publicResource, .basicBadPassword])
            #expect(journal.map { $0.hop ?? .origin } == [.proxy, .proxy, .origin, .proxy])
            #expect(
                journal[2].headers.allSatisfy { $0.name.lowercased() != "proxy-authorization" },
                "the proxy consumes its own credentials"
            )
            let ready = ReadyInfo(server: server)
            #expect(ready.proxy?.url == proxy)
            #expect(ready.proxy?.users.map(\.name) == ["carrier"])
        }
    }

    /// CONNECT with Digest to an HTTPS origin: 407, then the tunnel, TLS inside it, and the origin's Basic.
    @Test func connectDigestToHTTPS() async throws {
        try await withServer(try shipped("proxy-connect-digest.yaml")) { server in
            let tls = try #require(server.tls)
            let ok = try await curl([
                "-x", try proxyURL(server), "--proxy-digest", "--proxy-user", "carrier:pigeon", "--cacert", tls.caFile,
                "-u", "alice:wonderland", server.url,
            ])
            #expect(ok.status == 200)
            _ = await server.waitForConnectionsToClose()
            let journal = server.journal
            #expect(journal.map(\.verdict) == [.noCredentials, .digestOK, .basicOK, .tlsOK])
            #expect(journal[0].method == "CONNECT")
            #expect(journal[0].connection == journal[1].connection, "the CONNECT is retried on the same connection")
            #expect(journal[2].tls?.version == "TLSv1.3")
            #expect(journal.allSatisfy { $0.leaks == nil })
            let wrong = try await curl([
                "-x", try proxyURL(server), "--proxy-digest", "--proxy-user", "carrier:nope", "--cacert", tls.caFile,
                server.url,
            ])
            #expect(wrong.result.status != 0)
            #expect(server.journal.last?.verdict == .digestBadResponse)
            #expect(server.journal.last?.status == 407)
        }
    }

    /// --proxy-ntlm through absolute-form and through CONNECT (to the HTTPS origin).
    @Test func ntlmBothWays() async throws {
        var scenario = try shipped("proxy-connect-digest.yaml")
        scenario.proxy?.challenges = [.ntlm(NTLMChallenge(domain: "EXAMPLE"))]
        scenario.tls?.plainHTTP = true
        try await withServer(scenario) { server in
            let proxy = try proxyURL(server)
            let plain = try await curl([
                "-x", proxy, "--proxy-ntlm", "--proxy-user", #"EXAMPLE\carrier:pigeon"#, "-u", "alice:wonderland",
                try #require(server.httpURL),
            ])
            #expect(plain.status == 200)
            let tunnelled = try await curl([
                "-x", proxy, "--proxy-ntlm", "--proxy-user", #"EXAMPLE\carrier:pigeon"#,
                "--cacert", try #require(server.tls).caFile,
                "-u", "alice:wonderland", server.url,
            ])
            #expect(tunnelled.status == 200)
            let proxyVerdicts = server.journal.filter { $0.hop == .proxy }.map(\.verdict)
            #expect(proxyVerdicts == [.ntlmNegotiate, .ntlmOK, .ntlmNegotiate, .ntlmOK])
        }
    }

    /// Every proxy scheme curl has, through absolute-form (plain origin) and CONNECT (HTTPS origin);
    /// a wrong proxy password ends at 407 either way.
    @Test(arguments: ["basic", "digest", "ntlm"])
    func schemeMatrix(scheme: String) async throws {
        var scenario = try shipped("proxy-connect-digest.yaml")
        scenario.tls?.plainHTTP = true
        switch scheme {
        case "basic": scenario.proxy?.challenges = [.basic(BasicChallenge())]
        case "digest": scenario.proxy?.challenges = [.digest(DigestChallenge(algorithm: .sha256))]
        default: scenario.proxy?.challenges = [.ntlm(NTLMChallenge(domain: "EXAMPLE"))]
        }
        try await withServer(scenario) { server in
            let proxy = try proxyURL(server)
            let user = scheme == "ntlm" ? #"EXAMPLE\carrier:pigeon"# : "carrier:pigeon"
            let ca = try #require(server.tls).caFile
            for (target, extra) in [(try #require(server.httpURL), [String]()), (server.url, ["--cacert", ca])] {
                let proxied = ["-x", proxy, "--proxy-\(scheme)", "--proxy-user"]
                let ok = try await curl(proxied + [user, "-u", "alice:wonderland"] + extra + [target])
                #expect(ok.status == 200, "\(scheme) via \(target)")
                let wrong = try await curl(proxied + ["carrier:nope"] + extra + [target])
                #expect(
                    wrong.result.status != 0 || wrong.status == 407, "\(scheme) via \(target) with a wrong password"
                )
                #expect(server.journal.last?.status == 407)
                #expect(server.journal.last?.hop == .proxy)
            }
            let methods = Set(server.journal.filter { $0.hop == .proxy }.compactMap(\.method))
            #expect(methods == ["GET", "CONNECT"])
        }
    }

    /// A rotation asked of the origin through the proxy (absolute-form `POST /_authmock/tls/rotate`, forwarded
    /// to the plain-HTTP origin) rotates, as it does asked directly, and before the answer is written: the
    /// certificate is new as soon as curl has its answer, and the next HTTPS connection is shown it.
    @Test func rotationThroughTheProxy() async throws {
        var scenario = try shipped("proxy-connect-digest.yaml")
        scenario.tls?.plainHTTP = true
        try await withServer(scenario) { server in
            let before = try #require(server.tls)
            let rotate = try #require(server.httpURL) + "_authmock/tls/rotate?keep-key=false"
            let proxy = try proxyURL(server)
            let answer = try await curl([
                "-x", proxy, "--proxy-digest", "--proxy-user", "carrier:pigeon", "-X", "POST", "-H", "Content-Type: application/json", rotate,
            ])
            #expect(answer.status == 200)
            #expect(answer.body.contains(#""rotating":true"#))
            // No waiting here: the answer went out only once the rotation was done.
            let after = try #require(server.tls)
            #expect(after.fingerprintSHA256 != before.fingerprintSHA256)
            #expect(after.pinSHA256 != before.pinSHA256)
            let served = try await curl(["--cacert", after.caFile, server.url + "_authmock/tls"])
            #expect(try JSONDecoder().decode(TLSInfo.self, from: Data(served.body.utf8)) == after)
            #expect(try await curl(["--cacert", after.caFile, "-u", "alice:wonderland", server.url]).status == 200)
            let shown = server.journal.last { $0.method != nil }?.tls?.certificateSHA256
            #expect(shown == after.fingerprintSHA256, "the origin's TLS facts name the new certificate")
        }
    }

    /// The proxy's bcrypt check (cost 13, about half a second) runs off the event loop and outside the
    /// engines' lock, as the origin's does: a request on another connection is answered while it runs.
    @Test func aSlowProxyHashDoesNotHoldUpOtherConnections() async throws {
        try UserFileServerTests.requireApacheTools()
        try await UserFileServerTests.withDirectory { directory in
            let file = directory.appendingPathComponent("users.htpasswd").path
            let made = try await run(UserFileServerTests.htpasswd, ["-cbB", "-C", "13", file, "slow", "pw-slow"])
            try #require(made.status == 0, "htpasswd: \(made.stderr)")
            let added = try await run(UserFileServerTests.htpasswd, ["-bB", "-C", "10", file, "tunnel", "pw-tunnel"])
            try #require(added.status == 0, "htpasswd: \(added.stderr)")
            let scenarioFile = directory.appendingPathComponent("scenario.yaml")
            let yaml = """
                version: 1
                name: slow-proxy
                users: [{name: alice, password: wonderland}]
                challenges: [{scheme: Basic}]
                resources: [{path: /, protected: false}]
                proxy: {users: {htpasswd: users.htpasswd}, challenges: [{scheme: Basic}]}
                """
            try yaml.write(to: scenarioFile, atomically: true, encoding: .utf8)
            try await withServer(try ScenarioLoader.load(file: scenarioFile.path, files: .fileSystem)) { server in
                let (origin, proxy) = (server.port, try #require(URLComponents(string: try proxyURL(server))?.port))
                // A first exchange on the slow connection (a 407: no credentials): it is admitted, and the proxy's
                // first request (a few ms of set-up) is over, so that the slow request is read before the quick
                // one arrives.
                let slowConnection = try RawConnection(port: proxy, receiveTimeout: .seconds(30))
                let forward = "GET http://127.0.0.1:\(origin)/ HTTP/1.1\r\nHost: 127.0.0.1:\(origin)\r\n"
                try slowConnection.send(forward + "\r\n")
                #expect(slowConnection.readResponse()?.head.hasPrefix("HTTP/1.1 407 ") == true)
                // The slow request, then the quick exchange with no await between (a loaded machine's busy
                // cooperative pool could resume the test after the check is over); the slow answer is read last,
                // and may take long under load.
                let credentials = Data("slow:pw-slow".utf8).base64EncodedString()
                try slowConnection.send(forward + "Proxy-Authorization: Basic \(credentials)\r\nConnection: close\r\n\r\n")
                // 50 ms for the server to read it and start the check (about 0.5 s of CPU): a blocking pause, so
                // that nothing but the machine's scheduler stands between it and the quick exchange.
                usleep(50_000)
                let direct = "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                let quick = try rawExchange(port: origin, Array(direct.utf8))
                #expect(quick.hasPrefix("HTTP/1.1 200 "))
                let slow = slowConnection.readToEnd()
                #expect(slow.hasPrefix("HTTP/1.1 200 "))
                // The direct request was decided while the proxy's bcrypt check still ran: it is before it.
                #expect(server.journal.first?.status == 407 && server.journal.first?.hop == .proxy)
                let exchanges = server.journal.dropFirst()
                #expect(exchanges.map(\.verdict) == [.publicResource, .basicOK, .publicResource])
                #expect(exchanges.map { $0.hop ?? .origin } == [.origin, .proxy, .origin])

                // A CONNECT waits for its check the same way: refused, or granted and then the tunnel.
                let target = "http://127.0.0.1:\(origin)/"
                let tunnel = ["-p", "-x", try proxyURL(server), "--proxy-user"]
                let refused = try await curl(tunnel + ["tunnel:wrong", target])
                #expect(refused.result.status != 0 && server.journal.last?.status == 407)
                let tunnelled = try await curl(tunnel + ["tunnel:pw-tunnel", target])
                #expect(tunnelled.status == 200)
                let last = server.journal.suffix(2)
                #expect(last.map(\.verdict) == [.basicOK, .publicResource])
                #expect(last.first?.method == "CONNECT" && last.last?.hop == nil)
            }
        }
    }

    /// Proxy and origin both authenticate; the journal shows both hops and no leak either way.
    @Test func proxyAndOrigin() async throws {
        try await withServer(try shipped("proxy-and-origin.yaml")) { server in
            let ok = try await curl([
                "-x", try proxyURL(server), "--proxy-digest", "--proxy-user", "carrier:pigeon",
                "--digest", "-u", "alice:wonderland", server.url,
            ])
            #expect(ok.status == 200)
            let journal = server.journal
            #expect(journal.contains { $0.hop == .proxy && $0.verdict == .digestOK })
            #expect(journal.contains { $0.hop == nil && $0.verdict == .digestOK })
            #expect(journal.allSatisfy { $0.leaks == nil })
        }
    }

    /// Leaks are named: proxy credentials sent inside the tunnel, origin credentials sent on CONNECT.
    @Test func leaksAreJournaled() async throws {
        try await withServer(try shipped("proxy-connect-digest.yaml")) { server in
            let tls = try #require(server.tls)
            _ = try await curl([
                "-x", try proxyURL(server), "--proxy-digest", "--proxy-user", "carrier:pigeon", "--cacert", tls.caFile,
                "-H", "Proxy-Authorization: Basic Y2FycmllcjpwaWdlb24=",
                "--proxy-header", "Authorization: Basic YWxpY2U6d29uZGVybGFuZA==",
                "-u", "alice:wonderland", server.url,
            ])
            let leaks = server.journal.compactMap(\.leaks).flatMap { $0 }
            #expect(leaks.contains("Proxy-Authorization reached the origin"))
            #expect(leaks.contains("Authorization (origin credentials) was sent to the proxy on CONNECT"))
        }
    }

    /// CONNECT abuse and bad targets are refused cleanly, journaled, and the proxy keeps serving.
    @Test func abuseIsRefused() async throws {
        try await withServer(try shipped("proxy-basic.yaml")) { server in
            let port = try #require(URLComponents(string: try proxyURL(server))?.port)
            let longHost = String(repeating: "a", count: 6000)
            let cases: [(String, String, Verdict)] = [
                ("CONNECT 192.0.2.1:443 HTTP/1.1\r\nHost: 192.0.2.1:443\r\n\r\n", "403", .proxyTargetRefused),
                ("CONNECT localhost:1 HTTP/1.1\r\nHost: localhost:1\r\n\r\n", "403", .proxyTargetRefused),
                ("CONNECT localhost HTTP/1.1\r\nHost: localhost\r\n\r\n", "400", .proxyBadTarget),
                ("CONNECT :443 HTTP/1.1\r\nHost: x\r\n\r\n", "400", .proxyBadTarget),
                ("GET /relative HTTP/1.1\r\nHost: x\r\n\r\n", "400", .proxyBadTarget),
                ("CONNECT \(longHost):443 HTTP/1.1\r\nHost: x\r\n\r\n", "414", .proxyBadTarget),
            ]
            for (index, (request, status, verdict)) in cases.enumerated() {
                let connection = try RawConnection(port: port)
                try connection.send(request)
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                // Read the answer (the connection stays open: the proxy keeps serving it).
                while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
                    let n = recv(connection.fd, &buffer, buffer.count, 0)
                    if n <= 0 { break }
                    received += buffer[0..<n]
                }
                let text = String(decoding: received, as: UTF8.self)
                #expect(text.hasPrefix("HTTP/1.1 \(status) "), "case \(index): \(text.prefix(60))")
                #expect(server.journal.last?.verdict == verdict, "case \(index)")
                #expect(server.journal.last?.hop == .proxy, "case \(index)")
            }
            let ok = try await curl(
                ["-x", try proxyURL(server), "--proxy-basic", "--proxy-user", "carrier:pigeon", server.url]
            )
            #expect(ok.status == 200)
        }
    }

    /// The proxy's users change like the origin's: POST /_authmock/proxy/users/NAME.
    @Test func proxyPasswordChange() async throws {
        try await withServer(try shipped("proxy-basic.yaml")) { server in
            let change = try await curl(
                ["-X", "POST", "-H", "Content-Type: application/json", "-d", #"{"password": "homing"}"#, server.url + "_authmock/proxy/users/carrier"]
            )
            #expect(change.status == 200)
            let proxied = ["-x", try proxyURL(server), "--proxy-basic", "--proxy-user"]
            let old = try await curl(proxied + ["carrier:pigeon", server.url])
            #expect(old.status == 407)
            #expect(server.journal.last?.verdict == .credentialStalePassword)
            let new = try await curl(proxied + ["carrier:homing", server.url])
            #expect(new.status == 200)
            let recorded = server.journal.first { $0.verdict == .userPasswordChanged }
            #expect(recorded?.hop == .proxy, "the change is the proxy's")
        }
    }
}
