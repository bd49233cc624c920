import Testing
@testable import AuthMockCore

/// The ClientHello and ServerHello reader the shell uses for SNI and the cipher (RFC 8446 §4.1.2–4.1.3,
/// RFC 6066 §3), on messages built byte by byte — including truncated and forged ones.
struct TLSHelloTests {
    static func u16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    static func u24(_ value: Int) -> [UInt8] { [UInt8(value >> 16 & 0xFF)] + u16(value) }

    /// A handshake record holding one message of `type`.
    static func record(type: UInt8, _ body: [UInt8]) -> [UInt8] {
        let message = [type] + u24(body.count) + body
        return [22, 3, 1] + u16(message.count) + message
    }

    static func clientHello(serverName: String?, otherExtensions: [UInt8] = [0x00, 0x0B, 0x00, 0x02, 0x01, 0x00]) -> [UInt8] {
        var extensions = otherExtensions
        if let serverName {
            let name = Array(serverName.utf8)
            let entry = [UInt8(0)] + u16(name.count) + name
            let list = u16(entry.count) + entry
            extensions += [0, 0] + u16(list.count) + list
        }
        let body = [3, 3] + [UInt8](repeating: 7, count: 32) + [32] + [UInt8](repeating: 9, count: 32)
            + u16(4) + [0x13, 0x01, 0x13, 0x02] + [1, 0] + u16(extensions.count) + extensions
        return record(type: 1, body)
    }

    static func serverHello(cipher: Int) -> [UInt8] {
        record(type: 2, [3, 3] + [UInt8](repeating: 1, count: 32) + [0] + u16(cipher) + [0] + u16(0))
    }

    @Test func readsTheServerNameAfterOtherExtensions() {
        #expect(TLSHello.serverName(inClientHello: Self.clientHello(serverName: "localhost")) == .found("localhost"))
    }

    @Test func aClientHelloWithoutServerNameHasNone() {
        // Clients send no SNI for an IP-literal URL (RFC 6066 §3).
        #expect(TLSHello.serverName(inClientHello: Self.clientHello(serverName: nil)) == .absent)
    }

    @Test func asksForMoreUntilTheRecordIsComplete() {
        let hello = Self.clientHello(serverName: "localhost")
        for cut in [0, 1, 4, 5, 40, hello.count - 1] {
            #expect(TLSHello.serverName(inClientHello: Array(hello.prefix(cut))) == .needMore, "cut at \(cut)")
        }
    }

    @Test func plainHTTPAndOtherMessagesAreNotClientHellos() {
        #expect(TLSHello.serverName(inClientHello: Array("GET / HTTP/1.1\r\n".utf8)) == .absent)
        #expect(TLSHello.serverName(inClientHello: Self.serverHello(cipher: 0x1301)) == .absent)
        #expect(TLSHello.cipherSuite(inServerHello: Self.clientHello(serverName: "x")) == .absent)
    }

    /// Lengths that point past their container end the reading; nothing traps.
    @Test func forgedLengthsGiveAbsent() {
        var hello = Self.clientHello(serverName: "localhost")
        // The extensions block claims more than the record holds: read as far as it goes.
        let extensionsAt = 5 + 4 + 2 + 32 + 1 + 32 + 2 + 4 + 2
        hello[extensionsAt] = 0xFF
        #expect(TLSHello.serverName(inClientHello: hello) == .found("localhost"))
        // The server_name list claims 0xFFFF bytes.
        var forged = Self.clientHello(serverName: "localhost", otherExtensions: [])
        forged[extensionsAt + 2 + 4] = 0xFF
        forged[extensionsAt + 2 + 5] = 0xFF
        #expect(TLSHello.serverName(inClientHello: forged) == .absent)
        // A session id longer than the message.
        var longSession = Self.clientHello(serverName: "localhost")
        longSession[5 + 4 + 2 + 32] = 0xFF
        #expect(TLSHello.serverName(inClientHello: longSession) == .absent)
    }

    @Test func namesTheServerHelloCipher() {
        #expect(TLSHello.cipherSuite(inServerHello: Self.serverHello(cipher: 0x1301)) == .found("TLS_AES_128_GCM_SHA256"))
        #expect(TLSHello.cipherSuite(inServerHello: Self.serverHello(cipher: 0xC00A)) == .found("TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"))
        #expect(TLSHello.cipherSuite(inServerHello: Self.serverHello(cipher: 0x00AB)) == .found("0x00AB"))
        #expect(TLSHello.cipherSuite(inServerHello: Array(Self.serverHello(cipher: 0x1301).prefix(20))) == .needMore)
    }
}
