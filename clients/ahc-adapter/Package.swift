// swift-tools-version:6.0
// The authmock adapter for swift-server/async-http-client (clients/async-http-client.yaml). Built by the
// profile's `prepare` with `swift build`, in the root package's scratch path (../../.build) so that the NIO,
// NIOSSL (BoringSSL) and NIOHTTP2 the root build compiled are reused: see clients/async-http-client.yaml.
import PackageDescription

let package = Package(
    name: "ahc-adapter",
    dependencies: [
        // The version this project's machines hold offline (the root package's NIO versions are the same).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
    ],
    targets: [
        .executableTarget(
            name: "ahc-client",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
    ]
)
