import AuthMockCore
import Foundation
import Testing

@testable import AuthMockServer

/// `serve`'s live page over the network: announced in the banner and the ready line.
@Suite struct LivePageServerTests {
    /// The ready line says where the live page is.
    @Test func theReadyLineHasTheLivePage() async throws {
        try await withServer(try shipped("basic.yaml")) { (server: AuthMockServer) async throws in
            let ready = ReadyInfo(server: server)
            #expect(ready.live == server.url + "_authmock/")
            #expect(ready.jsonLine().contains(#""live":"\#(server.url)_authmock/""#))
        }
    }

    /// The banner prints the live page's address beside the journal's.
    @Test func theBannerHasTheLivePage() async throws {
        let (process, ready, err) = try await CLITests.startServe([
            repositoryRoot.appendingPathComponent("scenarios/basic.yaml").path, "--port", "0",
        ])
        defer { if process.isRunning { process.terminate() } }
        #expect(ready.live == ready.url + "_authmock/")
        kill(process.processIdentifier, SIGTERM)
        let stderr = await Task.detached { err.fileHandleForReading.readDataToEndOfFile() }.value
        process.waitUntilExit()
        #expect(String(decoding: stderr, as: UTF8.self).contains("\n  live page  \(ready.url)_authmock/  "))
    }
}
