import AuthMockCheck
import AuthMockCore
import AuthMockServer
@_exported import AuthMockProcessSupport
@_exported import AuthMockTestSupport
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The first line a started process writes to `pipe` (the ready line of `authmock serve`), read byte by byte
/// off the cooperative pool, without its newline.
func firstLine(of pipe: Pipe) async throws -> String {
    try await Task.detached { () -> String in
        var bytes: [UInt8] = []
        while let byte = try pipe.fileHandleForReading.read(upToCount: 1)?.first, byte != UInt8(ascii: "\n") {
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }.value
}

func shipped(_ name: String) throws -> Scenario {
    let path = repositoryRoot.appendingPathComponent("scenarios/\(name)").path
    return try ScenarioLoader.load(yaml: String(contentsOfFile: path, encoding: .utf8), file: name, files: .fileSystem)
}

/// Runs `body` against an in-process server on a free port, and always shuts it down.
func withServer<T>(
    _ scenario: Scenario, configuration: ServerConfiguration = ServerConfiguration(port: 0),
    _ body: (AuthMockServer) async throws -> T
) async throws -> T {
    var configuration = configuration
    configuration.port = 0
    let server = AuthMockServer(scenario: scenario, configuration: configuration)
    try await server.start()
    do {
        let result = try await body(server)
        try await server.shutdown()
        return result
    } catch {
        try? await server.shutdown()
        throw error
    }
}

/// Foundation's Process.run() on Linux races with launches on other threads (EBADF): tests launch
/// through the same lock as the conformance runner they embed.
func launch(_ process: Process) throws {
    try ProcessLauncher.run(process)
}

/// curl with a bounded time; `-w` appends the last status code on its own line.
func curl(_ arguments: [String]) async throws -> (status: Int, body: String, result: ProcessResult) {
    try #require(FileManager.default.isExecutableFile(atPath: curlPath), "curl is needed for these tests (apt-get install curl)")
    let result = try await run(curlPath, ["-sS", "--max-time", "10", "-w", "\n%{http_code}"] + arguments)
    // The body is everything before the last newline, which `-w` added before the status code.
    guard let split = result.stdout.lastIndex(of: "\n") else { return (-1, result.stdout, result) }
    return (Int(result.stdout[result.stdout.index(after: split)...]) ?? -1, String(result.stdout[..<split]), result)
}

/// Sends raw bytes on a new TCP connection and reads until the server closes it (or 5 s pass).
func rawExchange(port: Int, _ bytes: [UInt8]) throws -> String {
    let connection = try RawConnection(port: port)
    // The server may close early on purpose (e.g. after a 431), so a short send is not an error here.
    _ = connection.send(bytes: bytes)
    return connection.readToEnd()
}

/// Waits until the server's state tables satisfy `condition`, or `timeout` passes, and returns them as they
/// then are: the server admits, forgets and closes connections on its event loops, some time after the
/// client's connect or close returned.
func eventually(
    _ server: AuthMockServer, timeout: Duration = .seconds(15), _ condition: (AuthMockServer.StateSizes) -> Bool
) async throws -> AuthMockServer.StateSizes {
    let deadline = ContinuousClock.now.advanced(by: timeout)
    while !condition(server.stateSizes), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    return server.stateSizes
}

/// Waits until `server` holds `count` open connections, or `timeout` passes; says whether it did.
func waitForOpenConnections(_ server: AuthMockServer, _ count: Int, timeout: Duration = .seconds(10)) async throws -> Bool {
    try await eventually(server, timeout: timeout) { $0.openConnections == count }.openConnections == count
}

/// 127.0.0.1:`port` as the socket calls take it.
func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

/// A blocking TCP client for tests that need to pause mid-request.
final class RawConnection {
    let fd: Int32

    /// - Parameter receiveTimeout: how long a read waits for bytes; then it ends as at the close.
    init(port: Int, receiveTimeout: Duration = .seconds(5)) throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let (seconds, attoseconds) = receiveTimeout.components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = loopbackAddress(port: port)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            // Close here and throw before `fd` is set: a throwing class init that has set every stored
            // property still runs deinit, and a second close would hit a descriptor NIO may have reused.
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        fd = descriptor
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        guard send(bytes: Array(text.utf8)) else { throw POSIXError(.EPIPE) }
    }

    /// Sends all of `bytes`; false when the peer stopped reading first.
    func send(bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    /// Reads one response: its head and as many body bytes as its Content-Length says (less when the
    /// server closes first). Nil when the connection closed (or the receive timeout passed) before
    /// a whole head arrived.
    func readResponse() -> (head: String, body: String)? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var headEnd: Int?
        var length = 0
        while true {
            if headEnd == nil, let end = received.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                headEnd = end
                let head = String(decoding: received[..<end], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
                    length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let headEnd, received.count - headEnd >= length { break }
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        guard let headEnd else { return nil }
        return (String(decoding: received[..<headEnd], as: UTF8.self), String(decoding: received[headEnd...], as: UTF8.self))
    }

    /// Whether the server has closed the connection: a read returns end-of-file within `timeout`
    /// (any bytes that arrive first are discarded).
    func waitForClose(timeout: Duration = .seconds(5)) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0, errno != EAGAIN, errno != EWOULDBLOCK { return true }
        }
        return false
    }

    func readToEnd() -> String {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return String(decoding: received, as: UTF8.self)
    }
}

/// A clock that stands still and jumps forward once, after a given number of reads.
final class JumpingClock: Sendable {
    private let reads = Mutex(0)
    let start: Date
    let jumpAfter: Int
    let jump: TimeInterval

    init(start: Date = Date(timeIntervalSince1970: 1_800_000_000), jumpAfter: Int, by jump: TimeInterval) {
        self.start = start
        self.jumpAfter = jumpAfter
        self.jump = jump
    }

    func now() -> Date {
        let count = reads.withLock { value -> Int in
            value += 1
            return value
        }
        return count > jumpAfter ? start.addingTimeInterval(jump) : start
    }
}

import Synchronization
