import Testing
import Foundation
@testable import AuthMockCore

/// wget 1.21 negotiates OEM strings, then sets the UNICODE flag on an AUTHENTICATE whose strings are OEM.
/// The CHALLENGE's encoding decides, as Samba and Windows do (found by the conformance suite).
struct NTLMNegotiatedEncodingTests {
    /// wget's AUTHENTICATE as it reached the server (flags 0x00008201, domain "EXAMPLE" in 7 OEM bytes).
    static let wgetAuthenticate = Data(base64Encoded: "TlRMTVNTUAADAAAAGAAYAEwAAAAYABgAZAAAAAcABwBAAAAABQAFAEcAAAAAAAAATAAAAAAAAAB8AAAAAYIAAEVYQU1QTEVhbGljZUwAvby44kxapotpJku/mga5b4et+CguHOdmXSOxmc6tuQJ2EoYu934oizghaBw1gg==")!

    /// wget's AUTHENTICATE fails to parse as UTF-16 and reads as OEM; the client's flags decide the encoding.
    @Test func oemStringsUnderAUnicodeFlag() throws {
        #expect(throws: NTLMSyntaxError.self) { try NTLMMessage.parse(Array(Self.wgetAuthenticate)) }
        guard case .authenticate(let message) = try NTLMMessage.parse(Array(Self.wgetAuthenticate), unicode: false) else {
            Issue.record("not an AUTHENTICATE")
            return
        }
        #expect(message.domain == "EXAMPLE")
        #expect(message.user == "alice")
        #expect(NTLMMessage.negotiatesUnicode(clientFlags: 0x0000_0202) == false)
        #expect(NTLMMessage.negotiatesUnicode(clientFlags: 0x0000_0201) == true)
    }
}
