/// Reads the two facts of a TLS handshake that the TLS library does not hand over: the server name the
/// client asked for (SNI, RFC 6066 §3, in its ClientHello) and the cipher suite the server chose (in its
/// ServerHello, RFC 8446 §4.1.3). Both messages travel in clear, in the first handshake record of each
/// direction; these functions read that record's bytes and never throw: bytes that are not what they
/// expect give `.absent`.
public enum TLSHello {
    public enum Reading<Value: Equatable>: Equatable {
        /// The record is not complete yet: give more of the stream's first bytes.
        case needMore
        case found(Value)
        /// Not a handshake record of that kind, or the extension is not there.
        case absent
    }

    /// The largest prefix worth buffering: a TLS record holds at most 2^14 bytes plus its header.
    public static let maximumRecord = 5 + 16_384

    /// The host name of the ClientHello's `server_name` extension.
    public static func serverName(inClientHello bytes: [UInt8]) -> Reading<String> {
        reading(bytes, handshake: 1) { reader in
            // legacy_version, random, session_id, cipher_suites, compression_methods
            guard reader.skip(2 + 32), reader.skipVector(lengthBytes: 1), reader.skipVector(lengthBytes: 2),
                reader.skipVector(lengthBytes: 1),
                let extensionsLength = reader.integer(2)
            else { return nil }
            var extensions = Reader(reader.take(min(extensionsLength, reader.remaining)) ?? [])
            while let type = extensions.integer(2), let length = extensions.integer(2),
                let body = extensions.take(length)
            {
                guard type == 0 else { continue }
                var list = Reader(body)
                guard let listLength = list.integer(2), var names = list.take(listLength).map(Reader.init) else {
                    return nil
                }
                while let nameType = names.integer(1), let nameLength = names.integer(2),
                    let name = names.take(nameLength)
                {
                    if nameType == 0 { return String(decoding: name, as: UTF8.self) }
                }
                return nil
            }
            return nil
        }
    }

    /// The cipher suite of the ServerHello, by its IANA name (or `0xNNNN` for one this table lacks).
    public static func cipherSuite(inServerHello bytes: [UInt8]) -> Reading<String> {
        reading(bytes, handshake: 2) { reader in
            guard reader.skip(2 + 32), reader.skipVector(lengthBytes: 1), let suite = reader.integer(2) else {
                return nil
            }
            return cipherNames[UInt16(suite)] ?? "0x" + String(suite, radix: 16, uppercase: true).leftPadded(to: 4)
        }
    }

    /// What `body` reads from the first handshake message, when the first record holds one of `type`.
    private static func reading<Value>(_ bytes: [UInt8], handshake type: Int, _ body: (inout Reader) -> Value?)
        -> Reading<Value>
    {
        var reader = Reader(bytes)
        switch reader.handshakeBody(type: type) {
        case .needMore: return .needMore
        case .absent: return .absent
        case .found: return body(&reader).map { .found($0) } ?? .absent
        }
    }

    /// The suites BoringSSL can choose, by their IANA names.
    static let cipherNames: [UInt16: String] = [
        0x1301: "TLS_AES_128_GCM_SHA256", 0x1302: "TLS_AES_256_GCM_SHA384", 0x1303: "TLS_CHACHA20_POLY1305_SHA256",
        0xC02B: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 0xC02C: "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384",
        0xC02F: "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 0xC030: "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384",
        0xCCA9: "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 0xCCA8: "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256",
        0xC009: "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 0xC00A: "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA",
        0xC013: "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 0xC014: "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA",
        0x009C: "TLS_RSA_WITH_AES_128_GCM_SHA256", 0x009D: "TLS_RSA_WITH_AES_256_GCM_SHA384",
        0x002F: "TLS_RSA_WITH_AES_128_CBC_SHA", 0x0035: "TLS_RSA_WITH_AES_256_CBC_SHA",
        0x000A: "TLS_RSA_WITH_3DES_EDE_CBC_SHA",
    ]

    /// A cursor over bytes that fails (nil, false) rather than reading past the end.
    private struct Reader {
        private let bytes: [UInt8]
        private var offset = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var remaining: Int { bytes.count - offset }

        mutating func integer(_ width: Int) -> Int? {
            guard remaining >= width else { return nil }
            defer { offset += width }
            return bytes[offset..<offset + width].reduce(0) { $0 << 8 | Int($1) }
        }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count >= 0, remaining >= count else { return nil }
            defer { offset += count }
            return Array(bytes[offset..<offset + count])
        }

        mutating func skip(_ count: Int) -> Bool { take(count) != nil }

        mutating func skipVector(lengthBytes: Int) -> Bool {
            guard let length = integer(lengthBytes) else { return false }
            return skip(length)
        }

        /// Moves to the body of the first record's first handshake message, when it is of `type`.
        /// A message longer than its record is read as far as the record goes.
        mutating func handshakeBody(type: Int) -> Reading<Bool> {
            guard remaining >= 1 else { return .needMore }
            guard bytes[0] == 22 else { return .absent }
            guard remaining >= 5 else { return .needMore }
            _ = integer(1)
            guard let major = integer(1), major == 3, integer(1) != nil, let recordLength = integer(2) else {
                return .absent
            }
            guard remaining >= recordLength else { return .needMore }
            var record = Reader(Array(bytes[offset..<offset + recordLength]))
            guard let messageType = record.integer(1), messageType == type, record.integer(3) != nil else {
                return .absent
            }
            self = record
            return .found(true)
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
