#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// JWT access tokens (`oauth.access-token.format: jwt`): RFC 9068's profile (`typ: at+jwt`), signed with
/// EdDSA over Ed25519 (RFC 8037), and the JWK Set that holds the key (RFC 7517), at `/.well-known/jwks.json`.
///
/// The server never reads a JWT's claims back: every token it issued is in the ``TokenStore`` by digest, with
/// its expiry, uses and family, so a JWT is checked exactly as an opaque token is, and one it did not issue
/// (a claim changed, a signature forged) is unknown. The claims are for clients that read `exp` to refresh
/// ahead of time, and for tests that decode them.
extension Engine {
    static let jwksPath = "/.well-known/jwks.json"

    /// A signed access token for `subject`, issued now.
    func jwt(
        signer: Ed25519Key, subject: String, client: String, scope: [String]?, oauth: OAuthSettings, now: Date,
        random: inout some RandomNumberGenerator
    ) -> String {
        let issuedAt = now.timeIntervalSince1970.rounded(.down)
        var claims: [String: JSONValue] = [
            "iss": .string(baseURL), "aud": .string(baseURL), "sub": .string(subject), "client_id": .string(client),
            "iat": .number(issuedAt), "jti": .string(Base64.encode(random.bytes(16), urlSafe: true)),
        ]
        if let lifetime = oauth.accessToken.lifetime { claims["exp"] = .number((issuedAt + lifetime).rounded(.up)) }
        if let scope { claims["scope"] = .string(scope.joined(separator: " ")) }
        let header: [String: JSONValue] = [
            "alg": .string("EdDSA"), "typ": .string("at+jwt"), "kid": .string(Self.kid(signer)),
        ]
        let input = Self.base64URL(JSONValue.object(header).json) + "." + Self.base64URL(JSONValue.object(claims).json)
        return input + "." + Base64.encode(signer.sign(Array(input.utf8)), urlSafe: true)
    }

    /// The JWK Set of the signing key (RFC 8037 §2: an `OKP` key on `Ed25519`).
    func jwks(_ signer: Ed25519Key) -> [String: JSONValue] {
        let key: [String: JSONValue] = [
            "kty": .string("OKP"), "crv": .string("Ed25519"),
            "x": .string(Base64.encode(signer.publicKey, urlSafe: true)),
            "kid": .string(Self.kid(signer)), "alg": .string("EdDSA"), "use": .string("sig"),
        ]
        return ["keys": .array([.object(key)])]
    }

    /// The key's id: the first 8 bytes of the SHA-256 of its public key, base64url.
    static func kid(_ signer: Ed25519Key) -> String {
        Base64.encode(HashFunction.sha256.hash(signer.publicKey).prefix(8), urlSafe: true)
    }

    static func base64URL(_ text: String) -> String { Base64.encode(Array(text.utf8), urlSafe: true) }
}
