import AuthMockCore
import Foundation
import Testing

@testable import AuthMockServer

/// `serve`'s live page over the network: announced in the ready line, and its own requests are not
/// client connections.
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
        #expect(await CLITests.stopServe(process, stderr: err).contains("\n  live page  \(ready.url)_authmock/  "))
    }

    /// Connections that only ever asked the control plane (a browser loading the page, its stylesheet and
    /// its polls, each on a connection of its own here) take no number: the first client's is connection 1.
    @Test func thePagesConnectionsAreNotCounted() async throws {
        try await withServer(try shipped("basic.yaml")) { (server: AuthMockServer) async throws in
            let page = server.url + "_authmock/"
            #expect(try await curl([page]).status == 200)
            #expect(try await curl([page + "style.css"]).status == 200)
            #expect(try await curl([page + "?after=0", page + "?after=0"]).status == 200)
            #expect(try await curl(["-u", "alice:wonderland", server.url]).status == 200)
            #expect(try await curl(["-u", "alice:wrong", server.url]).status == 401)
            let entries = server.journal
            #expect(entries.map(\.connection) == [1, 2])
            #expect(entries.map(\.exchange) == [1, 1])
            // A control request on a client's connection keeps the client's number for the next exchange.
            #expect(try await curl([page, "-u", "alice:wonderland", server.url]).status == 200)
            #expect(server.journal.last?.connection == 3)
        }
    }

    /// Over TLS too: the page's connection journals no `tls.*` entry and takes no number; a client's that
    /// failed its handshake does take one.
    @Test func overTLSThePagesConnectionIsNotCountedEither() async throws {
        var scenario = try shipped("basic.yaml")
        scenario.tls = TLSSettings(identity: .selfSigned)
        try await withServer(scenario) { (server: AuthMockServer) async throws in
            let caFile = try #require(server.tls?.caFile)
            #expect(try await curl(["--cacert", caFile, server.url + "_authmock/"]).status == 200)
            _ = await server.waitForConnectionsToClose()
            #expect(server.journal.isEmpty)
            #expect(try await curl(["--cacert", caFile, "-u", "alice:wonderland", server.url]).status == 200)
            _ = try await curl([server.url])  // refuses the self-signed certificate
            _ = await server.waitForConnectionsToClose()
            let journal = server.journal
            #expect(journal.first { $0.method != nil }?.connection == 1)
            #expect(journal.filter { $0.method == nil }.map(\.connection) == [1, 2])
            #expect(journal.last?.verdict == .tlsHandshakeFailed)
        }
    }
}
