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
        .library(name: "AuthMockCore", targets: ["AuthMockCore"]),
        .library(name: "AuthMockServer", targets: ["AuthMockServer"]),
    ],
    dependencies: [
        // Versions are the ones this project's machines hold offline (see shared/research/machine.md).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.0"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.0.0"),
    ],
    targets: [
        // The pure core: scenario model and loader, auth schemes, the engine and the journal.
        // No NIO, no sockets, no files: every rule is testable with an injected clock and RNG.
        .target(
            name: "AuthMockCore",
            dependencies: [
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
            ],
            swiftSettings: swiftSettings
        ),
        // The SwiftNIO shell: connections, HTTP/1.1 framing, the journal file, graceful shutdown.
        .target(
            name: "AuthMockServer",
            dependencies: [
                "AuthMockCore",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "authmock",
            dependencies: [
                "AuthMockCore",
                "AuthMockServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthMockCoreTests",
            dependencies: ["AuthMockCore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "AuthMockServerTests",
            dependencies: ["AuthMockCore", "AuthMockServer", "authmock"],
            resources: [],
            swiftSettings: swiftSettings
        ),
    ]
)
