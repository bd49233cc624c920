// authmock adapter for swift-server/async-http-client (AHC), its async/await API.
//
// Build: swift build --package-path ahc-adapter --scratch-path ../.build --product ahc-client   (from clients/)
// Run:   ../.build/debug/ahc-client   (inputs in the AUTHMOCK_* environment variables)
//
// The adapter only maps the inputs onto AHC's API the way its README and API documentation teach it:
// - one `HTTPClient(eventLoopGroupProvider: .singleton, configuration:)` for every fetch, shut down at the end;
// - Basic with `HTTPClientRequest.setBasicAuth(username:password:)`, AHC's only origin authentication API. AHC
//   has no challenge handling (no WWW-Authenticate parsing, no retry on a 401, no Digest, NTLM or Negotiate),
//   so the credentials go up front on the first request and a 401 is the final answer;
// - an HTTP proxy with `HTTPClient.Configuration.Proxy.server(host:port:authorization: .basic(...))`: AHC
//   tunnels every request through the proxy with CONNECT, the `Proxy-Authorization` up front on the CONNECT;
//   a SOCKS5 proxy with `.socksServer(host:port:)` (the profile skips `socks5`), which takes no credentials ("SOCKS authorization support is
//   not yet implemented", HTTPClient+Proxy.swift);
// - `tlsConfiguration` from `TLSConfiguration.makeClientConfiguration()` with the case's CA as `trustRoots` and
//   the client certificate as `certificateChain` + `privateKey`;
// - the default redirect configuration (follow, at most 5, no cycles) and HTTP version (`.automatic`: HTTP/2
//   when ALPN offers it over TLS);
// - a header the application sets itself with `request.headers.add(name:value:)`;
// - the case's timeout as the deadline of `execute(_:timeout:)`, as the README's examples pass one, and a 2 s connect
//   timeout (`Configuration.Timeout(connect:)`; see configuration());
// Redirects, the headers kept on them, retries and TLS checks are AHC's (and NIOSSL's) decisions.
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

func input(_ name: String) -> String? {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
    return value
}

func count(_ name: String) -> Int {
    input(name).flatMap(Int.init).map { max($0, 1) } ?? 1
}

/// One line `Type: message` on stderr, exit 1: the failure as the library reported it (an error `execute` or
/// the body's `collect` threw: `HTTPClientError`, `NIOSSLError`, `BoringSSLError`, NIO's `ChannelError`…), or
/// the adapter's own setup error. A trap in the library (a precondition) is a signal: always a crash.
func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("\(String(reflecting: type(of: error))): \(error)\n".utf8))
    exit(1)
}

struct AdapterError: Error, CustomStringConvertible {
    let description: String
}

/// host and port of `http://127.0.0.1:PORT` or `socks5h://127.0.0.1:PORT`.
func hostAndPort(_ string: String) throws -> (String, Int) {
    guard let url = URL(string: string), let host = url.host, let port = url.port else {
        throw AdapterError(description: "cannot read host and port from \(string)")
    }
    return (host, port)
}

/// The request body: the bytes of AUTHMOCK_BODY_FILE, or standard input streamed as it comes (a body AHC
/// cannot replay) when AUTHMOCK_BODY_STDIN is given.
func body() throws -> HTTPClientRequest.Body? {
    if let path = input("AUTHMOCK_BODY_FILE") {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return .bytes(ByteBuffer(bytes: data))
    }
    if input("AUTHMOCK_BODY_STDIN") != nil {
        let chunks = AsyncStream<ByteBuffer> { continuation in
            Thread.detachNewThread {
                while true {
                    let data = FileHandle.standardInput.availableData
                    if data.isEmpty { break }
                    continuation.yield(ByteBuffer(bytes: data))
                }
                continuation.finish()
            }
        }
        return .stream(chunks, length: .unknown)
    }
    return nil
}

func configuration(proxyUser: String?, proxyPassword: String?) throws -> HTTPClient.Configuration {
    var configuration = HTTPClient.Configuration()
    // A connect timeout, as the README's "Timeouts" section sets one. AHC's default is 10 s, the runner's limit
    // for a whole case: with `connectionPool.retryConnectionEstablishment` on (the default, which the API
    // documentation "highly recommend[s] leaving on"), a connection that fails to establish (a refused TLS
    // handshake, a 407 or 401 answer to CONNECT, a SOCKS refusal) is retried with backoff until the connect
    // timeout, so with 10 s every such case would be killed by the runner before AHC reports its error.
    configuration.timeout = HTTPClient.Configuration.Timeout(connect: .seconds(2))
    if let proxy = input("AUTHMOCK_PROXY") {
        let (host, port) = try hostAndPort(proxy)
        var authorization: HTTPClient.Authorization? = nil
        if let user = proxyUser {
            authorization = .basic(username: user, password: proxyPassword ?? "")
        }
        configuration.proxy = .server(host: host, port: port, authorization: authorization)
    } else if let socks = input("AUTHMOCK_SOCKS_PROXY") {
        // No credentials: AHC's SOCKS proxy takes none (AUTHMOCK_SOCKS_USER has nowhere to go).
        let (host, port) = try hostAndPort(socks)
        configuration.proxy = .socksServer(host: host, port: port)
    }
    let caFile = input("AUTHMOCK_CA_FILE")
    let clientCert = input("AUTHMOCK_CLIENT_CERT")
    if caFile != nil || clientCert != nil {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            // Exactly the given CA: the system's roots are not added.
            tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
        }
        if let clientCert {
            tls.certificateChain = try NIOSSLCertificate.fromPEMFile(clientCert).map { .certificate($0) }
            if let clientKey = input("AUTHMOCK_CLIENT_KEY") {
                tls.privateKey = .privateKey(try NIOSSLPrivateKey(file: clientKey, format: .pem))
            }
        }
        configuration.tlsConfiguration = tls
    }
    return configuration
}

/// The request of one fetch: the URL, method, body, Basic credentials and the application's own header.
func request(url: String, user: String?, password: String?) throws -> HTTPClientRequest {
    var request = HTTPClientRequest(url: url)
    if let method = input("AUTHMOCK_METHOD") {
        request.method = HTTPMethod(rawValue: method)
    }
    request.body = try body()
    if let user {
        request.setBasicAuth(username: user, password: password ?? "")
    }
    if let name = input("AUTHMOCK_HEADER_NAME") {
        request.headers.add(name: name, value: input("AUTHMOCK_HEADER_VALUE") ?? "")
    }
    return request
}

/// One fetch: execute, then read the whole body (a body cut short is an error, not a success).
func fetch(_ client: HTTPClient, _ request: HTTPClientRequest, timeout: TimeAmount?) async throws -> UInt {
    let response: HTTPClientResponse
    if let timeout {
        response = try await client.execute(request, timeout: timeout)
    } else {
        response = try await client.execute(request, deadline: .distantFuture)
    }
    _ = try await response.body.collect(upTo: 64 * 1024 * 1024)
    return response.status.code
}

@main
struct Adapter {
    static func main() async {
        guard let url = input("AUTHMOCK_URL") else { fail(AdapterError(description: "AUTHMOCK_URL is missing")) }
        let repeatCount = count("AUTHMOCK_REPEAT")
        let parallel = count("AUTHMOCK_PARALLEL")
        let timeout = input("AUTHMOCK_TIMEOUT").flatMap(Double.init).map { TimeAmount.milliseconds(Int64($0 * 1000)) }

        let client: HTTPClient
        let first: HTTPClientRequest
        do {
            client = HTTPClient(
                eventLoopGroupProvider: .singleton,
                configuration: try configuration(
                    proxyUser: input("AUTHMOCK_PROXY_USER"), proxyPassword: input("AUTHMOCK_PROXY_PASSWORD")
                )
            )
            first = try request(url: url, user: input("AUTHMOCK_USER"), password: input("AUTHMOCK_PASSWORD"))
        } catch {
            fail(error)
        }

        // PARALLEL tasks share the one client, each doing REPEAT fetches in a row.
        var codes: [[UInt]] = Array(repeating: [], count: parallel)
        var failure: (any Error)? = nil
        await withTaskGroup(of: (Int, [UInt], (any Error)?).self) { group in
            for index in 0..<parallel {
                group.addTask {
                    var mine: [UInt] = []
                    do {
                        for _ in 0..<repeatCount {
                            mine.append(try await fetch(client, first, timeout: timeout))
                        }
                    } catch {
                        return (index, mine, error)
                    }
                    return (index, mine, nil)
                }
            }
            for await (index, mine, error) in group {
                codes[index] = mine
                if let error, failure == nil { failure = error }
            }
        }

        // The second transfer of the `transfer.*` cases: the same client (its connection pool), the second URL
        // with the second user's credentials, if any. Proxy credentials belong to an HTTPClient's configuration,
        // not to a request: other proxy credentials for the second transfer take a second HTTPClient.
        if failure == nil, let url2 = input("AUTHMOCK_URL2") {
            var secondClient: HTTPClient? = nil
            do {
                let proxyUser2 = input("AUTHMOCK_PROXY_USER2"), proxyPassword2 = input("AUTHMOCK_PROXY_PASSWORD2")
                if input("AUTHMOCK_PROXY") != nil, proxyUser2 != input("AUTHMOCK_PROXY_USER")
                    || proxyPassword2 != input("AUTHMOCK_PROXY_PASSWORD")
                {
                    secondClient = HTTPClient(
                        eventLoopGroupProvider: .singleton,
                        configuration: try configuration(proxyUser: proxyUser2, proxyPassword: proxyPassword2)
                    )
                }
                let second = try request(url: url2, user: input("AUTHMOCK_USER2"), password: input("AUTHMOCK_PASSWORD2"))
                codes.append([try await fetch(secondClient ?? client, second, timeout: timeout)])
            } catch {
                failure = error
            }
            try? await secondClient?.shutdown()
        }

        try? await client.shutdown()
        let all = codes.flatMap { $0 }
        print(all.map(String.init).joined(separator: " "))
        if let failure { fail(failure) }
        exit(all.allSatisfy { (200...299).contains($0) } ? 0 : 1)
    }
}
