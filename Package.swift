// swift-tools-version:6.0
import PackageDescription

// Upcoming features shared by every target: `any` is spelled out for existentials so that
// the cost of dynamic dispatch is visible where it is paid.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
]

let package = Package(
    name: "authmock",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "authmock", targets: ["authmock"]),
        // authmock as a fixture in other packages' tests: start a scenario on a free port, drive it, inspect it.
        .library(name: "AuthMock", targets: ["AuthMock"]),
        .library(name: "AuthMockCore", targets: ["AuthMockCore"]),
        .library(name: "AuthMockServer", targets: ["AuthMockServer"]),
        .library(name: "AuthMockCertificates", targets: ["AuthMockCertificates"]),
        .library(name: "AuthMockCheck", targets: ["AuthMockCheck"]),
    ],
    dependencies: [
        // Versions are the ones this project's machines hold offline (see shared/research/machine.md).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
    ],
    targets: [
        // OpenSSL's libcrypto (Debian: libssl-dev) for MD4 and DES, which NTLM needs and swift-crypto lacks.
        .systemLibrary(name: "CLibCrypto", path: "Sources/CLibCrypto", providers: [.apt(["libssl-dev"])]),
        // libxcrypt (Debian: libcrypt-dev) for the crypt(3) hashes of htpasswd files: bcrypt, SHA-crypt, MD5-crypt.
        .systemLibrary(name: "CCrypt", path: "Sources/CCrypt", providers: [.apt(["libcrypt-dev"])]),
        // libyaml (Debian: libyaml-dev), the C parser the core's YAML reader (Sources/AuthMockCore/YAML) composes
        // nodes from; it needs no Foundation, so the binary carries no ICU.
        .systemLibrary(
            name: "CYAML", path: "Sources/CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]
        ),
        // The pure core: scenario model and loader, auth schemes, the engine and the journal.
        // No NIO, no sockets, no files: every rule is testable with an injected clock and RNG.
        .target(
            name: "AuthMockCore",
            dependencies: [
                "CCrypt",
                "CLibCrypto",
                "CYAML",
            ],
            swiftSettings: swiftSettings
        ),
        // Test identities (CA, leaves broken on purpose, client certificates) generated in memory with
        // swift-certificates. No NIO: the server turns the PEMs into NIOSSL types.
        .target(
            name: "AuthMockCertificates",
            dependencies: [
                "AuthMockCore",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The SwiftNIO shell: connections, HTTP/1.1 framing, the journal file, graceful shutdown.
        .target(
            name: "AuthMockServer",
            dependencies: [
                "AuthMockCore",
                "AuthMockCertificates",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // `authmock check`: conformance cases (read with the core's YAML reader), the judge over a journal,
        // client profiles, and the runner that starts clients against cases and writes the reports.
        .target(
            name: "AuthMockCheck",
            dependencies: [
                "AuthMockCore",
                "AuthMockCertificates",
                "AuthMockServer",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        // The fixture library: a thin, test-friendly face on AuthMockServer (no second implementation).
        .target(
            name: "AuthMock",
            dependencies: ["AuthMockCore", "AuthMockServer"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "authmock",
            dependencies: [
                "AuthMockCheck",
                "AuthMockCore",
                "AuthMockCertificates",
                "AuthMockServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // ci/bench profile's floor: a SwiftNIO server (HTTP/1.1, or HTTP/2 over TLS) that only answers 200, through
        // the NIO handlers authmock's pipeline shares with it, so that callgrind can tell NIO's cost per request
        // from authmock's.
        // Not a product: nothing else depends on it.
        .executableTarget(
            name: "authmock-nio-floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Benchmarks/NIOFloor",
            swiftSettings: swiftSettings
        ),
        // What the test targets share (SwiftPM test targets cannot share source files): an engine driven by
        // hand with a correct Digest client. The core only, so that the core's tests build no NIO.
        // Only tests depend on it.
        .target(
            name: "AuthMockTestSupport",
            dependencies: ["AuthMockCore"],
            path: "Tests/Support",
            swiftSettings: swiftSettings
        ),
        // A bounded process runner for the tests that start programs (curl, the `authmock` binary,
        // deliberately wrong clients). It launches through the runner's `ProcessLauncher`, hence AuthMockCheck.
        .target(
            name: "AuthMockProcessSupport",
            dependencies: ["AuthMockCheck"],
            path: "Tests/ProcessSupport",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthMockCoreTests",
            // swift-crypto: GoldenExchangeTests fingerprints its transcripts with a SHA-256 that is not the core's own.
            dependencies: ["AuthMockCore", "AuthMockTestSupport", .product(name: "Crypto", package: "swift-crypto")],
            // Read by path (GoldenExchangeTests), not bundled.
            exclude: ["Golden/exchanges.sha256"],
            swiftSettings: swiftSettings
        ),
        // The case language, client profiles and the judge (no sockets), and the runner against real
        // client processes and the `authmock check` CLI.
        .testTarget(
            name: "AuthMockCheckTests",
            dependencies: [
                "AuthMockCheck", "AuthMockCore", "authmock", "AuthMockTestSupport", "AuthMockProcessSupport",
            ],
            // Deliberately wrong clients the runner's tests run with python3, read from the source tree.
            // YAMLGolden: the YAML reader's golden transcript and held-out inputs, read by path.
            exclude: ["Clients", "YAMLGolden"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthMockServerTests",
            dependencies: [
                "AuthMock", "AuthMockCore", "AuthMockServer", "AuthMockCertificates", "AuthMockCheck", "authmock",
                "AuthMockTestSupport", "AuthMockProcessSupport",
                // The load tests drive thousands of connections with NIO's own HTTP client codec.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The HTTP/2 load test opens thousands of streams with NIO's own HTTP/2 client.
                .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                // Handler tests on EmbeddedChannel: no socket, no thread.
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
    ]
)
