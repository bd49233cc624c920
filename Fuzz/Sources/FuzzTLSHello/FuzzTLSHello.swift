import AuthMockCore
import FuzzDriver
import Foundation

// The ClientHello and ServerHello reader behind the journal's SNI and cipher: the bytes are the first a
// client sends, before any check. Both readers see every input.
//
// Invariants: nothing traps; a server name found is bytes of the input; a cipher is a known IANA name or
// `0x` and four hex digits; and, as the TLS handler's sniffer relies on, reading is incremental: every
// prefix of the input reads as "need more" or as the whole input does, and bytes after a complete record
// change nothing.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    check(bytes, TLSHello.serverName(inClientHello:)) { name in
        precondition(bytes.count >= name.utf8.count, "a server name longer than the input")
    }
    check(bytes, TLSHello.cipherSuite(inServerHello:)) { cipher in
        let hex = cipher.hasPrefix("0x") && cipher.count == 6 && cipher.dropFirst(2).allSatisfy(\.isHexDigit)
        precondition(hex || cipher.hasPrefix("TLS_"), "cipher \(cipher.debugDescription)")
    }
    return 0
}

func check(_ bytes: [UInt8], _ read: ([UInt8]) -> TLSHello.Reading<String>, found: (String) -> Void) {
    let whole = read(bytes)
    if case .found(let value) = whole { found(value) }
    // A few prefixes, at positions the input itself picks: enough for libFuzzer to explore them all.
    for cut in Set([0, 1, 5, bytes.count / 2, max(0, bytes.count - 1)]) where cut < bytes.count {
        let part = read(Array(bytes.prefix(cut)))
        precondition(part == .needMore || part == whole, "prefix of \(cut) bytes reads \(part), the whole \(whole)")
    }
    if whole != .needMore {
        precondition(read(bytes + [22, 3, 3, 0, 1, 2]) == whole, "bytes after a complete record changed the reading")
    }
}

/// SwiftPM links this as the executable's `main`; it runs libFuzzer with the command line.
@main
enum Main {
    static func main() {
        runLibFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
    }
}
