/// NTLM messages (MS-NLMP §2.2), parsed with every length and offset checked against the buffer.
enum NTLMMessage: Equatable {
    case negotiate(flags: UInt32)
    case authenticate(NTLMAuthenticate)

    static let signature: [UInt8] = Array("NTLMSSP".utf8) + [0]

    struct Flags {
        static let unicode: UInt32 = 0x0000_0001
        static let oem: UInt32 = 0x0000_0002
        static let requestTarget: UInt32 = 0x0000_0004
        static let sign: UInt32 = 0x0000_0010
        static let seal: UInt32 = 0x0000_0020
        static let ntlm: UInt32 = 0x0000_0200
        static let alwaysSign: UInt32 = 0x0000_8000
        static let targetTypeDomain: UInt32 = 0x0001_0000
        static let extendedSessionSecurity: UInt32 = 0x0008_0000
        static let targetInfo: UInt32 = 0x0080_0000
        static let version: UInt32 = 0x0200_0000
        static let key128: UInt32 = 0x2000_0000
        static let key56: UInt32 = 0x8000_0000
    }

    /// Parses a NEGOTIATE (type 1) or AUTHENTICATE (type 3) message.
    ///
    /// - Parameter unicode: the string encoding the CHALLENGE settled, when there was one. It wins over the
    ///   AUTHENTICATE's own flags, as Samba and Windows decide: wget 1.21 negotiates OEM, then sets the
    ///   UNICODE flag on an AUTHENTICATE whose strings are OEM.
    static func parse(_ bytes: [UInt8], unicode negotiated: Bool? = nil) throws(NTLMSyntaxError) -> NTLMMessage {
        guard bytes.count >= 12 else {
            throw NTLMSyntaxError("the message is \(bytes.count) bytes, shorter than an NTLM header")
        }
        guard bytes.count <= 65_536 else {
            throw NTLMSyntaxError("the message is \(bytes.count) bytes, more than NTLM allows")
        }
        guard Array(bytes[0..<8]) == signature else {
            throw NTLMSyntaxError("the message does not start with the NTLMSSP signature")
        }
        let reader = Reader(bytes: bytes)
        switch try reader.uint32(at: 8) {
        case 1:
            return .negotiate(flags: bytes.count >= 16 ? try reader.uint32(at: 12) : 0)
        case 2:
            throw NTLMSyntaxError("a CHALLENGE (type 2) message comes from the server, not the client")
        case 3:
            guard bytes.count >= 64 else {
                throw NTLMSyntaxError("an AUTHENTICATE message needs at least 64 bytes, got \(bytes.count)")
            }
            let flags = try reader.uint32(at: 60)
            let unicode = negotiated ?? (flags & Flags.unicode != 0)
            return .authenticate(NTLMAuthenticate(
                flags: flags,
                lmResponse: try reader.field(at: 12, name: "LmChallengeResponse"),
                ntResponse: try reader.field(at: 20, name: "NtChallengeResponse"),
                domain: try reader.string(at: 28, name: "DomainName", unicode: unicode),
                user: try reader.string(at: 36, name: "UserName", unicode: unicode),
                workstation: try reader.string(at: 44, name: "Workstation", unicode: unicode)
            ))
        case let other:
            throw NTLMSyntaxError("unknown NTLM message type \(other)")
        }
    }

    /// Whether the CHALLENGE answering these NEGOTIATE flags settles on UTF-16 strings (else OEM).
    static func negotiatesUnicode(clientFlags: UInt32) -> Bool {
        clientFlags & Flags.unicode != 0 || clientFlags & Flags.oem == 0
    }

    /// Builds the CHALLENGE (type 2) message answering a NEGOTIATE with `clientFlags`.
    static func challenge(
        serverChallenge: [UInt8], clientFlags: UInt32, domain: String, server: String, targetInfo: Bool,
        timestamp: UInt64, corruption: NTLMCorruption? = nil
    ) -> [UInt8] {
        let unicode = negotiatesUnicode(clientFlags: clientFlags)
        var flags = (unicode ? Flags.unicode : Flags.oem) | Flags.requestTarget | Flags.ntlm | Flags.alwaysSign
            | Flags.targetTypeDomain
            | Flags.version
        // MS-NLMP §3.2.5.1.1: SIGN and SEAL asked for are granted (gss-ntlmssp, which curl's GSS-API Negotiate
        // uses, refuses a CHALLENGE without the SIGN it asked for), and so are the session security options.
        flags |= clientFlags & (Flags.sign | Flags.seal | Flags.extendedSessionSecurity | Flags.key128 | Flags.key56)
        let targetName = unicode ? NTLMCrypto.utf16le(domain) : Array(domain.utf8)
        var info: [UInt8] = []
        if targetInfo {
            flags |= Flags.targetInfo
            func pair(_ id: UInt16, _ value: [UInt8]) {
                info += le16(id) + le16(UInt16(value.count)) + value
            }
            let dnsDomain = domain.lowercased() + ".test"
            pair(2, NTLMCrypto.utf16le(domain))
            pair(1, NTLMCrypto.utf16le(server))
            pair(4, NTLMCrypto.utf16le(dnsDomain))
            pair(3, NTLMCrypto.utf16le(server.lowercased() + "." + dnsDomain))
            pair(7, le64(timestamp))
            pair(0, [])
        }
        let payloadStart = 56
        var message = signature + le32(2)
        message += le16(UInt16(targetName.count)) + le16(UInt16(targetName.count)) + le32(UInt32(payloadStart))
        message += le32(flags) + serverChallenge + [UInt8](repeating: 0, count: 8)
        let (infoLength, infoOffset) = targetInfoFields(
            length: info.count, offset: payloadStart + targetName.count, corruption: corruption
        )
        message += le16(infoLength) + le16(infoLength) + le32(infoOffset)
        message += [10, 0] + le16(19041) + [0, 0, 0, 0x0F]  // version 10.0.19041, NTLM revision 15
        return message + targetName + info
    }

    /// The TargetInfoFields (length, offset) as sent: the true ones, or a corruption of them.
    static func targetInfoFields(length: Int, offset: Int, corruption: NTLMCorruption?)
        -> (length: UInt16, offset: UInt32)
    {
        switch corruption {
        case nil: (UInt16(length), UInt32(offset))
        case .targetInfoPastEnd?: (UInt16(length + 4096), UInt32(offset))
        case .targetInfoOffsetWraps?: (0x40, 0xFFFF_FFF0)
        case .targetInfoInHeader?: (UInt16(length), 0)
        }
    }

    /// Windows FILETIME (100 ns since 1601) for a Unix time in seconds.
    static func fileTime(unixSeconds: Double) -> UInt64 {
        UInt64(max(0, (unixSeconds + 11_644_473_600) * 10_000_000))
    }

    private struct Reader {
        let bytes: [UInt8]

        func uint32(at offset: Int) throws(NTLMSyntaxError) -> UInt32 {
            guard offset + 4 <= bytes.count else { throw NTLMSyntaxError("truncated at byte \(offset)") }
            return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24
        }

        /// A security buffer (length, max length, offset) and the bytes it points at.
        func field(at offset: Int, name: String) throws(NTLMSyntaxError) -> [UInt8] {
            guard offset + 8 <= bytes.count else { throw NTLMSyntaxError("truncated in the \(name) field") }
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
            let start = Int(try uint32(at: offset + 4))
            guard length > 0 else { return [] }
            guard start >= 12, start <= bytes.count, length <= bytes.count - start else {
                throw NTLMSyntaxError(
                    "\(name) points outside the message "
                        + "(offset \(start), length \(length), message \(bytes.count) bytes)"
                )
            }
            return Array(bytes[start..<start + length])
        }

        func string(at offset: Int, name: String, unicode: Bool) throws(NTLMSyntaxError) -> String {
            let raw = try field(at: offset, name: name)
            guard unicode else { return String(String.UnicodeScalarView(raw.map { Unicode.Scalar($0) })) }
            guard raw.count % 2 == 0 else { throw NTLMSyntaxError("\(name) has an odd length for UTF-16") }
            let units = stride(from: 0, to: raw.count, by: 2).map { UInt16(raw[$0]) | UInt16(raw[$0 + 1]) << 8 }
            return String(decoding: units, as: UTF16.self)
        }
    }
}

struct NTLMAuthenticate: Equatable {
    var flags: UInt32
    var lmResponse: [UInt8]
    var ntResponse: [UInt8]
    var domain: String
    var user: String
    var workstation: String
}

struct NTLMSyntaxError: Error, Equatable {
    var reason: String
    init(_ reason: String) { self.reason = reason }
}

private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
private func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) } }
