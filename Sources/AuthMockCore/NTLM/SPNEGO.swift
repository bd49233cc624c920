/// The two SPNEGO token shapes HTTP Negotiate uses (RFC 4178), enough to carry NTLM without Kerberos.
enum SPNEGO {
    static let spnegoOID: [UInt8] = [0x2B, 0x06, 0x01, 0x05, 0x05, 0x02]
    static let ntlmOID: [UInt8] = [0x2B, 0x06, 0x01, 0x04, 0x01, 0x82, 0x37, 0x02, 0x02, 0x0A]
    static let kerberosOIDs: [[UInt8]] = [
        [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x12, 0x01, 0x02, 0x02],  // 1.2.840.113554.1.2.2
        [0x2A, 0x86, 0x48, 0x82, 0xF7, 0x12, 0x01, 0x02, 0x02],  // 1.2.840.48018.1.2.2 (Microsoft)
    ]

    enum Token: Equatable {
        /// NegTokenInit: the mechanisms the client proposes, and an optimistic token for the first.
        case initial(mechTypes: [[UInt8]], mechToken: [UInt8]?)
        /// NegTokenResp: the next token of the chosen mechanism.
        case response(responseToken: [UInt8]?)
    }

    enum NegState: UInt8 {
        case acceptCompleted = 0
        case acceptIncomplete = 1
        case reject = 2
    }

    static func parse(_ bytes: [UInt8]) throws(NTLMSyntaxError) -> Token {
        var reader = DERReader(bytes[...])
        let (tag, body) = try reader.next()
        switch tag {
        case 0x60:  // [APPLICATION 0] InitialContextToken
            var inner = DERReader(body)
            let (oidTag, oid) = try inner.next()
            guard oidTag == 0x06, Array(oid) == spnegoOID else {
                throw NTLMSyntaxError("the token is not SPNEGO (wrong mechanism OID)")
            }
            let (contextTag, negTokenInit) = try inner.next()
            guard contextTag == 0xA0 else { throw NTLMSyntaxError("expected NegTokenInit ([0]) in the SPNEGO token") }
            var fields = try DERReader(negTokenInit).sequence()
            var mechTypes: [[UInt8]] = []
            var mechToken: [UInt8]?
            while !fields.atEnd {
                let (fieldTag, value) = try fields.next()
                switch fieldTag {
                case 0xA0:
                    var list = try DERReader(value).sequence()
                    while !list.atEnd {
                        let (elementTag, element) = try list.next()
                        guard elementTag == 0x06 else {
                            throw NTLMSyntaxError("mechTypes holds something other than an OID")
                        }
                        mechTypes.append(Array(element))
                    }
                case 0xA2:
                    mechToken = Array(try DERReader(value).octetString())
                default:
                    continue  // reqFlags, mechListMIC: not needed without Kerberos
                }
            }
            return .initial(mechTypes: mechTypes, mechToken: mechToken)
        case 0xA1:  // [1] NegTokenResp
            var fields = try DERReader(body).sequence()
            var responseToken: [UInt8]?
            while !fields.atEnd {
                let (fieldTag, value) = try fields.next()
                if fieldTag == 0xA2 { responseToken = Array(try DERReader(value).octetString()) }
            }
            return .response(responseToken: responseToken)
        default:
            throw NTLMSyntaxError(
                "the Negotiate token is neither NegTokenInit nor NegTokenResp (tag 0x\(String(tag, radix: 16)))"
            )
        }
    }

    /// A NegTokenResp from the server.
    static func response(_ state: NegState, supportedMech: [UInt8]?, token: [UInt8]?) -> [UInt8] {
        var fields = tlv(0xA0, tlv(0x0A, [state.rawValue]))
        if let supportedMech { fields += tlv(0xA1, tlv(0x06, supportedMech)) }
        if let token { fields += tlv(0xA2, tlv(0x04, token)) }
        return tlv(0xA1, tlv(0x30, fields))
    }

    /// A NegTokenInit from a client proposing NTLM (used by tests and example clients).
    static func initial(mechTypes: [[UInt8]], mechToken: [UInt8]?) -> [UInt8] {
        var fields = tlv(0xA0, tlv(0x30, mechTypes.flatMap { tlv(0x06, $0) }))
        if let mechToken { fields += tlv(0xA2, tlv(0x04, mechToken)) }
        return tlv(0x60, tlv(0x06, spnegoOID) + tlv(0xA0, tlv(0x30, fields)))
    }

    static func tlv(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
        let length: [UInt8]
        switch value.count {
        case ..<0x80: length = [UInt8(value.count)]
        case ..<0x100: length = [0x81, UInt8(value.count)]
        default: length = [0x82, UInt8(value.count >> 8), UInt8(value.count & 0xFF)]
        }
        return [tag] + length + value
    }
}

/// Reads DER TLVs with single-byte tags and definite lengths, checking every length against the input.
struct DERReader {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    var atEnd: Bool { rest.isEmpty }

    mutating func next() throws(NTLMSyntaxError) -> (tag: UInt8, value: ArraySlice<UInt8>) {
        guard rest.count >= 2 else { throw NTLMSyntaxError("truncated DER element") }
        let tag = rest[rest.startIndex]
        var index = rest.startIndex + 1
        var length = Int(rest[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...3).contains(count), rest.endIndex - index >= count else {
                throw NTLMSyntaxError("bad DER length")
            }
            length = rest[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            index += count
        }
        guard rest.endIndex - index >= length else {
            throw NTLMSyntaxError("a DER element claims \(length) bytes, past the end of the token")
        }
        let value = rest[index..<index + length]
        rest = rest[(index + length)...]
        return (tag, value)
    }

    /// The contents of the single SEQUENCE this reader holds.
    func sequence() throws(NTLMSyntaxError) -> DERReader {
        var copy = self
        let (tag, value) = try copy.next()
        guard tag == 0x30 else { throw NTLMSyntaxError("expected a DER SEQUENCE") }
        return DERReader(value)
    }

    func octetString() throws(NTLMSyntaxError) -> ArraySlice<UInt8> {
        var copy = self
        let (tag, value) = try copy.next()
        guard tag == 0x04 else { throw NTLMSyntaxError("expected a DER OCTET STRING") }
        return value
    }
}
