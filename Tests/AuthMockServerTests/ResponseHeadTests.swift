import AuthMockCore
import NIOHTTP1
import Testing

@testable import AuthMockServer

/// The head the writer gives an engine's answer: the framing and connection fields HTTP/1.x needs, once
/// each, replacing any the answer carries, whichever way the writer finds they are absent.
struct ResponseHeadTests {
    static func head(
        _ fields: [HeaderField], version: HTTPVersion = .http1_1, keepAlive: Bool = true, chunked: Bool = false
    ) -> HTTPHeaders {
        let all = [HeaderField("Content-Type", "text/plain")] + fields
        var response = Response(status: 200, headers: all, body: Array("hello".utf8))
        response.chunked = chunked
        let request = HTTPRequestHead(version: version, method: .GET, uri: "/")
        return ResponseWriter.head(of: response, answering: request, keepAlive: keepAlive).headers
    }

    @Test func anAnswerWithoutFramingFieldsGetsOneOfEach() {
        let kept = Self.head([])
        #expect(kept["content-length"] == ["5"])
        #expect(kept["connection"].isEmpty)
        let closing = Self.head([], keepAlive: false)
        #expect(closing["content-length"] == ["5"])
        #expect(closing["connection"] == ["close"])
        let old = Self.head([], version: .http1_0)
        #expect(old["connection"] == ["keep-alive"])
        let chunked = Self.head([], chunked: true)
        #expect(chunked["transfer-encoding"] == ["chunked"])
        #expect(chunked["content-length"].isEmpty)
    }

    @Test func framingFieldsTheAnswerCarriesAreReplacedNotRepeated() {
        let stray = [HeaderField("content-length", "99"), HeaderField("CONNECTION", "keep-alive")]
        let closing = Self.head(stray, keepAlive: false)
        #expect(closing["content-length"] == ["5"])
        #expect(closing["connection"] == ["close"])
        #expect(closing["content-type"] == ["text/plain"])
        let chunked = Self.head([HeaderField("Transfer-Encoding", "gzip")], chunked: true)
        #expect(chunked["transfer-encoding"] == ["chunked"])
    }
}
