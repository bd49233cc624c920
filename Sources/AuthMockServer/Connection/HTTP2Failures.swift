import AuthMockCore
import Logging
import NIOCore
import NIOHTTP2

/// What the handlers of one HTTP/2 connection share about the streams and the connection that NIO's HTTP/2
/// handler ended with an error code, so that each is journaled once (RFC 9113 §5.4):
///
/// - a stream error on a stream that never reached a stream pipeline (refused after GOAWAY, a HEADERS block
///   that breaks HTTP/2's rules) is journaled by ``HTTP2FailureJournal``, on the connection; but not
///   `STREAM_CLOSED` or `CANCEL`, which NIO's handler sends for frames on a stream already ended (and
///   journaled);
/// - a stream error on a stream whose pipeline holds a half-received request is journaled by that stream's
///   ``ExchangeHandler`` when the stream closes, with the reason the connection handler saw;
/// - a connection error (`GOAWAY`) is journaled once by ``HTTP2FailureJournal``, which then closes the
///   connection.
///
/// NIO's handler says which frame it sent only in the bytes it writes, and why only in the error it fires
/// after them: ``HTTP2SentErrorFrames`` reads the former below it, ``HTTP2FailureJournal`` the latter above.
/// Used only on the connection's event loop.
final class HTTP2Failures {
    /// An error frame the server wrote: `RST_STREAM` or a `GOAWAY` with an error.
    enum Sent: Equatable {
        case reset(stream: Int, code: HTTP2ErrorCode)
        case goAway(lastStream: Int, code: HTTP2ErrorCode)
    }

    /// The last error frame written that no error has claimed yet (cleared after each read).
    var lastSent: Sent?
    /// Streams this server resets on purpose (an `HTTP_1_1_REQUIRED`, a `drop-body`): already journaled.
    private var ownResets: Set<Int> = []
    /// Streams with a live pipeline, and the stream error NIO's handler reset each with, if it did.
    private var openStreams: [Int: (code: HTTP2ErrorCode, reason: String)?] = [:]
    /// A connection error was journaled: the connection is going away, and nothing more about it is new.
    var connectionFailed = false

    func streamOpened(_ stream: Int) {
        openStreams[stream] = .some(nil)
    }

    func streamClosed(_ stream: Int) {
        openStreams[stream] = nil
        ownResets.remove(stream)
    }

    /// The server is about to reset `stream` itself.
    func resettingOnPurpose(_ stream: Int) {
        ownResets.insert(stream)
    }

    /// A frame NIO's handler wrote (as read by ``HTTP2SentErrorFrames``).
    func wrote(_ frame: Sent) {
        if case .reset(let stream, _) = frame, ownResets.contains(stream) { return }
        lastSent = frame
    }

    /// Hands the reason of a stream error to the stream's pipeline; false when the stream has none.
    func streamFailed(_ stream: Int, code: HTTP2ErrorCode, reason: String) -> Bool {
        guard openStreams[stream] != nil else { return false }
        openStreams[stream] = .some((code, reason))
        return true
    }

    /// The stream error NIO's handler reset an open stream with, and why.
    func failure(of stream: Int) -> (code: HTTP2ErrorCode, reason: String)? {
        openStreams[stream] ?? nil
    }

    /// An HTTP/2 error code as RFC 9113 §7 names it (`REFUSED_STREAM`), as the journal's `reset` and
    /// `goaway` say it.
    static func name(_ code: HTTP2ErrorCode) -> String {
        switch code.networkCode {
        case 0x0: "NO_ERROR"
        case 0x1: "PROTOCOL_ERROR"
        case 0x2: "INTERNAL_ERROR"
        case 0x3: "FLOW_CONTROL_ERROR"
        case 0x4: "SETTINGS_TIMEOUT"
        case 0x5: "STREAM_CLOSED"
        case 0x6: "FRAME_SIZE_ERROR"
        case 0x7: "REFUSED_STREAM"
        case 0x8: "CANCEL"
        case 0x9: "COMPRESSION_ERROR"
        case 0xa: "CONNECT_ERROR"
        case 0xb: "ENHANCE_YOUR_CALM"
        case 0xc: "INADEQUATE_SECURITY"
        case 0xd: "HTTP_1_1_REQUIRED"
        case let other: "0x" + String(other, radix: 16)
        }
    }

    /// What an error of NIO's HTTP/2 handler says, for people: the error's own words, without the source
    /// location NIO adds.
    static func describe(_ error: any Error) -> String {
        switch error {
        case let error as NIOHTTP2Errors.StreamError: return describe(error.baseError)
        case is NIOHTTP2Errors.CreatedStreamAfterGoaway: return "the stream was opened after the server's GOAWAY"
        case is NIOHTTP2Errors.InvalidPseudoHeaders:
            return "its pseudo-header fields are not a request's: :method, :scheme and :path (or CONNECT's :authority)"
        case let error as NIOHTTP2Errors.MissingPseudoHeader: return "no \(error.name) pseudo-header field"
        case let error as NIOHTTP2Errors.DuplicatePseudoHeader: return "the pseudo-header field \(error.name) twice"
        case let error as NIOHTTP2Errors.UnknownPseudoHeader: return "an unknown pseudo-header field \(error.name)"
        case is NIOHTTP2Errors.PseudoHeaderAfterRegularHeader: return "a pseudo-header field after a regular field"
        case is NIOHTTP2Errors.EmptyPathHeader: return "an empty :path"
        case let error as NIOHTTP2Errors.InvalidHTTP2HeaderFieldName:
            return "the field name \"\(error.fieldName)\" is not valid in HTTP/2 (upper case, or not a token)"
        case is NIOHTTP2Errors.InvalidHTTP2HeaderFieldValue: return "a field value with a character HTTP/2 forbids"
        case let error as NIOHTTP2Errors.ForbiddenHeaderField:
            return "the connection-specific field \"\(error.name): \(error.value)\", which HTTP/2 forbids"
        case is NIOHTTP2Errors.ContentLengthViolated: return "its body does not match its content-length"
        case is NIOHTTP2Errors.ContentLengthHeadersMismatch, is NIOHTTP2Errors.ContentLengthHeaderNegative,
            is NIOHTTP2Errors.ContentLengthHeaderMalformedValue:
            return "its content-length fields are not one valid length"
        default: break
        }
        var text = String(describing: error)
        if let location = text.firstMatch(of: #/(, )?location: "?[^")]*"?/#)?.range {
            text.removeSubrange(location)
        }
        if let location = text.firstMatch(of: #/(, )?file: "[^"]*", line: [0-9]+/#)?.range {
            text.removeSubrange(location)
        }
        if text.hasSuffix("()") { text.removeLast(2) }
        return text
    }
}

/// Reads the frames NIO's HTTP/2 handler writes (it sits below it, above the guard) and reports each
/// `RST_STREAM` and each `GOAWAY` with an error to the connection's ``HTTP2Failures``. Only frame headers and
/// the first 8 bytes of those two frames' payloads are looked at; every byte passes unchanged.
final class HTTP2SentErrorFrames: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private static let rstStream: UInt8 = 0x3
    private static let goAway: UInt8 = 0x7

    private let failures: HTTP2Failures
    /// The frame header being read (9 bytes), then the frame's payload left to pass.
    private var header: [UInt8] = []
    private var payloadLeft = 0
    /// The start of an RST_STREAM's or GOAWAY's payload (the error code is in its first 8 bytes).
    private var payloadHead: [UInt8] = []

    init(failures: HTTP2Failures) {
        self.failures = failures
        header.reserveCapacity(9)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .byteBuffer(let buffer):
            buffer.withUnsafeReadableBytes { read($0) }
        case .fileRegion(let region):
            // Only a DATA frame's payload goes out as a file region.
            payloadLeft -= min(payloadLeft, region.readableBytes)
        }
        context.write(data, promise: promise)
    }

    private func read(_ bytes: UnsafeRawBufferPointer) {
        var index = 0
        while index < bytes.count {
            if header.count < 9 {
                let take = min(9 - header.count, bytes.count - index)
                header.append(contentsOf: bytes[index..<index + take])
                index += take
                guard header.count == 9 else { return }
                payloadLeft = Int(header[0]) << 16 | Int(header[1]) << 8 | Int(header[2])
                payloadHead.removeAll(keepingCapacity: true)
                if payloadLeft == 0 { frameEnded() }
                continue
            }
            let take = min(payloadLeft, bytes.count - index)
            if (header[3] == Self.rstStream || header[3] == Self.goAway), payloadHead.count < 8 {
                payloadHead.append(contentsOf: bytes[index..<index + min(take, 8 - payloadHead.count)])
            }
            payloadLeft -= take
            index += take
            if payloadLeft == 0 { frameEnded() }
        }
    }

    private func frameEnded() {
        defer { header.removeAll(keepingCapacity: true) }
        let stream = Self.uint31(header[5...8])
        switch header[3] {
        case Self.rstStream where payloadHead.count >= 4:
            failures.wrote(
                .reset(stream: stream, code: HTTP2ErrorCode(networkCode: Int(Self.uint32(payloadHead[0..<4]))))
            )
        case Self.goAway where payloadHead.count >= 8:
            let code = HTTP2ErrorCode(networkCode: Int(Self.uint32(payloadHead[4..<8])))
            if code != .noError { failures.wrote(.goAway(lastStream: Self.uint31(payloadHead[0..<4]), code: code)) }
        default:
            break
        }
    }

    private static func uint32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func uint31(_ bytes: ArraySlice<UInt8>) -> Int {
        Int(uint32(bytes) & 0x7fff_ffff)
    }
}

/// Above NIO's HTTP/2 handler on the connection: journals each stream that handler refused or reset before
/// it reached a stream pipeline, and each connection error, with the error it fired as the reason; closes
/// the connection after a connection error's GOAWAY (RFC 9113 §5.4.1).
final class HTTP2FailureJournal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    private let failures: HTTP2Failures
    private let engines: LockedEngines
    private let record: ConnectionRecord
    private let logger: Logger

    init(failures: HTTP2Failures, engines: LockedEngines, record: ConnectionRecord, logger: Logger) {
        self.failures = failures
        self.engines = engines
        self.record = record
        self.logger = logger
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // An error frame and the error that explains it come in the same read.
        failures.lastSent = nil
        context.fireChannelReadComplete()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        defer { context.fireErrorCaught(error) }
        guard !failures.connectionFailed else { return }
        let sent = failures.lastSent
        failures.lastSent = nil
        let streamError = error as? NIOHTTP2Errors.StreamError
        let reason = HTTP2Failures.describe(error)
        switch sent {
        case .goAway(_, let code)?:
            failures.connectionFailed = true
            let detail = "the connection broke HTTP/2 (\(reason)): GOAWAY \(HTTP2Failures.name(code)), "
                + "connection closed"
            journal(stream: nil, reset: nil, goaway: code, verdict: .http2ConnectionError, detail: detail)
            context.close(promise: nil)
        case .reset(let stream, let code)? where streamError == nil || Int(streamError!.streamID) == stream:
            streamFailed(stream, code: code, reason: reason)
        case nil where streamError != nil:
            // The RST_STREAM is still buffered (the client is not reading): the error names the stream.
            let code: HTTP2ErrorCode =
                streamError!.baseError is NIOHTTP2Errors.CreatedStreamAfterGoaway ? .refusedStream : .protocolError
            streamFailed(Int(streamError!.streamID), code: code, reason: reason)
        default:
            // Not an HTTP/2 error of this connection's making (an I/O error, say): nothing was refused.
            logger.debug("HTTP/2 connection error: \(error)")
        }
    }

    private func streamFailed(_ stream: Int, code: HTTP2ErrorCode, reason: String) {
        // A stream with a pipeline journals its own end, with this reason.
        if failures.streamFailed(stream, code: code, reason: reason) { return }
        // Frames on a stream already ended: it has its entry.
        if code == .streamClosed || code == .cancel { return }
        let name = HTTP2Failures.name(code)
        if code == .refusedStream {
            let detail = "stream \(stream) was opened after the server's GOAWAY: RST_STREAM REFUSED_STREAM, "
                + "not processed (the client may retry it on a new connection)"
            journal(stream: stream, reset: code, goaway: nil, verdict: .http2RefusedStream, detail: detail)
        } else {
            let detail = "stream \(stream) is not a valid HTTP/2 request (\(reason)): RST_STREAM \(name)"
            journal(stream: stream, reset: code, goaway: nil, verdict: .http2Malformed, detail: detail)
        }
    }

    private func journal(
        stream: Int?, reset: HTTP2ErrorCode?, goaway: HTTP2ErrorCode?, verdict: Verdict, detail: String
    ) {
        var connection = record.startExchange()
        connection.httpProtocol = .h2
        connection.stream = stream
        engines.recordHTTP2Failure(
            nil, connection: connection, reset: reset.map(HTTP2Failures.name), goaway: goaway.map(HTTP2Failures.name),
            verdict: verdict, detail: detail
        )
    }
}
