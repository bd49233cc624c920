#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Engine {
    /// The opaque value of each Digest challenge that has one, by challenge index: fixed, or drawn once.
    static func opaques(of scenario: Scenario, random: inout some RandomNumberGenerator) -> [Int: String] {
        var opaques: [Int: String] = [:]
        for (index, challenge) in scenario.challenges.enumerated() {
            guard case .digest(let digest) = challenge else { continue }
            switch digest.opaque {
            case .none: break
            case .fixed(let value): opaques[index] = value
            case .generated: opaques[index] = Base64.encode(random.bytes(24), urlSafe: true)
            }
        }
        return opaques
    }

    /// What the scenario's raw challenges send, for the journal's `hostile`; nil when it has none.
    static func hostileChallenges(of scenario: Scenario) -> String? {
        let raw = scenario.challenges.compactMap {
            if case .raw(let raw) = $0 { "raw challenge, " + raw.summary } else { nil }
        }
        return raw.isEmpty ? nil : raw.joined(separator: "; ")
    }

    /// Every challenge that never changes, rendered; nil for Digest's, which carry a fresh nonce.
    static func fixedChallenges(of scenario: Scenario) -> [String?] {
        scenario.challenges.map { challenge -> String? in
            switch challenge {
            case .basic, .digest, .ntlm, .negotiate, .bearer:
                return challenge.options!.fixedChallenge(challenge.authScheme!, realm: scenario.realm)
            case .custom(let raw): return raw
            case .raw(let raw): return raw.value
            }
        }
    }

    var basicChallenge: BasicChallenge? {
        for case .basic(let basic) in scenario.challenges { return basic }
        return nil
    }

    /// The first challenge of each scheme holds the options its credentials are verified with.
    static func schemeOptions(of scenario: Scenario) -> [AuthScheme: any SchemeOptions] {
        var options: [AuthScheme: any SchemeOptions] = [:]
        for challenge in scenario.challenges {
            guard let scheme = challenge.authScheme, options[scheme] == nil else { continue }
            options[scheme] = challenge.options
        }
        return options
    }

    /// The challenge's status: the hop's, unless the scenario plays a broken proxy that answers 401.
    var challengeStatus: Int { scenario.unauthorized.status ?? hop.challengeStatus }
    var challengeHeader: String { challengeStatus == 401 ? "WWW-Authenticate" : hop.challengeHeader }

    /// A 401 with a fresh set of the challenges the resource offers (fresh nonces for every Digest challenge).
    /// `bearerError` goes in the Bearer challenge (RFC 6750 §3: `error="invalid_token"`).
    mutating func challenge(
        _ verdict: Verdict, _ detail: String, stale: Bool, for resource: Resource, now: Date,
        random: inout some RandomNumberGenerator, bearerError: BearerError? = nil
    ) -> Decision {
        var headers = [HeaderField("Content-Type", scenario.unauthorized.contentType)]
        if scenario.unauthorized.sendChallenge {
            let values = renderChallenges(
                for: resource, stale: stale, now: now, random: &random, bearerError: bearerError
            )
            switch scenario.challengeStyle {
            case .separateFields: headers += values.map { HeaderField(challengeHeader, $0) }
            case .singleField: headers.append(HeaderField(challengeHeader, values.joined(separator: ", ")))
            }
        }
        var response = Response(status: challengeStatus, headers: headers, body: Array(scenario.unauthorized.body.utf8))
        response.closeConnection = scenario.unauthorized.close
        response.chunked = scenario.unauthorized.chunked
        // Raw challenges are on every 401 but those of a resource that names its schemes.
        if scenario.unauthorized.sendChallenge, resource.schemes == nil { response.hostile = hostileChallenges }
        return Decision(response: response, verdict: verdict, detail: detail)
    }

    /// One value per header field: a raw challenge's value as many times as it asks for fields.
    mutating func renderChallenges(
        for resource: Resource, stale: Bool, now: Date, random: inout some RandomNumberGenerator,
        bearerError: BearerError? = nil
    ) -> [String] {
        scenario.challenges.enumerated().flatMap { index, challenge -> [String] in
            guard resource.offers(challenge) else { return [] }
            if case .bearer(let bearer) = challenge, bearerError != nil || fixedChallenges[index] == nil {
                return [renderBearerChallenge(bearer, error: bearerError)]
            }
            if let fixed = fixedChallenges[index] {
                if case .raw(let raw) = challenge { return Array(repeating: fixed, count: raw.fields) }
                return [fixed]
            }
            return [renderDynamicChallenge(challenge, index: index, stale: stale, now: now, random: &random)]
        }
    }

    private mutating func renderDynamicChallenge(
        _ challenge: Challenge, index: Int, stale: Bool, now: Date, random: inout some RandomNumberGenerator
    ) -> String {
        switch challenge {
        case .digest(let digest):
            return renderDigestChallenge(digest, index: index, stale: stale, now: now, random: &random)
        case .basic, .ntlm, .negotiate, .bearer, .custom, .raw:
            preconditionFailure("rendered once, in init, or by renderChallenges")
        }
    }

    /// A Digest challenge with a nonce minted now, and remembered.
    private mutating func renderDigestChallenge(
        _ digest: DigestChallenge, index: Int, stale: Bool, now: Date, random: inout some RandomNumberGenerator
    ) -> String {
        let nonce = minter.mint(at: now, challengeIndex: index, random: &random)
        scenarioState.nonces.insert(
            nonce, NonceStore.Record(challengeIndex: index, issuedAt: now, serial: scenarioState.noncesIssued)
        )
        scenarioState.noncesIssued += 1
        var parameters = [AuthParameter(name: "realm", value: scenario.realm, quoted: true)]
        if !digest.qop.isEmpty {
            parameters.append(
                AuthParameter(name: "qop", value: digest.qop.map(\.rawValue).joined(separator: ", "), quoted: true)
            )
        }
        if let algorithm = digest.algorithm {
            parameters.append(AuthParameter(name: "algorithm", value: algorithm.token, quoted: false))
        }
        parameters.append(AuthParameter(name: "nonce", value: nonce, quoted: true))
        if let opaque = opaques[index] { parameters.append(AuthParameter(name: "opaque", value: opaque, quoted: true)) }
        if digest.charsetUTF8 { parameters.append(AuthParameter(name: "charset", value: "UTF-8", quoted: false)) }
        if digest.userhash { parameters.append(AuthParameter(name: "userhash", value: "true", quoted: false)) }
        if stale { parameters.append(AuthParameter(name: "stale", value: "true", quoted: false)) }
        return AuthHeaderValue(scheme: AuthScheme.digest.token, parameters: parameters).rendered
    }
}
