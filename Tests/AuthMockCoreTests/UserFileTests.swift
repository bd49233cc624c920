import Foundation
import Testing
@testable import AuthMockCore

/// htpasswd and htdigest files: the hashes, the file format and its errors, the loader's rules and the
/// engine's answers, all without a disk (the files are in memory) or a network.
///
/// The hashes below were made by Apache's own tools (apache2-utils 2.4.x) — `htpasswd -nbm apr pw1` and
/// so on — so that each format is checked against the implementation users have; the server tests make
/// fresh ones with the real tools on every run.
struct UserFileTests {
    static let made: [(user: String, password: String, hash: String, scheme: String)] = [
        ("apr", "pw1", "$apr1$b0oib4by$lRuYg91ZWqNrURGvOUADU.", "apr1"),
        ("bc", "pw2", "$2y$05$rPIqWB8upNHcldPb6bm6surR4qKV5LooNNWIZNrstSkCHDBZSvuRS", "bcrypt"),
        ("sha", "pw3", "{SHA}Z/q5KhbWJGlg/C2XbiLEJnMKKr8=", "sha1"),
        ("des", "pw4", "58c/xzrusvNTM", "des-crypt"),
        ("s256", "pw5", "$5$Ak0OH0kq6RpvWcih$Bm9ap23kX.CoPsM5mWoPHloeeQ15sG6btrdkZgRVs3B", "sha256-crypt"),
        ("s512", "pw6", "$6$ADXFKkBbkyQMQOOk$NbasbFGy.1pJ503ydj8TLDkPdIgAThp8U6jojLXyCbBDi2DhcFjP4loX8.8JyGrvDkNKZ9ue537L0/Ukyj11g/", "sha512-crypt"),
    ]

    /// Each hash htpasswd made is read as its scheme, verifies its password, and refuses a longer or an empty one.
    @Test(arguments: made.indices)
    func hashesMadeByHtpasswdVerify(index: Int) throws {
        let entry = Self.made[index]
        let stored = try #require(StoredPassword.htpasswd(entry.hash))
        #expect(stored.scheme == entry.scheme)
        #expect(stored.verify(Array(entry.password.utf8), user: entry.user))
        #expect(!stored.verify(Array((entry.password + "x").utf8), user: entry.user))
        #expect(!stored.verify([], user: entry.user))
    }

    /// A `{SHA}` hash is compared whole: its tag, then the digest's base64 to the last byte.
    @Test func shaHashIsComparedWhole() {
        let password = Array("pw3".utf8)
        #expect(StoredPassword.sha1("{SHA}Z/q5KhbWJGlg/C2XbiLEJnMKKr8=").verify(password, user: "sha"))
        for stored in ["{sha}Z/q5KhbWJGlg/C2XbiLEJnMKKr8=", "XSHA}Z/q5KhbWJGlg/C2XbiLEJnMKKr8=", "{SHA}Z/q5KhbWJGlg/C2XbiLEJnMKKr8",
                       "{SHA}Z/q5KhbWJGlg/C2XbiLEJnMKKr8==", "{SHA}", "{SH", ""] {
            #expect(!StoredPassword.sha1(stored).verify(password, user: "sha"), "\(stored)")
        }
    }

    /// Our MD5-crypt (for `$apr1$`) is the same algorithm as libcrypt's `$1$`: they must agree on any input.
    @Test func md5CryptAgreesWithLibcrypt() throws {
        var random = SplitMix64(seed: 7)
        for length in [0, 1, 7, 15, 16, 17, 31, 33, 64] {
            let password = (0..<length).map { _ in UInt8.random(in: 1...255, using: &random) }
            let salt = Array("abcdefgh".utf8.prefix(Int.random(in: 1...8, using: &random)))
            let ours = StoredPassword.md5Crypt(password, salt: salt, magic: "$1$")
            let theirs = try #require(StoredPassword.crypt(password, setting: "$1$" + String(decoding: salt, as: UTF8.self) + "$"))
            #expect(ours == theirs, "password of \(length) bytes")
        }
    }

    /// An htdigest entry verifies its user's password, and refuses it for another user or with another letter case.
    @Test func htdigestEntriesAreMD5OfUserRealmPassword() {
        // `printf 'secret\nsecret\n' | htdigest -c FILE "my realm" alice`
        let stored = StoredPassword.htdigest(realm: "my realm", ha1: "7c886370fa7e3e817acf3826a6cd8246")
        #expect(stored.verify(Array("secret".utf8), user: "alice"))
        #expect(!stored.verify(Array("secret".utf8), user: "bob"))
        #expect(!stored.verify(Array("Secret".utf8), user: "alice"))
    }

    /// A SHA-crypt hash's `rounds=` is not paid at load: the shape is probed with libcrypt's fewest
    /// rounds. Probing with the hash's own made `$6$rounds=999999999$…` cost minutes per line. Found by
    /// FuzzScenarioLoader (a timeout).
    @Test func shaCryptRoundsAreNotPaidAtLoad() throws {
        // Made with `rounds=1000`, then given libcrypt's most, 999999999 rounds (minutes of hashing): the
        // shape holds, and loading takes nowhere near that, even on a loaded machine.
        let real = "$6$rounds=1000$saltsalt$ShwM8jwLN1d7QBdoM6trXqlZVpbJk8ad.G9QGILVeTZsWSjOGLPrj5vlpdcTOegssHAdf7HhEPcHj5/MTDz5g0"
        let many = real.replacingOccurrences(of: "rounds=1000$", with: "rounds=999999999$")
        let clock = ContinuousClock()
        let start = clock.now
        #expect(StoredPassword.htpasswd(many) == .crypt(many))
        #expect(clock.now - start < .seconds(15))
        #expect(try #require(StoredPassword.htpasswd(real)).verify(Array("pw7".utf8), user: "u"))
        // What libcrypt refuses still does not load: fewer than 1000 rounds, a leading zero, too many digits.
        for rounds in ["999", "05000", "1000000000", "", "x"] {
            #expect(StoredPassword.htpasswd(real.replacingOccurrences(of: "rounds=1000$", with: "rounds=\(rounds)$")) == nil, "rounds=\(rounds)")
        }
    }

    /// A password in clear, or a field shaped almost like a hash htpasswd writes, is not read as a hash.
    @Test(arguments: ["plaintext", "$apr1$short$x", "{SHA}bm90IDIwIGJ5dGVz", "$6$", "$2y$05$tooshort", "58c/xzrusvNT!", "$9$abc$def"])
    func whatIsNotAnHtpasswdHashIsRefused(field: String) {
        #expect(StoredPassword.htpasswd(field) == nil)
    }

    /// Comments and blank lines are skipped and the good line is read with its source; a line without ':', a
    /// password in clear, a user listed twice and an empty name are each reported at their line and column.
    @Test func aMalformedHtpasswdFileIsReportedLineByLine() {
        let text = "# made by hand\nalice:$apr1$b0oib4by$lRuYg91ZWqNrURGvOUADU.\n\nbob\ncarol:wonderland\nalice:{SHA}Z/q5KhbWJGlg/C2XbiLEJnMKKr8=\r\n:58c/xzrusvNTM\n"
        let read = UserFile.htpasswd(text, file: "users.htpasswd")
        #expect(read.users.map(\.name) == ["alice"])
        #expect(read.users.first?.source == "users.htpasswd:2")
        #expect(read.diagnostics.map { "\($0.line):\($0.column)" } == ["4:1", "5:7", "6:1", "7:1"])
        #expect(read.diagnostics[0].description.hasPrefix("users.htpasswd:4:1: the line has no ':' between the user name and the hash — "))
        #expect(read.diagnostics[1].message == "'wonderland' is not a password hash htpasswd writes")
        #expect(read.diagnostics[2].message == "user 'alice' is listed twice")
        #expect(read.diagnostics[3].message == "the user name is empty")
    }

    /// A line with two fields, a HA1 that is not an MD5 digest and a user listed twice in a realm are reported at
    /// their positions; the same user in another realm is an entry of its own.
    @Test func aMalformedHtdigestFileIsReportedLineByLine() {
        let text = "alice:my realm:7c886370fa7e3e817acf3826a6cd8246\nbob:my realm\ncarol:my realm:XYZ\nalice:my realm:7c886370fa7e3e817acf3826a6cd8246\nalice:other:7c886370fa7e3e817acf3826a6cd8246\n"
        let read = UserFile.htdigest(text, file: "users.htdigest")
        #expect(read.users.map { "\($0.user.name)@\($0.realm)" } == ["alice@my realm", "alice@other"])
        #expect(read.diagnostics.map { "\($0.line):\($0.column)" } == ["2:1", "3:16", "4:1"])
        #expect(read.diagnostics[0].message == "the line has 2 field(s); htdigest lines have 3")
        #expect(read.diagnostics[1].message.contains("is not an MD5 digest"))
    }

    // MARK: - The loader

    static func scenario(_ users: String, realm: String = "my realm", challenges: String = "[{scheme: Basic}]") -> String {
        "version: 1\nname: files\nrealm: \(realm)\nusers: \(users)\nchallenges: \(challenges)\n"
    }

    static let files = ScenarioFileReader.inMemory([
        "conf/users.htpasswd": "apr:$apr1$b0oib4by$lRuYg91ZWqNrURGvOUADU.\nbc:$2y$05$rPIqWB8upNHcldPb6bm6surR4qKV5LooNNWIZNrstSkCHDBZSvuRS\n",
        "conf/users.htdigest": "alice:my realm:7c886370fa7e3e817acf3826a6cd8246\nalice:elsewhere:00000000000000000000000000000000\n",
        "conf/bad.htpasswd": "apr:$apr1$b0oib4by$lRuYg91ZWqNrURGvOUADU.\nbc:hunter2\n",
        "conf/empty.htpasswd": "# nobody yet\n",
    ])

    func loadErrors(_ yaml: String) -> [String] {
        do {
            _ = try ScenarioLoader.load(yaml: yaml, file: "conf/s.yaml", files: Self.files)
            return []
        } catch {
            return error.diagnostics.map(\.description)
        }
    }

    /// `users: {htpasswd: …}` and `{htdigest: …}` are read from the scenario's directory, each user with its hash
    /// scheme and the file line it came from.
    @Test func usersComeFromAFileRelativeToTheScenario() throws {
        let scenario = try ScenarioLoader.load(yaml: Self.scenario("{htpasswd: users.htpasswd}"), file: "conf/s.yaml", files: Self.files)
        #expect(scenario.users.map(\.name) == ["apr", "bc"])
        #expect(scenario.users.map { $0.stored?.scheme } == ["apr1", "bcrypt"])
        #expect(scenario.users.first?.source == "conf/users.htpasswd:1")

        let digest = try ScenarioLoader.load(
            yaml: Self.scenario("{htdigest: users.htdigest}", challenges: "[{scheme: Digest, algorithm: MD5}]"), file: "conf/s.yaml", files: Self.files
        )
        #expect(digest.users.map(\.name) == ["alice"])
        #expect(digest.users.first?.stored == .htdigest(realm: "my realm", ha1: "7c886370fa7e3e817acf3826a6cd8246"))
    }

    /// A bad line of a user file is reported at its line and column in that file, with how to make a proper hash.
    @Test func errorsInTheUserFileArePositionedInIt() {
        #expect(loadErrors(Self.scenario("{htpasswd: bad.htpasswd}")) == [
            "conf/bad.htpasswd:2:4: 'hunter2' is not a password hash htpasswd writes — make it with htpasswd: -B (bcrypt), -5 (SHA-512), -2 (SHA-256), -m ($apr1$) or -s ({SHA}); a password in clear belongs in the scenario's `users:` list",
        ])
    }

    /// The loader refuses a user file that cannot serve the scenario (htpasswd for Digest, htdigest for SHA-256,
    /// any hash for NTLM, no user in the realm, a missing or empty file, two files, a misspelt key), even after
    /// an earlier problem elsewhere.
    @Test func whatAUserFileCannotServeIsRefused() {
        #expect(loadErrors(Self.scenario("{htpasswd: users.htpasswd}", challenges: "[{scheme: Digest}]")).first?.contains(
            "conf/s.yaml:4:8: Digest cannot use an htpasswd file") == true)
        #expect(loadErrors(Self.scenario("{htdigest: users.htdigest}", challenges: "[{scheme: Digest, algorithm: SHA-256}]")).first?.contains(
            "Digest with SHA-256 cannot use an htdigest file") == true)
        #expect(loadErrors(Self.scenario("{htpasswd: users.htpasswd}", challenges: "[{scheme: NTLM}]")).first?.contains(
            "NTLM and Negotiate need the users' passwords") == true)
        #expect(loadErrors(Self.scenario("{htdigest: users.htdigest}", realm: "nowhere")) == [
            "conf/s.yaml:4:19: no user in 'conf/users.htdigest' belongs to the realm 'nowhere' — htdigest entries are made for one realm; this file has 'elsewhere', 'my realm': set `realm:` to one of them",
        ])
        #expect(loadErrors(Self.scenario("{htpasswd: missing.htpasswd}")) == [
            "conf/s.yaml:4:19: cannot read the htpasswd file 'conf/missing.htpasswd' (no such file) — the path is relative to the scenario file's directory",
        ])
        #expect(loadErrors(Self.scenario("{htpasswd: empty.htpasswd}")).first?.contains("holds no users") == true)
        // An earlier problem elsewhere in the scenario does not hide this one.
        let both = loadErrors("version: 1\nname: files\ndescription: [1]\nusers: {htpasswd: empty.htpasswd}\nchallenges: [{scheme: Basic}]\n")
        #expect(both.contains { $0.contains("holds no users") }, "\(both)")
        #expect(loadErrors(Self.scenario("{htpasswd: a, htdigest: b}")).first?.contains("users: takes one user file") == true)
        #expect(loadErrors(Self.scenario("{htpassword: users.htpasswd}")).first?.contains("did you mean 'htpasswd'?") == true)
    }

    // MARK: - The engine

    /// Basic checks passwords against the $apr1$ and bcrypt hashes of the file (a second time from the memo, with
    /// the same answer), and still tells a wrong password from an unknown user.
    @Test func basicChecksPasswordsAgainstStoredHashes() throws {
        let scenario = try ScenarioLoader.load(yaml: Self.scenario("{htpasswd: users.htpasswd}"), file: "conf/s.yaml", files: Self.files)
        var h = Harness(scenario)
        #expect(h.send(authorization: basic("apr", "pw1")).verdict == .basicOK)
        #expect(h.send(authorization: basic("bc", "pw2")).verdict == .basicOK)
        // Again: now from the memo, with the same answer.
        #expect(h.send(authorization: basic("bc", "pw2")).verdict == .basicOK)
        #expect(h.send(authorization: basic("bc", "pw1")).verdict == .basicBadPassword)
        #expect(h.send(authorization: basic("nobody", "pw1")).verdict == .basicUnknownUser)
    }

    /// After a change the new password passes, the file's old one is `credential.stale-password`, and another is a
    /// bad password.
    @Test func aChangedPasswordReplacesTheHashAndTheOldOneIsRecognised() throws {
        let scenario = try ScenarioLoader.load(yaml: Self.scenario("{htpasswd: users.htpasswd}"), file: "conf/s.yaml", files: Self.files)
        var h = Harness(scenario)
        h.changeUser("apr", .setPassword("new-one"))
        #expect(h.send(authorization: basic("apr", "new-one")).verdict == .basicOK)
        #expect(h.send(authorization: basic("apr", "pw1")).verdict == .credentialStalePassword)
        #expect(h.send(authorization: basic("apr", "")).verdict == .basicBadPassword)
    }

    /// With an htdigest file, Digest MD5 checks the response against the stored HA1 and Basic checks a password by
    /// hashing it to a HA1; a wrong password fails in both.
    @Test func digestMD5UsesTheHtdigestHA1AndBasicHashesThePassword() throws {
        let scenario = try ScenarioLoader.load(
            yaml: Self.scenario("{htdigest: users.htdigest}", challenges: "[{scheme: Digest, algorithm: MD5}, {scheme: Basic}]"), file: "conf/s.yaml", files: Self.files
        )
        var h = Harness(scenario)
        let challenge = try #require(h.send().digestChallenge("MD5"))
        #expect(h.send(authorization: DigestClient(user: "alice", password: "secret").authorization(for: challenge)).verdict == .digestOK)
        let wrong = h.send(authorization: DigestClient(user: "alice", password: "Secret").authorization(for: challenge))
        #expect(wrong.verdict == .digestBadResponse)
        #expect(h.send(authorization: basic("alice", "secret")).verdict == .basicOK)
        #expect(h.send(authorization: basic("alice", "wrong")).verdict == .basicBadPassword)
    }

    /// The shell asks what is slow before answering: an unchecked crypt(3) pair, and only that.
    @Test func onlyAnUncheckedCryptHashIsSlowWork() throws {
        let scenario = try ScenarioLoader.load(yaml: Self.scenario("{htpasswd: users.htpasswd}"), file: "conf/s.yaml", files: Self.files)
        var random = SplitMix64(seed: 1)
        let engine = Engine(scenario: scenario, random: &random)
        func request(_ authorization: String?) -> Request {
            Request(method: "GET", target: "/", headers: authorization.map { [HeaderField("Authorization", $0)] } ?? [])
        }
        let slow = try #require(engine.slowPasswordCheck(request(basic("bc", "pw2"))))
        slow()
        #expect(engine.slowPasswordCheck(request(basic("bc", "pw2"))) == nil, "checked once, remembered")
        #expect(engine.slowPasswordCheck(request(basic("bc", "other"))) != nil, "another password is another pair")
        #expect(engine.slowPasswordCheck(request(basic("apr", "pw1"))) == nil, "$apr1$ is fast enough for the event loop")
        #expect(engine.slowPasswordCheck(request(basic("nobody", "x"))) == nil)
        #expect(engine.slowPasswordCheck(request(nil)) == nil)
        #expect(engine.slowPasswordCheck(request("Digest username=\"bc\"")) == nil)
    }

    /// The shell's slow-work list covers every hash the Basic check will consult: a retired bcrypt
    /// (a client still sending the old password) and the ISO-8859-1 reading of the password.
    @Test func slowWorkCoversRetiredHashesAndLatin1() throws {
        let scenario = try ScenarioLoader.load(yaml: Self.scenario("{htpasswd: users.htpasswd}"), file: "conf/s.yaml", files: Self.files)
        var h = Harness(scenario)
        h.changeUser("bc", .setPassword("new"))
        let stale = Request(method: "GET", target: "/", headers: [HeaderField("Authorization", basic("bc", "pw2"))])
        let check = try #require(h.engine.slowPasswordCheck(stale), "the retired bcrypt hash must be checked off the loop")
        check()
        #expect(h.engine.slowPasswordCheck(stale) == nil)
        #expect(h.send(authorization: basic("bc", "pw2")).verdict == .credentialStalePassword)

        // "Basic<TAB>token" and a Latin-1 password: the same pairs as the engine's own check.
        let latin1 = "Basic\t" + Data(Array("bc:p".utf8) + [0xE4] + Array("ss".utf8)).base64EncodedString()
        let fresh = Harness(scenario)
        let pairs = fresh.engine.basicHashChecks(try #require(BasicCredentials(Array("bc:p".utf8) + [0xE4] + Array("ss".utf8))))
        #expect(pairs.count == 2)
        #expect(pairs.last?.candidate == Array("päss".utf8))
        #expect(fresh.engine.slowPasswordCheck(Request(method: "GET", target: "/", headers: [HeaderField("Authorization", latin1)])) != nil)
    }

    /// A password hashed from UTF-8 matches when the client sends it in ISO-8859-1 (the Latin-1 rule
    /// applies to users from files as it does to users in clear).
    @Test func aLatin1PasswordMatchesAHashMadeFromUTF8() throws {
        let made = try #require(StoredPassword.crypt(Array("päss".utf8), setting: "$5$saltsalt$"))
        let files = ScenarioFileReader.inMemory(["conf/u.htpasswd": "jo:\(made)\n"])
        let scenario = try ScenarioLoader.load(yaml: Self.scenario("{htpasswd: u.htpasswd}"), file: "conf/s.yaml", files: files)
        var h = Harness(scenario)
        let latin1 = "Basic " + Data(Array("jo:p".utf8) + [0xE4] + Array("ss".utf8)).base64EncodedString()
        #expect(h.send(authorization: latin1).verdict == .basicOK)
        #expect(h.send(authorization: basic("jo", "päss")).verdict == .basicOK)
    }

    /// A bcrypt hash is accepted or refused by its shape (cost at most 31, 53 characters of its alphabet) without
    /// being computed, so a cost-31 line loads at once.
    @Test func bcryptIsRecognisedByShapeWithoutHashing() {
        #expect(StoredPassword.htpasswd("$2y$31$" + String(repeating: "a", count: 53)) != nil, "cost 31 would take days to probe")
        #expect(StoredPassword.htpasswd("$2y$32$" + String(repeating: "a", count: 53)) == nil)
        #expect(StoredPassword.htpasswd("$2y$05$" + String(repeating: "a", count: 52)) == nil)
        #expect(StoredPassword.htpasswd("$2y$05$" + String(repeating: "!", count: 53)) == nil)
    }
}
