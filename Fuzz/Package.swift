// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the parsers that read client or user input (and one for the server's HTTP/2 pipeline). A package of its own, so that the
// sanitizer flags never reach the main build: ci/fuzz builds it (into Fuzz/.build) with
//   swift build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer
// Each target defines LLVMFuzzerTestOneInput, and an @main that runs libFuzzer's driver on it: SwiftPM
// links an executable's Swift entry point as `main`, so libFuzzer's own `main` cannot be used.
let dependencies: [Target.Dependency] = [
    .product(name: "AuthMockCore", package: "authmock"), "FuzzDriver", "FuzzSupport",
]

let package = Package(
    name: "authmock-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, because a path dependency's identity is its directory's name, which is not "authmock"
        // in every checkout.
        .package(name: "authmock", path: ".."),
        // EmbeddedChannel, for the target that runs the server's own pipeline without a socket.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
    ],
    targets: [
        // The declaration of LLVMFuzzerRunDriver (header only; -sanitize=fuzzer links the library).
        .systemLibrary(name: "CLibFuzzer", path: "Sources/CLibFuzzer"),
        // The one @main body every target shares: hand the command line and the test to that driver.
        .target(name: "FuzzDriver", dependencies: ["CLibFuzzer"]),
        // What the engine targets share: an engine with the journal a pair would hand it.
        .target(name: "FuzzSupport", dependencies: [.product(name: "AuthMockCore", package: "authmock")]),
        // Authorization / Proxy-Authorization values through the whole engine (Basic, Digest, NTLM,
        // Negotiate, origin and proxy), the raw bytes as NTLM and SPNEGO tokens, and the header parsers.
        .executableTarget(name: "FuzzAuthorization", dependencies: dependencies),
        // The CONNECT (authority-form) and absolute-form request-target parser of the proxy.
        .executableTarget(name: "FuzzProxyTarget", dependencies: dependencies),
        // Scenario YAML (and a user file after a NUL byte) through ScenarioLoader, then the engine.
        .executableTarget(name: "FuzzScenarioLoader", dependencies: dependencies),
        // The SOCKS5 listener's handshake (RFC 1928 greeting and request, RFC 1929 username/password) as the
        // core's SOCKS5Session plays it, cut into reads of every size.
        .executableTarget(name: "FuzzSOCKS5", dependencies: dependencies),
        // Token requests (RFC 6749) through the engine's token endpoint, after a real login, then the token issued
        // at the resource.
        .executableTarget(name: "FuzzTokenEndpoint", dependencies: dependencies),
        // The ClientHello (SNI) and ServerHello (cipher) reader the TLS handler's sniffer uses.
        .executableTarget(name: "FuzzTLSHello", dependencies: dependencies),
        // Bytes after the HTTP/2 client preface through the server's own h2c pipeline (NIO's HTTP/2 handler,
        // the stream pipelines, the engine) on an EmbeddedChannel; every stream the server ends is journaled once.
        .executableTarget(
            name: "FuzzHTTP2Frames",
            dependencies: dependencies + [
                .product(name: "AuthMockServer", package: "authmock"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
            ]
        ),
    ]
)
