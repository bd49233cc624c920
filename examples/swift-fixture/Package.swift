// swift-tools-version:6.0
import PackageDescription

// How another package uses authmock in its tests: depend on the `AuthMock` library product and start
// a scenario per test. Here "another package" is a small URLSession client, and the path dependency
// stands in for `.package(url: "https://…/authmock.git", from: "0.1.0")`.
let package = Package(
    name: "swift-fixture-example",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "authmock", path: "../.."),
    ],
    targets: [
        // The code under test: fetches a protected resource with URLSession and a challenge delegate.
        .target(name: "ProfileClient"),
        .testTarget(
            name: "ProfileClientTests",
            dependencies: [
                "ProfileClient",
                .product(name: "AuthMock", package: "authmock"),
            ],
            resources: [.copy("scenarios")]
        ),
    ]
)
