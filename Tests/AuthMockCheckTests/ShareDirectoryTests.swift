import AuthMockCheck
import Foundation
import Testing

/// Where `authmock check` finds the shipped suite and profiles: AUTHMOCK_SHARE, beside the binary, the
/// source checkout it was built in, the working directory — in that order, from any working directory.
struct ShareDirectoryTests {
    static let exe = "/src/authmock/.build/x86_64-unknown-linux-gnu/debug/authmock"

    static func share(
        exe: String? = ShareDirectoryTests.exe, env: [String: String] = [:], cwd: String = "/home/u/project",
        files: Set<String>
    ) -> ShareDirectory {
        ShareDirectory(executablePath: exe, environment: env, workingDirectory: cwd, exists: { files.contains($0) })
    }

    static let checkoutFiles: Set<String> = ["/src/authmock/Package.swift", "/src/authmock/scenarios/conformance"]

    @Test func theRootsComeInTheDocumentedOrder() {
        let share = Self.share(env: ["AUTHMOCK_SHARE": "/opt/data"], files: Self.checkoutFiles)
        #expect(share.roots.map(\.path) == [
            "/opt/data", "/src/authmock/.build/x86_64-unknown-linux-gnu/share/authmock", "/src/authmock",
            "/home/u/project",
        ])
        #expect(share.roots.map(\.origin) == [.environment, .installed, .checkout, .workingDirectory])
    }

    /// An installed binary (`PREFIX/bin/authmock`) reads `PREFIX/share/authmock`; no checkout is guessed.
    @Test func anInstalledBinaryReadsItsShareDirectory() {
        let files: Set<String> = ["/opt/am/share/authmock/scenarios/conformance", "/opt/am/share/authmock/clients/curl.yaml"]
        let share = Self.share(exe: "/opt/am/bin/authmock", cwd: "/tmp", files: files)
        #expect(share.roots.map(\.path) == ["/opt/am/share/authmock", "/tmp"])
        #expect(share.locate("scenarios/conformance", exists: files.contains) == "/opt/am/share/authmock/scenarios/conformance")
        #expect(share.locate("clients/curl.yaml", exists: files.contains) == "/opt/am/share/authmock/clients/curl.yaml")
        #expect(share.locate("clients/wget.yaml", exists: files.contains) == nil)
    }

    /// A `.build` directory counts as a checkout only beside Package.swift and the suite.
    @Test func theCheckoutIsRecognisedByPackageSwiftAndTheSuite() {
        let withoutSuite = Self.share(files: ["/src/authmock/Package.swift"])
        #expect(!withoutSuite.roots.contains { $0.origin == .checkout })
        let debugLink = Self.share(exe: "/src/authmock/.build/debug/authmock", files: Self.checkoutFiles)
        #expect(debugLink.roots.first { $0.origin == .checkout }?.path == "/src/authmock")
        let noBuild = Self.share(exe: "/src/authmock/bin/authmock", files: Self.checkoutFiles)
        #expect(!noBuild.roots.contains { $0.origin == .checkout })
    }

    /// Each file is looked for in every root in turn; one found in the working directory keeps its relative
    /// path (diagnostics read as before), one found elsewhere is absolute.
    @Test func eachFileFallsThroughToTheNextRoot() {
        let files: Set<String> = [
            "/opt/data/scenarios/conformance", "/src/authmock/clients/curl.yaml",
            "/home/u/project/clients/mine.yaml",
        ]
        let share = Self.share(env: ["AUTHMOCK_SHARE": "/opt/data"], files: files.union(Self.checkoutFiles))
        let exists = { files.union(Self.checkoutFiles).contains($0) }
        #expect(share.locate("scenarios/conformance", exists: exists) == "/opt/data/scenarios/conformance")
        #expect(share.locate("clients/curl.yaml", exists: exists) == "/src/authmock/clients/curl.yaml")
        #expect(share.locate("clients/mine.yaml", exists: exists) == "clients/mine.yaml")
    }

    /// A relative AUTHMOCK_SHARE is taken from the working directory; paths are normalized and a root that
    /// is also the working directory is listed once.
    @Test func pathsAreNormalizedAndListedOnce() {
        let share = Self.share(
            exe: "/usr/local/bin/../bin/authmock", env: ["AUTHMOCK_SHARE": "./data/"], cwd: "/w/./x/", files: []
        )
        #expect(share.roots.map(\.path) == ["/w/x/data", "/usr/local/share/authmock", "/w/x"])
        let same = Self.share(exe: nil, env: ["AUTHMOCK_SHARE": "/w"], cwd: "/w", files: [])
        #expect(same.roots.map(\.path) == ["/w"] && same.roots[0].origin == .environment)
        #expect(Self.share(exe: nil, env: ["AUTHMOCK_SHARE": ""], cwd: "/w", files: []).roots.map(\.origin) == [.workingDirectory])
    }

    @Test func theMessageNamesEveryPlaceTried() {
        let share = Self.share(exe: "/opt/am/bin/authmock", env: ["AUTHMOCK_SHARE": "/e"], cwd: "/tmp", files: [])
        #expect(share.tried("clients/x.yaml") == "/e/clients/x.yaml (AUTHMOCK_SHARE), "
            + "/opt/am/share/authmock/clients/x.yaml (beside the binary), /tmp/clients/x.yaml (the working directory)")
    }

    /// The built binary, run from a directory without the suite, finds its checkout's suite and profiles;
    /// AUTHMOCK_SHARE comes first; what cannot be found is named with the places tried.
    @Test func theBinaryFindsItsDataFromAnyDirectory() async throws {
        let elsewhere = FileManager.default.temporaryDirectory.appendingPathComponent("share-\(UUID().uuidString)")
        let suite = elsewhere.appendingPathComponent("data/scenarios/conformance")
        try FileManager.default.createDirectory(at: suite, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: elsewhere) }
        let checkoutSuite = repositoryRoot.appendingPathComponent("scenarios/conformance/basic.challenge.yaml")
        try FileManager.default.copyItem(at: checkoutSuite, to: suite.appendingPathComponent("basic.challenge.yaml"))

        let fromCheckout = try await run("/usr/bin/env", ["-C", elsewhere.path, "-u", "AUTHMOCK_SHARE", authmockBinary, "check", "--list", "--client", "curl"])
        #expect(fromCheckout.status == 0, "\(fromCheckout.stderr)")
        #expect(fromCheckout.stdout.contains("basic.challenge") && fromCheckout.stdout.contains("digest.stale-nonce"))

        let fromShare = try await run("/usr/bin/env", ["-C", elsewhere.path, "AUTHMOCK_SHARE=data", authmockBinary, "check", "--list"])
        #expect(fromShare.status == 0, "\(fromShare.stderr)")
        #expect(fromShare.stdout.split(separator: "\n").map { $0.split(separator: " ").first ?? "" } == ["basic.challenge"])

        let unknown = try await run("/usr/bin/env", ["-C", elsewhere.path, "AUTHMOCK_SHARE=data", authmockBinary, "check", "--list", "--client", "nosuch"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("cannot read the client profile (looked in \(elsewhere.path)/data/clients/nosuch.yaml (AUTHMOCK_SHARE)"))
        #expect(unknown.stderr.contains("known profiles: ") && unknown.stderr.contains("curl"))
    }
}
