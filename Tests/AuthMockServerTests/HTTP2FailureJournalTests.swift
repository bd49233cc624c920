@testable import AuthMockServer
import AuthMockCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// HTTP/2 streams the server refuses or resets, and connections it ends with GOAWAY, each journaled once
/// with the error code sent: frames written by hand on a prior-knowledge (h2c) connection over loopback.
@Suite(.serialized)
struct HTTP2FailureJournalTests {
    static func scenario(_ extra: String = "") throws -> Scenario {
        try HTTP2Tests.scenario("http2: prior-knowledge\n\(extra)", tls: false)
    }

    static let request = [(":method", "GET"), (":scheme", "http"), (":authority", "localhost"), (":path", "/")]

    /// A GOAWAY (the `close` fault after the challenge) names stream 1 as the last; stream 3, opened after
    /// it on the same connection, is reset with REFUSED_STREAM and journaled as refused.
    @Test func streamAfterGoAwayIsRefusedAndJournaled() async throws {
        try await withServer(try Self.scenario("faults: [{when: challenge, effect: close, times: 1}]")) { server in
            let connection = try RawConnection(port: server.port)
            #expect(connection.send(bytes: H2.preface + H2.settings + H2.headers(stream: 1, Self.request)))
            let first = H2.read(connection) { $0.contains { $0.type == H2.goAway } }
            let goAway = try #require(first.first { $0.type == H2.goAway })
            #expect(goAway.lastStream == 1 && goAway.errorCode == 0)

            #expect(connection.send(bytes: H2.headers(stream: 3, Self.request)))
            let second = H2.read(connection) { $0.contains { $0.type == H2.rstStream && $0.stream == 3 } }
            #expect(second.first { $0.type == H2.rstStream }?.errorCode == 0x7, "REFUSED_STREAM")

            // NIO's handler writes the RST_STREAM before it fires the error the entry is made from.
            let entries = try await waitForExchanges(server, count: 2)
            try #require(entries.count == 2, "\(entries.map(\.verdict))")
            #expect(entries[0].status == 401 && entries[0].fault == "goaway" && entries[0].stream == 1)
            let refused = entries[1]
            #expect(refused.verdict == .http2RefusedStream)
            #expect(refused.status == 0)
            #expect(refused.reset == "REFUSED_STREAM")
            #expect(refused.goaway == nil)
            #expect(refused.stream == 3)
            #expect(refused.httpProtocol == "h2")
            #expect(refused.connection == entries[0].connection)
            #expect(refused.detail?.contains("GOAWAY") == true)
            #expect(refused.isExchange)
        }
    }

    /// Header blocks that break HTTP/2's rules for a request are each reset with PROTOCOL_ERROR and journaled
    /// once as `http2.malformed`, naming what is wrong; the connection goes on serving.
    @Test func malformedHeadersAreResetAndJournaled() async throws {
        let cases: [(name: String, fields: [(String, String)], says: String)] = [
            ("no :path", Self.request.filter { $0.0 != ":path" }, ":path"),
            ("an upper-case field name", Self.request + [("X-Upper", "1")], "X-Upper"),
            ("a connection-specific field", Self.request + [("connection", "keep-alive")], "connection"),
        ]
        try await withServer(try Self.scenario()) { server in
            let connection = try RawConnection(port: server.port)
            #expect(connection.send(bytes: H2.preface + H2.settings))
            for (index, testCase) in cases.enumerated() {
                let stream = UInt32(2 * index + 1)
                #expect(connection.send(bytes: H2.headers(stream: stream, testCase.fields)))
                let frames = H2.read(connection) { $0.contains { $0.type == H2.rstStream && $0.stream == stream } }
                #expect(frames.first { $0.type == H2.rstStream }?.errorCode == 0x1, "\(testCase.name): PROTOCOL_ERROR")
                let entries = try await waitForExchanges(server, count: index + 1)
                try #require(entries.count == index + 1, "\(testCase.name): one entry per stream, \(entries.map(\.verdict))")
                let entry = entries[index]
                #expect(entry.verdict == .http2Malformed, "\(testCase.name)")
                #expect(entry.status == 0 && entry.reset == "PROTOCOL_ERROR" && entry.goaway == nil, "\(testCase.name)")
                #expect(entry.stream == Int(stream) && entry.httpProtocol == "h2", "\(testCase.name)")
                #expect(entry.detail?.contains(testCase.says) == true, "\(testCase.name): \(entry.detail ?? "")")
            }
            // Still serving on the same connection.
            let token = Data("bob:builder".utf8).base64EncodedString()
            #expect(connection.send(bytes: H2.headers(stream: 7, Self.request + [("authorization", "Basic \(token)")])))
            let answer = H2.read(connection) { $0.contains { $0.stream == 7 && $0.endsStream } }
            #expect(answer.contains { $0.type == H2.headers && $0.stream == 7 })
            let entries = try await waitForExchanges(server, count: 4)
            #expect(entries.map(\.verdict) == [.http2Malformed, .http2Malformed, .http2Malformed, .basicOK])
            #expect(Set(entries.map(\.connection)).count == 1)
        }
    }

    /// Bytes after the preface that are no HTTP/2 frame: GOAWAY, the connection closed by the server, and
    /// one journal entry for the connection naming the error.
    @Test func garbageAfterThePrefaceIsAGoAwayAndJournaled() async throws {
        try await withServer(try Self.scenario()) { server in
            let connection = try RawConnection(port: server.port)
            #expect(connection.send(bytes: H2.preface + Array("this is not an HTTP/2 frame\r\n\r\n".utf8)))
            let frames = H2.read(connection) { $0.contains { $0.type == H2.goAway } }
            let goAway = try #require(frames.first { $0.type == H2.goAway })
            #expect(goAway.errorCode != 0)
            #expect(connection.waitForClose(), "the server closes the connection after a connection error")
            let entries = try await waitForExchanges(server, count: 1)
            try #require(entries.count == 1, "\(entries.map(\.verdict))")
            let entry = entries[0]
            #expect(entry.verdict == .http2ConnectionError)
            #expect(entry.status == 0 && entry.reset == nil && entry.stream == nil && entry.httpProtocol == "h2")
            #expect(entry.goaway == H2.errorName(goAway.errorCode))
            #expect(entry.detail?.contains("GOAWAY") == true)
            #expect(entry.isExchange)
        }
    }

    /// A stream the client resets before its request is whole is journaled once, as far as it was read.
    @Test func streamResetByTheClientIsJournaled() async throws {
        try await withServer(try Self.scenario()) { server in
            let connection = try RawConnection(port: server.port)
            let post = [(":method", "POST"), (":scheme", "http"), (":authority", "localhost"), (":path", "/upload"), ("content-length", "10")]
            #expect(connection.send(bytes: H2.preface + H2.settings + H2.headers(stream: 1, post, endStream: false)))
            #expect(connection.send(bytes: H2.frame(H2.rstStream, stream: 1, [0, 0, 0, 0x8])))  // CANCEL
            let entries = try await waitForExchanges(server, count: 1)
            try #require(entries.count == 1, "\(entries.map(\.verdict))")
            let entry = entries[0]
            #expect(entry.verdict == .http2StreamReset)
            #expect(entry.method == "POST" && entry.target == "/upload")
            #expect(entry.status == 0 && entry.reset == nil && entry.stream == 1 && entry.httpProtocol == "h2")
            #expect(entry.detail?.contains("CANCEL") == true)
        }
    }

    /// A body longer than its content-length: NIO's HTTP/2 handler resets the stream with PROTOCOL_ERROR
    /// before the request is whole; the half request is journaled once as malformed, with that code.
    @Test func bodyLongerThanItsContentLengthIsResetAndJournaled() async throws {
        try await withServer(try Self.scenario()) { server in
            let connection = try RawConnection(port: server.port)
            let post = [(":method", "POST"), (":scheme", "http"), (":authority", "localhost"), (":path", "/public"), ("content-length", "2")]
            #expect(connection.send(bytes: H2.preface + H2.settings + H2.headers(stream: 1, post, endStream: false)))
            #expect(connection.send(bytes: H2.frame(0x0, flags: 0x1, stream: 1, Array("hello".utf8))))
            let frames = H2.read(connection) { $0.contains { $0.type == H2.rstStream && $0.stream == 1 } }
            #expect(frames.first { $0.type == H2.rstStream }?.errorCode == 0x1, "PROTOCOL_ERROR")
            let entries = try await waitForExchanges(server, count: 1)
            try #require(entries.count == 1, "\(entries.map(\.verdict))")
            let entry = entries[0]
            #expect(entry.verdict == .http2Malformed)
            #expect(entry.method == "POST" && entry.target == "/public" && entry.stream == 1)
            #expect(entry.status == 0 && entry.reset == "PROTOCOL_ERROR" && entry.goaway == nil)
        }
    }

    /// The journal's exchanges once there are at least `count` (or after 15 s).
    private func waitForExchanges(_ server: AuthMockServer, count: Int) async throws -> [JournalEntry] {
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        while HTTP2Tests.exchanges(server).count < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        return HTTP2Tests.exchanges(server)
    }
}

/// HTTP/2 frames by hand (RFC 9113 §4.1), header blocks as HPACK literals without indexing or Huffman
/// coding (RFC 7541 §6.2.2): enough to send what a real client never would.
enum H2 {
    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    static let headers: UInt8 = 0x1, rstStream: UInt8 = 0x3, settingsType: UInt8 = 0x4, goAway: UInt8 = 0x7
    /// An empty SETTINGS frame: the rest of the client's preface.
    static let settings = frame(settingsType, stream: 0, [])

    struct Frame {
        var type: UInt8
        var flags: UInt8
        var stream: UInt32
        var payload: [UInt8]

        var endsStream: Bool { (type == 0x0 || type == H2.headers) && flags & 0x1 != 0 || type == H2.rstStream }
        /// RST_STREAM's code, or GOAWAY's.
        var errorCode: UInt32? {
            switch type {
            case H2.rstStream where payload.count >= 4: H2.uint32(payload[0..<4])
            case H2.goAway where payload.count >= 8: H2.uint32(payload[4..<8])
            default: nil
            }
        }
        var lastStream: UInt32? { type == H2.goAway && payload.count >= 4 ? H2.uint32(payload[0..<4]) & 0x7fff_ffff : nil }
    }

    static func frame(_ type: UInt8, flags: UInt8 = 0, stream: UInt32, _ payload: [UInt8]) -> [UInt8] {
        let length = payload.count
        return [UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff), type, flags,
                UInt8(stream >> 24 & 0x7f), UInt8(stream >> 16 & 0xff), UInt8(stream >> 8 & 0xff), UInt8(stream & 0xff)] + payload
    }

    /// A HEADERS frame with END_HEADERS (and END_STREAM unless told otherwise); names and values under 127 bytes.
    static func headers(stream: UInt32, _ fields: [(String, String)], endStream: Bool = true) -> [UInt8] {
        var block: [UInt8] = []
        for (name, value) in fields {
            block += [0x00, UInt8(name.utf8.count)] + Array(name.utf8) + [UInt8(value.utf8.count)] + Array(value.utf8)
        }
        return frame(headers, flags: endStream ? 0x5 : 0x4, stream: stream, block)
    }

    /// Frames from the server until `done` says so, the server closes, or 15 s pass.
    static func read(_ connection: RawConnection, until done: ([Frame]) -> Bool) -> [Frame] {
        var received: [UInt8] = []
        var frames: [Frame] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now.advanced(by: .seconds(15))
        while !done(frames), ContinuousClock.now < deadline {
            let n = recv(connection.fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
            while received.count >= 9 {
                let length = Int(received[0]) << 16 | Int(received[1]) << 8 | Int(received[2])
                guard received.count >= 9 + length else { break }
                frames.append(Frame(type: received[3], flags: received[4], stream: uint32(received[5..<9]) & 0x7fff_ffff, payload: Array(received[9..<9 + length])))
                received.removeFirst(9 + length)
            }
        }
        return frames
    }

    static func uint32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func errorName(_ code: UInt32?) -> String? {
        let names = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
                     "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
                     "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]
        return code.flatMap { Int($0) < names.count ? names[Int($0)] : nil }
    }
}
