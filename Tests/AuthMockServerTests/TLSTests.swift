import AuthMockCertificates
import AuthMockCore
import AuthMockServer
import Foundation
import Testing

/// HTTPS identities, pins, rotation and client certificates, checked with real curl and openssl.
@Suite(.serialized)
struct TLSTests {
    func tlsScenario(_ kind: IdentityKind, _ adjust: (inout TLSSettings) -> Void = { _ in }) throws -> Scenario {
        var scenario = try shipped("basic.yaml")
        var settings = TLSSettings(identity: kind)
        adjust(&settings)
        scenario.tls = settings
        return scenario
    }

    func tlsInfo(_ server: AuthMockServer) throws -> TLSInfo { try #require(server.tls) }

    /// curl through, then wait until the server has closed (and journaled) its connections.
    func settledCurl(_ server: AuthMockServer, _ arguments: [String]) async throws -> (status: Int, body: String, result: ProcessResult) {
        let answer = try await curl(arguments)
        let closed = await server.waitForConnectionsToClose()
        #expect(closed, "the server still holds connections after curl exited")
        return answer
    }

    /// Without --cacert curl refuses the self-signed leaf and sends no request; with ca.pem it gets in.
    @Test func selfSigned() async throws {
        try await withServer(try tlsScenario(.selfSigned)) { server in
            #expect(server.url.hasPrefix("https://localhost:"))
            let refused = try await settledCurl(server, ["-u", "alice:wonderland", server.url])
            #expect(refused.result.status == 60)
            let journal = server.journal
            #expect(journal.allSatisfy { $0.method == nil }, "no HTTP request may arrive after a failed trust check")
            #expect(journal.last?.verdict == .tlsHandshakeFailed)
            #expect(journal.last?.detail?.contains("the client aborted the handshake") == true)
            #expect(journal.last?.requests == 0)

            // Over TLS 1.2 the client's alert is readable, and the journal names it.
            let refused12 = try await settledCurl(server, ["--tls-max", "1.2", "-u", "alice:wonderland", server.url])
            #expect(refused12.result.status == 60)
            #expect(server.journal.last?.detail?.contains("unknown_ca") == true)
            #expect(server.journal.allSatisfy { $0.method == nil })

            let trusted = try await settledCurl(server, ["--cacert", try tlsInfo(server).caFile, "-u", "alice:wonderland", server.url])
            #expect(trusted.status == 200)
        }
    }

    /// The correct setup: ca.pem verifies the chain; HTTP entries carry the TLS facts; Basic works.
    @Test func caSigned() async throws {
        try await withServer(try tlsScenario(.caSigned) { $0.intermediate = true }) { server in
            let info = try tlsInfo(server)
            let ok = try await settledCurl(server, ["--cacert", info.caFile, "-u", "alice:wonderland", server.url])
            #expect(ok.status == 200)
            #expect(ok.body == "Hello, alice!\n")
            let http = try #require(server.journal.first { $0.method != nil })
            #expect(http.verdict == .basicOK)
            #expect(http.tls?.version == "TLSv1.3")
            #expect(http.tls?.alpn == "http/1.1")
            let chain = try String(contentsOfFile: info.chainFile, encoding: .utf8)
            #expect(chain.components(separatedBy: "BEGIN CERTIFICATE").count == 3, "leaf and intermediate are sent")
        }
    }

    /// Each broken identity fails in curl, with ca.pem given, for its own reason, before any request.
    @Test(arguments: [
        (IdentityKind.expired, "certificate has expired"),
        (.notYetValid, "certificate is not yet valid"),
        (.wrongHost, "no alternative certificate subject name matches"),
        (.untrustedRoot, "unable to get local issuer certificate"),
        (.incompleteChain, "unable to get local issuer certificate"),
        (.weakKey, "key too"),
        (.sha1Signature, "too weak"),
    ])
    func brokenIdentitiesFail(kind: IdentityKind, reason: String) async throws {
        try await withServer(try tlsScenario(kind)) { server in
            let answer = try await settledCurl(server, ["--cacert", try tlsInfo(server).caFile, "-u", "alice:wonderland", server.url])
            #expect(answer.result.status == 60, "\(kind): \(answer.result.stderr)")
            #expect(answer.result.stderr.lowercased().contains(reason.lowercased()), "\(kind): \(answer.result.stderr)")
            #expect(server.journal.allSatisfy { $0.method == nil }, "\(kind): no HTTP request may arrive")
            // curl checks the host name after the handshake completes, so the server sees a finished
            // handshake followed by no request; every other refusal aborts the handshake itself.
            #expect(server.journal.last?.verdict == (kind == .wrongHost ? .tlsNoRequest : .tlsHandshakeFailed), "\(kind)")
        }
    }

    /// openssl s_client, given ca.pem and the host, agrees with each identity's intent, whether the identity
    /// has a root of its own or is signed by a check run's shared root (whose ca.pem is then that root, except
    /// for a self-signed leaf and the SHA-1 identity's RSA root).
    @Test(arguments: IdentityKind.allCases, [false, true])
    func opensslAgrees(kind: IdentityKind, sharedRoot: Bool) async throws {
        let root = sharedRoot ? try TLSRoot.generate() : nil
        let rootPEM = try root?.certificatePEM
        try await withServer(try tlsScenario(kind), configuration: ServerConfiguration(port: 0, tlsRoot: root)) { server in
            let ca = try String(contentsOfFile: try tlsInfo(server).caFile, encoding: .utf8)
            let signedByTheSharedRoot = rootPEM != nil && ca == rootPEM
            #expect(signedByTheSharedRoot == (sharedRoot && kind != .selfSigned && kind != .sha1Signature), "\(kind)")
            let result = try await run("/usr/bin/openssl", [
                "s_client", "-connect", "127.0.0.1:\(server.port)", "-servername", "localhost", "-verify_hostname", "localhost",
                "-verify_return_error", "-CAfile", try tlsInfo(server).caFile,
            ], timeout: .seconds(10))
            let output = result.stdout + result.stderr
            // OpenSSL's host check still falls back to the subject CN when a leaf has no DNS
            // subjectAltName, so cn-only verifies here; the conformance case grades that informational.
            let verified = output.contains("Verify return code: 0 (ok)") && !output.contains("verify error")
            #expect(verified == (kind.isTrustworthy || kind == .cnOnly), "\(kind): \(output.suffix(400))")
        }
    }

    /// The published pin is RFC 7469's: openssl computes the same value from leaf.pem.
    @Test func pinMatchesOpenSSL() async throws {
        try await withServer(try tlsScenario(.caSigned)) { server in
            let info = try tlsInfo(server)
            let script = "openssl x509 -in '\(info.leafFile)' -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64"
            let pin = try await run("/bin/sh", ["-c", script]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(pin == info.pinSHA256)
            #expect(info.curlPin == "sha256//\(pin)")
            let fingerprint = try await run("/usr/bin/openssl", ["x509", "-in", info.leafFile, "-noout", "-fingerprint", "-sha256"]).stdout
            #expect(fingerprint.replacingOccurrences(of: ":", with: "").lowercased().contains(info.fingerprintSHA256))
        }
    }

    /// --pinnedpubkey with the published pin passes; a wrong pin fails with no request journaled; a
    /// rotation that keeps the key keeps the pin, one that changes it breaks the pin.
    @Test func pinning() async throws {
        try await withServer(try tlsScenario(.caSigned)) { server in
            let info = try tlsInfo(server)
            let pinned = try await settledCurl(server, ["--cacert", info.caFile, "--pinnedpubkey", info.curlPin, "-u", "alice:wonderland", server.url])
            #expect(pinned.status == 200)

            let before = server.journal.count
            let wrong = try await settledCurl(server, [
                "--cacert", info.caFile, "--pinnedpubkey", "sha256//AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "-u", "alice:wonderland", server.url,
            ])
            #expect(wrong.result.status == 90)
            let after = server.journal.dropFirst(before)
            #expect(after.allSatisfy { $0.method == nil }, "a pin failure must happen before any request")
            #expect(after.last?.verdict == .tlsNoRequest)

            try await server.rotateCertificate(keepKey: true)
            let kept = try tlsInfo(server)
            #expect(kept.pinSHA256 == info.pinSHA256)
            #expect(kept.fingerprintSHA256 != info.fingerprintSHA256)
            let stillPinned = try await settledCurl(server, ["--cacert", info.caFile, "--pinnedpubkey", info.curlPin, "-u", "alice:wonderland", server.url])
            #expect(stillPinned.status == 200)

            try await server.rotateCertificate(keepKey: false)
            #expect(try tlsInfo(server).pinSHA256 != info.pinSHA256)
            let broken = try await settledCurl(server, ["--cacert", info.caFile, "--pinnedpubkey", info.curlPin, "-u", "alice:wonderland", server.url])
            #expect(broken.result.status == 90)
        }
    }

    /// Rotations that run at once leave the files describing the certificate actually served.
    @Test func concurrentRotations() async throws {
        try await withServer(try tlsScenario(.caSigned)) { server in
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<8 { group.addTask { try? await server.rotateCertificate(keepKey: index % 2 == 0) } }
            }
            let info = try tlsInfo(server)
            let fingerprint = try await run("/usr/bin/openssl", ["x509", "-in", info.leafFile, "-noout", "-fingerprint", "-sha256"]).stdout
            #expect(fingerprint.replacingOccurrences(of: ":", with: "").lowercased().contains(info.fingerprintSHA256))
            let pinned = try await settledCurl(server, ["--cacert", info.caFile, "--pinnedpubkey", info.curlPin, "-u", "alice:wonderland", server.url])
            #expect(pinned.status == 200, "the served certificate is the one the files and pins describe")
        }
    }

    /// A rotation keeps a broken identity broken: not yet valid stays not yet valid, a weak key stays weak.
    @Test(arguments: [(IdentityKind.notYetValid, "not yet valid"), (.weakKey, "key too")])
    func rotationKeepsBrokenIdentities(kind: IdentityKind, reason: String) async throws {
        try await withServer(try tlsScenario(kind)) { server in
            try await server.rotateCertificate(keepKey: false)
            let answer = try await settledCurl(server, ["--cacert", try tlsInfo(server).caFile, server.url])
            #expect(answer.result.status == 60)
            #expect(answer.result.stderr.lowercased().contains(reason))
        }
    }

    /// SHA-1 with an intermediate: the intermediate is RSA so it can sign the SHA-1 leaf.
    @Test func sha1WithIntermediate() async throws {
        try await withServer(try tlsScenario(.sha1Signature) { $0.intermediate = true }) { server in
            let answer = try await settledCurl(server, ["--cacert", try tlsInfo(server).caFile, server.url])
            #expect(answer.result.status == 60)
        }
    }

    /// Rotation on schedule and over the control endpoint; GET /_authmock/tls shows the current pins.
    @Test func rotationControl() async throws {
        try await withServer(try shipped("tls-pin-rotation.yaml")) { server in
            let info = try tlsInfo(server)
            let base = server.url
            func currentTLS() async throws -> TLSInfo {
                let answer = try await settledCurl(server, ["--cacert", info.caFile, base + "_authmock/tls"])
                return try JSONDecoder().decode(TLSInfo.self, from: Data(answer.body.utf8))
            }
            #expect(try await currentTLS() == info)
            // Two requests (challenge + answer) trigger the scheduled rotation, keeping the key.
            #expect(try await settledCurl(server, ["--cacert", info.caFile, "--digest", "-u", "alice:wonderland", base]).status == 200)
            let rotated = try await currentTLS()
            #expect(rotated.fingerprintSHA256 != info.fingerprintSHA256)
            #expect(rotated.pinSHA256 == info.pinSHA256)

            let answer = try await settledCurl(server, ["--cacert", info.caFile, "-X", "POST", "-H", "Content-Type: application/json", base + "_authmock/tls/rotate?keep-key=false"])
            #expect(answer.status == 200)
            #expect(try await currentTLS().pinSHA256 != info.pinSHA256)

            // The plain-HTTP listener serves the same scenario.
            let plain = try #require(server.httpURL)
            #expect(try await settledCurl(server, ["--digest", "-u", "alice:wonderland", plain]).status == 200)
        }
    }

    /// mTLS: with the user's certificate curl gets in and the journal names its subject; without, the
    /// handshake fails and the journal says why.
    @Test func clientCertificates() async throws {
        try await withServer(try shipped("tls-mtls.yaml")) { server in
            let info = try tlsInfo(server)
            let alice = try #require(info.clientCerts?["alice"])
            #expect(alice.subject == "CN=alice,O=authmock")
            let ok = try await settledCurl(server, ["--cacert", info.caFile, "--cert", alice.certFile, "--key", alice.keyFile, "-u", "alice:wonderland", server.url])
            #expect(ok.status == 200)
            let entry = try #require(server.journal.first { $0.method != nil })
            #expect(entry.tls?.clientCertificate == "CN=alice,O=authmock")

            let before = server.journal.count
            let without = try await settledCurl(server, ["--cacert", info.caFile, "-u", "alice:wonderland", server.url])
            #expect(without.status != 200)
            let after = server.journal.dropFirst(before)
            #expect(after.allSatisfy { $0.method == nil })
            #expect(after.last?.verdict == .tlsHandshakeFailed)
            #expect(after.last?.detail?.contains("no certificate") == true)
        }
    }

    /// An optional client certificate: the connection works with or without one.
    @Test func optionalClientCertificate() async throws {
        try await withServer(try tlsScenario(.caSigned) { $0.clientCertificate = .optional }) { server in
            let info = try tlsInfo(server)
            let alice = try #require(info.clientCerts?["alice"])
            #expect(try await settledCurl(server, ["--cacert", info.caFile, "-u", "alice:wonderland", server.url]).status == 200)
            #expect(try await settledCurl(server, ["--cacert", info.caFile, "--cert", alice.certFile, "--key", alice.keyFile, "-u", "alice:wonderland", server.url]).status == 200)
            let subjects = server.journal.filter { $0.method != nil }.map { $0.tls?.clientCertificate }
            #expect(subjects == [nil, "CN=alice,O=authmock"])
        }
    }

    /// Digest, stale nonces included, works unchanged over HTTPS; RSA keys work too.
    @Test func digestOverHTTPSWithRSA() async throws {
        var scenario = try shipped("digest.yaml")
        scenario.tls = TLSSettings(identity: .caSigned, keyType: .rsa2048)
        try await withServer(scenario) { server in
            let answer = try await settledCurl(server, ["--cacert", try tlsInfo(server).caFile, "--digest", "-u", "alice:wonderland", server.url + "search?q=x"])
            #expect(answer.status == 200)
            #expect(server.journal.filter { $0.method != nil }.map(\.verdict) == [.noCredentials, .digestOK])
        }
    }

    /// A client speaking plain HTTP to the HTTPS port is named as such.
    @Test func plainHTTPToTLSPort() async throws {
        try await withServer(try tlsScenario(.caSigned)) { server in
            _ = try await settledCurl(server, ["http://127.0.0.1:\(server.port)/"])
            #expect(server.journal.last?.verdict == .tlsPlainHTTP)
            #expect(server.journal.last?.detail?.contains("plain HTTP") == true)
        }
    }

    /// The certificate files live in a temporary directory that shutdown removes.
    @Test func temporaryFilesAreRemoved() async throws {
        let server = AuthMockServer(scenario: try tlsScenario(.caSigned), configuration: ServerConfiguration(port: 0))
        try await server.start()
        let caFile = try tlsInfo(server).caFile
        #expect(FileManager.default.fileExists(atPath: caFile))
        try await server.shutdown()
        #expect(!FileManager.default.fileExists(atPath: caFile))
    }

    /// The cn-only leaf names the host in its CN and has no subjectAltName extension at all.
    @Test func cnOnlyLeafHasNoSubjectAltName() async throws {
        try await withServer(try tlsScenario(.cnOnly)) { server in
            let text = try await run("/usr/bin/openssl", ["x509", "-in", try tlsInfo(server).leafFile, "-noout", "-text"]).stdout
            #expect(text.contains("CN = localhost"))
            #expect(!text.contains("Subject Alternative Name"))
            #expect(text.contains("TLS Web Server Authentication"))
        }
    }

    /// The no-common-name leaf has a subject without CN and its names in the subjectAltName; curl accepts it.
    @Test func noCommonNameLeafIsAcceptedOnItsSubjectAltName() async throws {
        try await withServer(try tlsScenario(.noCommonName)) { server in
            let info = try tlsInfo(server)
            let text = try await run("/usr/bin/openssl", ["x509", "-in", info.leafFile, "-noout", "-text"]).stdout
            #expect(text.contains("Subject: O = authmock\n"), "\(text.prefix(800))")
            #expect(text.contains("DNS:localhost"))
            #expect(try await settledCurl(server, ["--cacert", info.caFile, "-u", "alice:wonderland", server.url]).status == 200)
        }
    }

    /// A server bounded to TLS 1.0–1.1: curl with Debian's OpenSSL refuses it before any request, and the
    /// journal names the alert; told to allow old protocols, curl gets through over TLS 1.1 (the server
    /// really speaks it).
    @Test func oldProtocolOnly() async throws {
        let scenario = try tlsScenario(.caSigned) {
            $0.minVersion = .v1_0
            $0.maxVersion = .v1_1
        }
        try await withServer(scenario) { server in
            let ca = try tlsInfo(server).caFile
            let refused = try await settledCurl(server, ["--cacert", ca, "-u", "alice:wonderland", server.url])
            #expect(refused.result.status == 35, "\(refused.result.stderr)")
            let failed = try #require(server.journal.last)
            #expect(failed.verdict == .tlsHandshakeFailed)
            #expect(failed.tls?.alert != nil, "\(String(describing: failed.tls))")
            #expect(server.journal.allSatisfy { $0.method == nil })

            let allowed = try await settledCurl(server, [
                "--cacert", ca, "--tlsv1.0", "--tls-max", "1.1", "--ciphers", "DEFAULT@SECLEVEL=0", "-u", "alice:wonderland", server.url,
            ])
            #expect(allowed.status == 200, "\(allowed.result.stderr)")
            let http = try #require(server.journal.first { $0.method != nil })
            #expect(http.tls?.version == "TLSv1.1")
            #expect(http.tls?.cipher?.hasSuffix("_CBC_SHA") == true, "\(String(describing: http.tls?.cipher))")
        }
    }

    /// Each TLS entry names the server name the client asked for (none for an IP literal), the cipher,
    /// and the certificate and pin the server presented on that connection.
    @Test func journalRecordsSNICipherAndThePresentedCertificate() async throws {
        try await withServer(try tlsScenario(.caSigned)) { server in
            let info = try tlsInfo(server)
            #expect(try await settledCurl(server, ["--cacert", info.caFile, "-u", "alice:wonderland", server.url]).status == 200)
            let byName = try #require(server.journal.first { $0.method != nil }?.tls)
            #expect(byName.serverName == "localhost")
            #expect(byName.cipher?.hasPrefix("TLS_AES_") == true || byName.cipher == "TLS_CHACHA20_POLY1305_SHA256", "\(String(describing: byName.cipher))")
            #expect(byName.certificateSHA256 == info.fingerprintSHA256)
            #expect(byName.pinSHA256 == info.pinSHA256)
            #expect(info.certSHA256 == info.fingerprintSHA256)

            let byAddress = server.url.replacingOccurrences(of: "localhost", with: "127.0.0.1")
            #expect(try await settledCurl(server, ["--cacert", info.caFile, "-u", "alice:wonderland", byAddress]).status == 200)
            let entry = try #require(server.journal.last { $0.method != nil }?.tls)
            #expect(entry.serverName == nil)
            #expect(entry.cipher != nil)
        }
    }
}
