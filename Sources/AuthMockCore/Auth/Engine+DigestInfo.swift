#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What a Digest challenge's successful answers add in `Authentication-Info` (`Proxy-Authentication-Info`
/// on the proxy hop), RFC 7616 §3.5: a `nextnonce` for the client's next request, and the `rspauth` that
/// proves the server knows the password too (mutual authentication).
///
/// ```yaml
/// authentication-info:
///   nextnonce: true     # issue a fresh nonce the client should use next (default false)
///   rspauth: forged     # right (default) | forged (well-formed, wrong) | none
/// ```
public struct DigestAuthenticationInfo: Sendable, Equatable {
    public enum ResponseAuth: String, Sendable, Equatable, CaseIterable {
        /// `rspauth` as RFC 7616 §3.5 computes it: a client that verifies it goes on.
        case right
        /// A well-formed `rspauth` that is not the right one: a client that verifies it must not trust the answer.
        case forged
        /// No `rspauth` (nor `qop`, `cnonce`, `nc`), only the `nextnonce`.
        case none
    }

    static let keys = ["nextnonce", "rspauth"]

    public var nextnonce: Bool
    public var rspauth: ResponseAuth

    public init(nextnonce: Bool = false, rspauth: ResponseAuth = .right) {
        self.nextnonce = nextnonce
        self.rspauth = rspauth
    }

    /// `Authentication-Info: nextnonce, rspauth forged`, for a challenge's summary.
    var summary: String {
        var parts: [String] = []
        if nextnonce { parts.append("nextnonce") }
        if rspauth != .none { parts.append("rspauth \(rspauth.rawValue)") }
        return "Authentication-Info: " + parts.joined(separator: ", ")
    }
}

extension DigestInputs {
    /// `rspauth` of RFC 7616 §3.5: the response computed with an empty method (A2 = `":" request-uri`, or
    /// with `":" H(entity-body)` of the response body for auth-int). nil without qop, which has none.
    public func rspauth(responseBody: [UInt8]) -> String? {
        guard qop != nil else { return nil }
        var server = self
        server.method = ""
        server.body = responseBody
        return server.response
    }
}

extension Engine {
    /// Grants a correct Digest answer and adds its `Authentication-Info`: a nextnonce issued into the nonce
    /// store (so the client can use it), and the rspauth the challenge asks for, right or forged.
    mutating func grantWithInfo(
        _ info: DigestAuthenticationInfo, credentials: DigestCredentials, answered: AnsweredDigestChallenge,
        user: User, usedNextnonce: Bool, request: Request, now: Date, random: inout some RandomNumberGenerator
    ) -> AuthOutcome {
        var parameters: [AuthParameter] = []
        var sent: [String] = []
        if info.nextnonce {
            let nonce = minter.mint(at: now, challengeIndex: answered.index, random: &random)
            var record = NonceStore.Record(
                challengeIndex: answered.index, issuedAt: now, serial: scenarioState.noncesIssued
            )
            record.nextnonce = true
            scenarioState.nonces.insert(nonce, record)
            scenarioState.noncesIssued += 1
            parameters.append(AuthParameter(name: "nextnonce", value: nonce, quoted: true))
            sent.append("a nextnonce")
        }
        if info.rspauth != .none, let qop = credentials.qop,
            let right = rightRspauth(credentials, answered: answered, user: user, request: request)
        {
            let value = info.rspauth == .right ? right : Self.forgedRspauth(credentials, algorithm: answered.algorithm)
            parameters += [
                AuthParameter(name: "qop", value: qop.rawValue, quoted: false),
                AuthParameter(name: "rspauth", value: value, quoted: true),
                AuthParameter(name: "cnonce", value: credentials.cnonce, quoted: true),
                AuthParameter(name: "nc", value: credentials.nc, quoted: false),
            ]
            sent.append("a \(info.rspauth.rawValue) rspauth")
        }
        var detail = usedNextnonce
            ? "authenticated as \(user.name) with the nextnonce of an earlier \(hop.authenticationInfoHeader)"
            : "authenticated as \(user.name)"
        var headers: [HeaderField] = []
        if !parameters.isEmpty {
            let value = parameters.map { "\($0.name)=\($0.quoted ? AuthHeader.quote($0.value) : $0.value)" }
                .joined(separator: ", ")
            headers.append(HeaderField(hop.authenticationInfoHeader, value))
            detail += "; sent \(hop.authenticationInfoHeader) with " + sent.joined(separator: " and ")
        }
        return .granted(
            user: user.name, verdict: usedNextnonce ? .digestNextnonceUsed : .digestOK, detail: detail,
            headers: headers
        )
    }

    /// The rspauth for the answer the client is about to get: the resource's body counts for auth-int.
    private func rightRspauth(
        _ credentials: DigestCredentials, answered: AnsweredDigestChallenge, user: User, request: Request
    ) -> String? {
        var inputs = DigestInputs(
            algorithm: answered.algorithm, username: user.name, realm: credentials.realm, password: user.password,
            method: request.method, uri: credentials.uri, nonce: credentials.nonce, qop: credentials.qop,
            nc: credentials.nc, cnonce: credentials.cnonce
        )
        inputs.use(user)
        let body = scenario.resource(forPath: request.resourcePath).map { Self.render($0.body, user: user.name) } ?? []
        return inputs.rspauth(responseBody: body)
    }

    /// A well-formed rspauth (the algorithm's hex length) that no password gives: what a server that does
    /// not know the password, or a man in the middle, could send.
    static func forgedRspauth(_ credentials: DigestCredentials, algorithm: DigestAlgorithm) -> String {
        algorithm.hash("forged:\(credentials.nonce):\(credentials.nc):\(credentials.cnonce)")
    }
}
