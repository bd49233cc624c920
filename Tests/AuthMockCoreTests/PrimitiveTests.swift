import Testing
import Foundation
@testable import AuthMockCore

/// Test vectors from the RFCs and FIPS, checked against an independent implementation (OpenSSL via
/// Python's hashlib) when they were written.
struct PrimitiveTests {
    /// FIPS 180-4 SHA-512/256 examples: empty, "abc", and a two-block message.
    @Test(arguments: [
        ("", "c672b8d1ef56ed28ab87c3622c5114069bdd3ad7b8f9737498d0c01ecef0967a"),
        ("abc", "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23"),
        (
            "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
            "3928e184fb8690f840da3988121d31be65cb9d3ef83ee6146feac861e19b563a"
        ),
    ])
    func sha512_256(message: String, expected: String) {
        #expect(HashFunction.sha512_256.hash(Array(message.utf8)).hexString == expected)
    }

    /// FIPS 180 and RFC 1321 "abc" for the other hashes, over an array and over a collection with no contiguous
    /// storage (hashed from a copy): the same digest.
    @Test(arguments: [
        (HashFunction.md5, "900150983cd24fb0d6963f7d28e17f72"),
        (HashFunction.sha1, "a9993e364706816aba3e25717850c26c9cd0d89d"),
        (HashFunction.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
    ])
    func abc(function: HashFunction, expected: String) {
        #expect(function.hash(Array("abc".utf8)).hexString == expected)
        #expect(function.hash("abc".utf8.lazy.map { $0 }).hexString == expected)
        #expect(function.hash(Array("abc".utf8)).count == function.size)
    }

    /// Hashing parts joined by a separator, part by part, is hashing the joined text, for every function
    /// (empty parts, one part, non-ASCII, and a join longer than a block).
    @Test(arguments: HashFunction.allCases)
    func hashJoiningIsHashOfTheJoinedText(function: HashFunction) {
        for parts in [[], [""], ["", ""], ["GET", "/"], ["zoë", "", "✓"], Array(repeating: "0123456789abcdef", count: 13)] {
            let joined = parts.joined(separator: ":")
            #expect(function.hash(joining: parts, separator: UInt8(ascii: ":")) == function.hash(Array(joined.utf8)), "\(parts)")
        }
    }

    /// RFC 2202 §2 test case 2 (HMAC-MD5) and RFC 4231 §4.3 (HMAC-SHA-256): key "Jefe". A key set once gives
    /// the same MAC every time: each MAC starts from a copy of the keyed state.
    @Test(arguments: [
        (HashFunction.md5, "750c783e6ab0b503eaa86e310a5db738"),
        (HashFunction.sha256, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
    ])
    func hmac(function: HashFunction, expected: String) {
        let message = Array("what do ya want for nothing?".utf8)
        #expect(HMACKey.mac(function, key: Array("Jefe".utf8), message).hexString == expected)
        let key = HMACKey(function, key: Array("Jefe".utf8))
        #expect(key.mac(message).hexString == expected)
        #expect(key.mac(message).hexString == expected)
        #expect(key.mac(Array("another message".utf8)).hexString != expected)
    }

    /// RFC 4231 §4.2 and §4.7 (HMAC-SHA-256) and RFC 2202 §2 test case 6 (HMAC-MD5): a short key, and keys
    /// longer than the hash's block, which are hashed first; and a key of exactly one block with an empty
    /// message (its value from Python's hmac module).
    @Test(arguments: [
        (HashFunction.sha256, [UInt8](repeating: 0x0b, count: 20), "Hi There",
         "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        (HashFunction.sha256, [UInt8](repeating: 0xaa, count: 131), "Test Using Larger Than Block-Size Key - Hash Key First",
         "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        (HashFunction.sha256, [UInt8](repeating: 0xaa, count: 64), "", "db2cf93f633fcdfd9bb7f3b99763a63725cb8e38b4fa60a87d0e94b71d8b5970"),
        (HashFunction.md5, [UInt8](repeating: 0xaa, count: 80), "Test Using Larger Than Block-Size Key - Hash Key First",
         "6b1ab7fe4bd7bf8f0b62e6ce61b9d0cd"),
    ])
    func hmacKeys(function: HashFunction, key: [UInt8], message: String, expected: String) {
        #expect(HMACKey(function, key: key).mac(Array(message.utf8)).hexString == expected)
        #expect(HMACKey(function, key: key).mac(message.utf8.lazy.map { $0 }).hexString == expected, "non-contiguous")
    }

    /// RFC 7616 §3.9.1: the MD5 and SHA-256 responses for Mufasa / "Circle of Life".
    @Test(arguments: [
        (DigestAlgorithm.md5, "8ca523f5e9506fed4657c9700eebdbec"),
        (DigestAlgorithm.sha256, "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
    ])
    func rfc7616Example(algorithm: DigestAlgorithm, expected: String) {
        let inputs = DigestInputs(
            algorithm: algorithm, username: "Mufasa", realm: "http-auth@example.org", password: "Circle of Life", method: "GET",
            uri: "/dir/index.html", nonce: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", qop: .auth, nc: "00000001",
            cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ"
        )
        #expect(inputs.response == expected)
    }

    /// RFC 7616 §3.9.2 (SHA-512-256, userhash, UTF-8 name). The RFC's printed userhash and response are
    /// wrong (erratum 4897); these values were computed independently with OpenSSL's SHA-512/256.
    @Test func rfc7616UserhashExample() {
        let algorithm = DigestAlgorithm.sha512_256
        #expect(
            algorithm.userhash(username: "J\u{E4}s\u{F8}n Doe", realm: "api@example.org")
                == "793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b"
        )
        let inputs = DigestInputs(
            algorithm: algorithm, username: "J\u{E4}s\u{F8}n Doe", realm: "api@example.org", password: "Secret, or not?",
            method: "GET", uri: "/doe.json", nonce: "5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK", qop: .auth, nc: "00000001",
            cnonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v"
        )
        #expect(inputs.response == "3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5")
        // The printed (erroneous) value must not be what we compute.
        #expect(inputs.response != "ae66e67d6b427bd3f120414a82e4acff38e8ecd9101d6c861229025f607a79dd")
    }

    /// RFC 2617 §3.5's example, which RFC 2069-era and MD5 clients still compute.
    @Test func rfc2617Example() {
        let inputs = DigestInputs(
            algorithm: .md5, username: "Mufasa", realm: "testrealm@host.com", password: "Circle Of Life", method: "GET",
            uri: "/dir/index.html", nonce: "dcd98b7102dd2f0e8b11d0f600bfb0c093", qop: .auth, nc: "00000001", cnonce: "0a4f113b"
        )
        #expect(inputs.response == "6629fae49393a05397450978507c4ef1")
    }

    /// RFC 7617 §2 and §2.1: Aladdin, and the UTF-8 example "test:123£".
    @Test func rfc7617Examples() throws {
        #expect(Base64.encode(Array("Aladdin:open sesame".utf8)) == "QWxhZGRpbjpvcGVuIHNlc2FtZQ==")
        #expect(Base64.encode(Array("test:123\u{A3}".utf8)) == "dGVzdDoxMjPCow==")
        #expect(Base64.decodeStrict(Substring("dGVzdDoxMjPCow==").utf8) == Array("test:123\u{A3}".utf8))
    }

    /// Strict base64 refuses what lenient decoders let through.
    @Test(arguments: ["QWxh ZGRp", "QWxhZGRpbg", "QWxhZGRpbg=", "QWxh*GRp", "QQ==QQ==", "QR==", "=AAA", "Q==="])
    func base64Rejects(text: String) {
        #expect(Base64.decodeStrict(Substring(text).utf8) == nil)
    }

    /// Seeded random bytes, 0 to 39 of them, encode as Foundation encodes them and decode strictly back to themselves.
    @Test func base64RoundTrips() {
        var random = SplitMix64(seed: 3)
        for length in 0..<40 {
            let bytes = random.bytes(length)
            #expect(Base64.decodeStrict(Substring(Base64.encode(bytes)).utf8) == bytes)
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
        }
    }

    /// Two byte strings, and whether they are equal.
    struct Comparison: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var lhs: [UInt8]
        var rhs: [UInt8]
        var equal: Bool
    }

    /// Constant-time comparison answers as `==` does: the same bytes, a byte of another case, one byte more,
    /// empty against one byte, both empty, and lengths that differ by a multiple of 256 (which must still differ).
    @Test(arguments: [
        Comparison(testDescription: "the same bytes", lhs: Array("secret".utf8), rhs: Array("secret".utf8), equal: true),
        Comparison(testDescription: "the last byte's case", lhs: Array("secret".utf8), rhs: Array("secreT".utf8), equal: false),
        Comparison(testDescription: "one byte more", lhs: Array("secret".utf8), rhs: Array("secret2".utf8), equal: false),
        Comparison(testDescription: "empty and one byte", lhs: Array("".utf8), rhs: Array("a".utf8), equal: false),
        Comparison(testDescription: "both empty", lhs: [UInt8](), rhs: [UInt8](), equal: true),
        Comparison(testDescription: "256 zero bytes and none", lhs: [UInt8](repeating: 0, count: 256), rhs: [UInt8](), equal: false),
    ])
    func constantTimeEquality(_ c: Comparison) {
        #expect(constantTimeEquals(c.lhs, c.rhs) == c.equal)
    }

    /// Two sources with the same seed give the same numbers and another seed gives others, so runs can be repeated.
    @Test func seededRandomIsRepeatable() {
        var a = RandomSource.seeded(9), b = RandomSource.seeded(9), c = RandomSource.seeded(10)
        let first = (0..<4).map { _ in a.next() }
        #expect(first == (0..<4).map { _ in b.next() })
        #expect(first != (0..<4).map { _ in c.next() })
    }
}

/// Header names and scheme tokens compare without regard to ASCII case, and only ASCII case.
struct FieldNameComparisonTests {
    @Test(arguments: [
        ("Authorization", "authorization", true), ("PROXY-AUTHORIZATION", "proxy-authorization", true), ("x-A1", "X-a1", true),
        ("", "", true), ("Authorization", "Authorisation", false), ("Authorization", "Authorization ", false),
        // '@' (0x40) and '`' (0x60) differ only in bit 5, as letters do, but are not letters.
        ("@", "`", false), ("[", "{", false), ("Ä", "ä", false), ("é", "É", false),
    ])
    func equalsIgnoringASCIICase(a: String, b: String, equal: Bool) {
        #expect(a.equalsIgnoringASCIICase(b) == equal)
        #expect(b.equalsIgnoringASCIICase(a) == equal)
    }

    @Test func lookupsFindEveryCaseAndKeepOrder() {
        let headers = [HeaderField("WWW-Authenticate", "Basic"), HeaderField("Host", "x"), HeaderField("www-authenticate", "Digest")]
        #expect(headers.values("www-AUTHENTICATE") == ["Basic", "Digest"])
        #expect(headers.first("HOST") == "x")
        #expect(headers.first("Hos") == nil)
        #expect(headers.values("Authorization").isEmpty)
    }
}
