import AuthMockCore
import FuzzDriver
import Foundation

// The proxy's request-target parser. The first byte picks the method (CONNECT, GET, POST, or a lower-case
// connect, which is not CONNECT), the rest is the target.
//
// Invariants: a parsed target has a host and a port in 1...65535, the port being the digits the target
// spells (or absolute-form's 80); CONNECT has no origin-form and anything else one that starts with '/';
// the authority printed back parses to the same host and port; a refusal is 414 exactly when the target
// is longer than the limit, and 400 otherwise, with a reason.

let methods = ["CONNECT", "GET", "POST", "connect"]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let method = methods[Int(data[0]) % methods.count]
    let target = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let parsed: ProxyTarget
    do throws(ProxyTargetError) {
        parsed = try ProxyTarget.parse(method: method, target: target)
    } catch {
        let tooLong = target.utf8.count > ProxyTarget.maxLength
        precondition(
            error.status == (tooLong ? 414 : 400), "status \(error.status) for a \(target.utf8.count)-byte target"
        )
        precondition(!error.reason.isEmpty, "a refusal without a reason")
        return 0
    }
    precondition(target.utf8.count <= ProxyTarget.maxLength, "a target over the limit was accepted")
    precondition((1...65535).contains(parsed.port), "port \(parsed.port) accepted in \(target.debugDescription)")
    precondition(!parsed.host.isEmpty, "empty host accepted in \(target.debugDescription)")
    precondition(parsed.host.utf8.allSatisfy { $0 < 0x80 }, "host \(parsed.host.debugDescription) is not ASCII")
    precondition(
        !parsed.host.contains { $0 == "@" || $0 == "/" || $0 == "?" || $0 == "[" || $0 == "]" || $0.isWhitespace },
        "host \(parsed.host.debugDescription) from \(target.debugDescription)"
    )
    precondition(parsed.isConnect == (method == "CONNECT"), "isConnect is \(parsed.isConnect) for \(method)")
    if parsed.isConnect {
        precondition(parsed.originForm.isEmpty, "CONNECT with an origin-form")
    } else {
        // Bytes, not Characters: "/" followed by a combining mark is still an origin-form.
        precondition(
            parsed.originForm.utf8.first == UInt8(ascii: "/"),
            "origin-form \(parsed.originForm.debugDescription) from \(target.debugDescription)"
        )
        precondition(
            String(decoding: target.utf8.prefix(7), as: UTF8.self).lowercased() == "http://",
            "absolute-form without http:// accepted: \(target.debugDescription)"
        )
    }
    _ = parsed.isLoopback
    checkPort(parsed, target: target)
    checkRoundTrip(parsed, target: target)
    return 0
}

/// The port is the digits the target spells after the host (RFC 3986 §3.2.3: port = *DIGIT), or
/// absolute-form's default 80 when it spells none.
func checkPort(_ parsed: ProxyTarget, target: String) {
    let authority = parsed.isConnect
        ? target.utf8[...] : target.utf8.dropFirst(7).prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }
    var portText: Substring.UTF8View.SubSequence?
    if authority.first == UInt8(ascii: "[") {
        if let close = authority.firstIndex(of: UInt8(ascii: "]")),
            authority[close...].dropFirst().first == UInt8(ascii: ":")
        {
            portText = authority[close...].dropFirst(2)
        }
    } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
        portText = authority[authority.index(after: colon)...]
    }
    if let portText {
        precondition(
            !portText.isEmpty && portText.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) },
            "port \(parsed.port) from \(target.debugDescription)"
        )
        precondition(
            Int(String(decoding: portText, as: UTF8.self)) == parsed.port,
            "port \(parsed.port) from \(target.debugDescription)"
        )
    } else {
        precondition(
            !parsed.isConnect && parsed.port == 80, "port \(parsed.port) without one in \(target.debugDescription)"
        )
    }
}

/// Printed back as authority-form, the target parses to the same place.
func checkRoundTrip(_ parsed: ProxyTarget, target: String) {
    let host = parsed.host.contains(":") ? "[\(parsed.host)]" : parsed.host
    let again: ProxyTarget
    do throws(ProxyTargetError) {
        again = try ProxyTarget.parse(method: "CONNECT", target: "\(host):\(parsed.port)")
    } catch {
        fatalError("\(host):\(parsed.port) (from \(target.debugDescription)) does not parse: \(error.reason)")
    }
    precondition(
        again.host == parsed.host && again.port == parsed.port,
        "\(host):\(parsed.port) parses to \(again.host):\(again.port)"
    )
}

/// SwiftPM links this as the executable's `main`; it runs libFuzzer with the command line.
@main
enum Main {
    static func main() {
        runLibFuzzer { data, size in fuzz(data ?? UnsafePointer(bitPattern: 1)!, size) }
    }
}
