import AuthMockCore
import AuthMockServer
import Foundation
import FuzzDriver
import NIOCore
import NIOEmbedded
import Synchronization

// The bytes a client sends after the HTTP/2 client preface, through the server's own handlers for a
// prior-knowledge (h2c) connection — NIO's HTTP/2 handler, the stream pipelines, the exchange handler and
// the engine on a fixed scenario — on an EmbeddedChannel: one connection per input, a fresh server each
// time, no socket and no clock.
//
// Invariants, once the client's bytes are read and the connection is closed: nothing traps; every entry is
// an h2 exchange of this connection; an entry with status 0 is one of the HTTP/2 verdicts, with the error
// code it says was sent, and a stream the server reset is not journaled as one the client left; no stream
// has two entries (a HEADERS refused after GOAWAY opens no stream, so each refusal is one entry), and the
// connection at most one GOAWAY entry; every RST_STREAM the server wrote (but CANCEL and STREAM_CLOSED,
// which end streams already answered or given up) names a stream with an entry; and a GOAWAY with an error
// has exactly the one connection entry naming its code.

let scenario = try! ScenarioLoader.load(
    yaml: """
        version: 1
        name: fuzz-h2
        users: [{name: alice, password: wonderland, domain: EXAMPLE}, {name: bob, password: builder}]
        challenges: [{scheme: Basic}, {scheme: Digest, algorithm: SHA-256, qop: auth}, {scheme: NTLM, domain: EXAMPLE}]
        resources: [{path: /public, protected: false, body: "hi\\n"}, {path: /*, body: "hello {user}\\n"}]
        faults:
          - {when: challenge, path: /close, effect: close}
          - {when: granted, path: /drop, effect: drop-body}
          - {when: any, path: /stall, effect: stall}
        http2: prior-knowledge
        """,
    file: "fuzz-h2.yaml", files: .inMemory([:])
)
let configuration = ServerConfiguration(
    port: 0, journalCapacity: 1000, seed: 1, clock: { Date(timeIntervalSince1970: 1_800_000_000) }
)
let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
let address = try! SocketAddress(ipAddress: "127.0.0.1", port: 40000)
/// RST_STREAM codes that end a stream already answered (or one the server gave up): no entry of their own.
let quietResets: Set<UInt32> = [0x5, 0x8]  // STREAM_CLOSED, CANCEL
let errorNames = [
    "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
    "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
    "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
]
let failureVerdicts: Set<Verdict> = [
    .http2RefusedStream, .http2Malformed, .http2ConnectionError, .http2StreamReset, .http2HTTP11Required,
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let entries = Mutex<[JournalEntry]>([])
    let loop = EmbeddedEventLoop()
    let server = AuthMockServer(scenario: scenario, configuration: configuration, eventLoopGroup: loop)
    server.setJournalObserver { entry in entries.withLock { $0.append(entry) } }
    let channel = EmbeddedChannel(loop: loop)
    try! server.addOriginHandlers(to: channel, connection: 1)
    try! channel.connect(to: address).wait()

    var bytes = channel.allocator.buffer(capacity: preface.count + size)
    bytes.writeBytes(preface)
    bytes.writeBytes(UnsafeBufferPointer(start: data, count: size))
    // An error that reaches the end of the pipeline is rethrown here; the server has journaled it already.
    _ = try? channel.writeInbound(bytes)
    loop.run()
    var written = drain(channel)
    // The client leaves: streams still open end with the connection.
    channel.close(promise: nil)
    loop.run()
    written += drain(channel)
    _ = try? channel.finish(acceptAlreadyClosed: true)
    try? loop.syncShutdownGracefully()

    check(entries.withLock { $0 }, frames(written))
    return 0
}

func drain(_ channel: EmbeddedChannel) -> [UInt8] {
    var bytes: [UInt8] = []
    while let data = try? channel.readOutbound(as: IOData.self) {
        if case .byteBuffer(let buffer) = data { bytes += buffer.readableBytesView }
    }
    return bytes
}

/// The server's frames: type, stream, and the error code of RST_STREAM and GOAWAY.
func frames(_ bytes: [UInt8]) -> [(type: UInt8, stream: Int, code: UInt32?)] {
    var frames: [(type: UInt8, stream: Int, code: UInt32?)] = []
    var index = 0
    while bytes.count - index >= 9 {
        let length = Int(bytes[index]) << 16 | Int(bytes[index + 1]) << 8 | Int(bytes[index + 2])
        precondition(bytes.count - index - 9 >= length, "the server wrote half a frame")
        let type = bytes[index + 3]
        let stream = Int(uint32(bytes[index + 5..<index + 9]) & 0x7fff_ffff)
        let payload = bytes[index + 9..<index + 9 + length]
        let code: UInt32? = switch type {
        case 0x3 where length >= 4: uint32(payload.prefix(4))
        case 0x7 where length >= 8: uint32(payload.dropFirst(4).prefix(4))
        default: nil
        }
        frames.append((type, stream, code))
        index += 9 + length
    }
    precondition(index == bytes.count, "the server wrote half a frame header")
    return frames
}

func uint32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    bytes.reduce(0) { $0 << 8 | UInt32($1) }
}

func name(_ code: UInt32) -> String {
    Int(code) < errorNames.count ? errorNames[Int(code)] : "0x" + String(code, radix: 16)
}

func check(_ entries: [JournalEntry], _ frames: [(type: UInt8, stream: Int, code: UInt32?)]) {
    // Changes to users (POST /_authmock/users/…) are journaled on no connection.
    let exchanges = entries.filter { $0.connection != 0 }
    var streams = Set<Int>()
    var connectionErrors: [JournalEntry] = []
    for entry in exchanges {
        precondition(
            entry.connection == 1 && entry.httpProtocol == "h2",
            "entry \(entry.seq) is not an h2 exchange: \(entry.jsonLine())"
        )
        // A HEADERS frame refused after GOAWAY opens no stream, so the client may send another on that id.
        if let stream = entry.stream, entry.verdict != .http2RefusedStream {
            precondition(streams.insert(stream).inserted, "stream \(stream) journaled twice: \(entry.jsonLine())")
        }
        guard entry.status == 0 else { continue }
        precondition(failureVerdicts.contains(entry.verdict), "status 0 with \(entry.verdict): \(entry.jsonLine())")
        switch entry.verdict {
        case .http2ConnectionError:
            precondition(entry.goaway != nil && entry.reset == nil && entry.stream == nil, entry.jsonLine())
            connectionErrors.append(entry)
        case .http2RefusedStream:
            precondition(entry.reset == "REFUSED_STREAM" && entry.stream != nil, entry.jsonLine())
        case .http2Malformed, .http2HTTP11Required:
            precondition(entry.reset != nil && entry.stream != nil, entry.jsonLine())
        default:
            precondition(entry.reset == nil && entry.goaway == nil && entry.stream != nil, entry.jsonLine())
            let stream = entry.stream!
            precondition(
                !frames.contains { $0.type == 0x3 && $0.stream == stream && !quietResets.contains($0.code ?? 0) },
                "stream \(stream) journaled as \(entry.verdict) though the server reset it: \(entry.jsonLine())"
            )
        }
        if let reset = entry.reset, let stream = entry.stream {
            precondition(
                frames.contains { $0.type == 0x3 && $0.stream == stream && $0.code.map(name) == reset },
                "no RST_STREAM \(reset) on \(stream)"
            )
        }
    }
    let refused = Set(exchanges.filter { $0.verdict == .http2RefusedStream }.compactMap(\.stream))
    precondition(refused.isDisjoint(with: streams), "a refused stream id that also has another entry")
    for frame in frames where frame.type == 0x3 && !quietResets.contains(frame.code ?? 0) {
        precondition(
            streams.contains(frame.stream) || refused.contains(frame.stream),
            "RST_STREAM \(name(frame.code ?? 0)) on stream \(frame.stream) without a journal entry"
        )
    }
    let goAways = frames.filter { $0.type == 0x7 && ($0.code ?? 0) != 0 }
    precondition(connectionErrors.count <= 1, "\(connectionErrors.count) connection-error entries")
    if let goAway = goAways.first {
        precondition(
            connectionErrors.count == 1 && connectionErrors[0].goaway == name(goAway.code!),
            "GOAWAY \(name(goAway.code!)) journaled as \(connectionErrors.map(\.goaway))"
        )
    } else {
        precondition(connectionErrors.isEmpty, "a connection-error entry without a GOAWAY")
    }
}

/// SwiftPM links this as the executable's `main`; it runs libFuzzer with the command line.
@main
enum Main {
    static func main() {
        runLibFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
    }
}
