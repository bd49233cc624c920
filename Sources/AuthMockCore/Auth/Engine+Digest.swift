#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Digest challenge that credentials answer, as the engine issued it.
struct AnsweredDigestChallenge {
    var index: Int
    var challenge: DigestChallenge
    var algorithm: DigestAlgorithm
}

extension Engine {
    /// Verifies `Authorization: Digest …` (RFC 7616, with RFC 2069 compatibility when no qop is offered).
    ///
    /// The steps run in an order that keeps the verdicts honest: syntax (400) first, then which challenge
    /// the client answers, then whose credentials they are, then the response itself, and only a correct
    /// response can be told its nonce is stale. A wrong password therefore never sees `stale=true`.
    mutating func verifyDigest(
        _ field: String, request: Request, now: Date, random: inout some RandomNumberGenerator,
        presented: inout PresentedCredentials
    ) -> AuthOutcome {
        do throws(AuthRefusal) {
            let credentials = try Self.parseDigest(field, target: request.target, presented: &presented)
            let answered = try matchDigestChallenge(credentials)
            let user = try findDigestUser(credentials, answered: answered, presented: &presented)
            try checkDigestResponse(credentials, answered: answered, user: user, request: request)
            let record = try useDigestNonce(credentials, now: now)
            guard let info = answered.challenge.authenticationInfo else {
                return .granted(user: user.name, verdict: .digestOK)
            }
            return grantWithInfo(
                info, credentials: credentials, answered: answered, user: user, usedNextnonce: record.nextnonce,
                request: request, now: now, random: &random
            )
        } catch {
            return error.outcome
        }
    }

    // MARK: - 1. Parse: in Engine+DigestParse.swift

    // MARK: - 2. Match the challenge

    /// Step 2: the challenge the credentials answer: this realm, an algorithm offered, a nonce this
    /// server issued for that algorithm's challenge, and that challenge's qop and opaque.
    func matchDigestChallenge(_ credentials: DigestCredentials) throws(AuthRefusal) -> AnsweredDigestChallenge {
        guard credentials.realm == scenario.realm else {
            guard credentials.realm.utf8.count > 200 || scenario.realm.utf8.count > 200 else {
                throw .challenge(
                    .digestWrongRealm,
                    "realm \"\(credentials.realm)\" is not this scenario's realm \"\(scenario.realm)\""
                )
            }
            // A hostile realm is tens of kilobytes: say how they differ, not what they are.
            let common = zip(credentials.realm.utf8, scenario.realm.utf8).prefix { $0 == $1 }.count
            throw .challenge(
                .digestWrongRealm,
                "the realm has \(credentials.realm.utf8.count) bytes, this scenario's has "
                    + "\(scenario.realm.utf8.count); they differ from byte \(common)"
            )
        }
        let offered: [(index: Int, challenge: DigestChallenge)] = scenario.challenges.enumerated().compactMap {
            if case .digest(let digest) = $0.element { return ($0.offset, digest) }
            return nil
        }
        guard let algorithm = DigestAlgorithm(token: credentials.algorithmToken),
            offered.contains(where: { $0.challenge.effectiveAlgorithm == algorithm })
        else {
            let list = offered.map(\.challenge.effectiveAlgorithm.token).joined(separator: ", ")
            throw .challenge(
                .digestAlgorithmNotOffered, "algorithm \(credentials.algorithmToken) was not offered (offered: \(list))"
            )
        }
        guard let issued = minter.decode(credentials.nonce) else {
            let length = credentials.nonce.utf8.count
            let cut = length < minter.size && minter.size > NoncePolicy.minimumSize
                ? "; it has \(length) characters, the server's have \(minter.size): cut?" : ""
            throw .challenge(.digestUnknownNonce, "the nonce was not issued by this server\(cut)")
        }
        guard let answered = offered.first(where: { $0.index == issued.challengeIndex }),
            answered.challenge.effectiveAlgorithm == algorithm
        else {
            let issuedFor = offered.first { $0.index == issued.challengeIndex }?.challenge.effectiveAlgorithm.token
                ?? "another challenge"
            throw .challenge(
                .digestNonceAlgorithmMismatch,
                "the nonce belongs to the \(issuedFor) challenge but the client used algorithm \(algorithm.token)"
            )
        }
        try Self.checkDigestQOP(credentials.qop, offered: answered.challenge.qop)
        if let expectedOpaque = opaques[answered.index], credentials.params["opaque"]?.value != expectedOpaque {
            let sent = credentials.params["opaque"].map { "\"\($0.value)\"" } ?? "none"
            throw .challenge(.digestOpaqueMismatch, "opaque \(sent) does not echo the challenge's opaque")
        }
        return AnsweredDigestChallenge(index: answered.index, challenge: answered.challenge, algorithm: algorithm)
    }

    /// A qop when the challenge offered some, one of those; none in RFC 2069 mode.
    private static func checkDigestQOP(_ qop: DigestQOP?, offered: [DigestQOP]) throws(AuthRefusal) {
        switch (qop, offered.isEmpty) {
        case (nil, false):
            throw .challenge(
                .digestQOPMissing,
                "qop was offered (\(offered.map(\.rawValue).joined(separator: ", "))) but the client sent none"
            )
        case (.some(let used), true):
            throw .challenge(
                .digestQOPNotOffered, "qop=\(used.rawValue) was sent but the challenge offered no qop (RFC 2069 mode)"
            )
        case (.some(let used), false) where !offered.contains(used):
            throw .challenge(.digestQOPNotOffered, "qop=\(used.rawValue) was not offered")
        default:
            return
        }
    }

    // MARK: - 3. Find the user

    /// Step 3: the scenario's user the credentials name, by name or by userhash (when offered).
    func findDigestUser(
        _ credentials: DigestCredentials, answered: AnsweredDigestChallenge, presented: inout PresentedCredentials
    ) throws(AuthRefusal) -> User {
        let claimed = credentials.claimedUser
        let user: User?
        if credentials.usesUserhash {
            guard answered.challenge.userhash else {
                throw .challenge(
                    .digestUserhashNotOffered, "userhash=true was sent but the challenge did not offer userhash"
                )
            }
            user = scenarioState.users.first {
                constantTimeEquals(
                    Array(answered.algorithm.userhash(username: $0.user.name, realm: credentials.realm).utf8),
                    Array(claimed.lowercased().utf8)
                )
            }.map(\.user)
            presented.user = user?.name ?? claimed
        } else {
            user = scenarioState.users.first { $0.user.name == claimed }?.user
        }
        if let user { return user }
        if credentials.usesUserhash,
            let (other, match) = Self.substitutedUserhash(
                claimed, realm: credentials.realm, users: scenarioState.users.map(\.user), announced: answered.algorithm
            )
        {
            presented.user = match.name
            throw .challenge(
                .digestAlgorithmSubstituted,
                "the userhash is \(match.name)'s computed with \(other.token), but the client announced "
                    + "algorithm=\(answered.algorithm.token)"
            )
        }
        throw .challenge(
            .digestUnknownUser,
            credentials.usesUserhash ? "the userhash matches no user" : "no user named '\(claimed)' in the scenario"
        )
    }

    /// The user and algorithm whose userhash matches, when it is not the announced algorithm.
    static func substitutedUserhash(
        _ hash: String, realm: String, users: [User], announced: DigestAlgorithm
    ) -> (DigestAlgorithm, User)? {
        for other in DigestAlgorithm.allCases where other != announced {
            if let user = users.first(where: { other.userhash(username: $0.name, realm: realm) == hash.lowercased() }) {
                return (other, user)
            }
        }
        return nil
    }

    // MARK: - 4. Check the response

    /// Step 4: the response is the one the user's current password gives. When it is not, says why as
    /// closely as it can: an old password, a removed user, a body left out, another algorithm's hash.
    func checkDigestResponse(
        _ credentials: DigestCredentials, answered: AnsweredDigestChallenge, user: User, request: Request
    ) throws(AuthRefusal) {
        var inputs = DigestInputs(
            algorithm: answered.algorithm, username: user.name, realm: credentials.realm, password: user.password,
            method: request.method, uri: credentials.uri, nonce: credentials.nonce, qop: credentials.qop,
            nc: credentials.nc, cnonce: credentials.cnonce, body: request.body
        )
        inputs.use(user)
        let removed = activeUser(named: user.name) == nil
        let response = credentials.response
        // The user's H(A1) base from the memo: the same value, hashed once per user and password. Only for
        // this comparison: the diagnosis below recomputes it under other algorithms.
        var current = inputs
        if current.storedHA1 == nil { current.storedHA1 = digestBaseMemo.base(of: inputs) }
        let matchesCurrent = !removed && constantTimeEquals(Array(current.response.utf8), Array(response.utf8))
        if matchesCurrent { return }
        // A password the user had before a change (or a removed user's last one)?
        let stale = matchesRetiredPassword(of: user.name) { before in
            var old = inputs
            old.use(before)
            return constantTimeEquals(Array(old.response.utf8), Array(response.utf8))
        }
        if stale {
            throw .challenge(
                .credentialStalePassword,
                removed
                    ? "'\(user.name)' was removed; these credentials were valid before"
                    : "\(user.name)'s old password, which was changed"
            )
        }
        if removed {
            throw .challenge(.digestUnknownUser, "no user named '\(user.name)' in the scenario")
        }
        try Self.diagnoseDigestComputation(inputs, response: response, bodyCount: request.body.count)
        throw .challenge(
            .digestBadResponse,
            "the response does not match \(user.name)'s password (wrong password or wrong computation)"
        )
    }

    /// Only on the failure path: a right password in a wrong computation. An auth-int response computed
    /// over an empty body (curl 7.88 hashes "" whatever it sends) or with the body left out of A2, or a
    /// response right under another algorithm's hash.
    private static func diagnoseDigestComputation(_ inputs: DigestInputs, response: String, bodyCount: Int)
        throws(AuthRefusal)
    {
        let algorithm = inputs.algorithm
        if inputs.qop == .authInt, bodyCount > 0 {
            let ha1 = inputs.ha1
            let a2s = ["\(inputs.method):\(inputs.uri):\(algorithm.hash([UInt8]()))", "\(inputs.method):\(inputs.uri)"]
            for a2 in a2s {
                let candidate = algorithm.hash(
                    "\(ha1):\(inputs.nonce):\(inputs.nc):\(inputs.cnonce):auth-int:\(algorithm.hash(a2))"
                )
                if constantTimeEquals(Array(candidate.utf8), Array(response.utf8)) {
                    throw .challenge(
                        .digestAuthIntWithoutBody,
                        "qop=auth-int was announced, but H(A2) does not cover the \(bodyCount)-byte body the client "
                            + "sent (RFC 7616 §3.4.3)"
                    )
                }
            }
        }
        for other in DigestAlgorithm.allCases where other != algorithm {
            var alternative = inputs
            alternative.algorithm = other
            if alternative.response == response {
                throw .challenge(
                    .digestAlgorithmSubstituted,
                    "the response was computed with \(other.token), but the client announced "
                        + "algorithm=\(algorithm.token)"
                )
            }
        }
    }

    // MARK: - 5. Check the nonce

    /// Step 5, for a correct response only: the nonce is still fresh (remembered, within its lifetime and
    /// uses, past the scenario's stale-first ones) and the nc moves forward. Counts the use.
    @discardableResult
    mutating func useDigestNonce(_ credentials: DigestCredentials, now: Date) throws(AuthRefusal) -> NonceStore.Record {
        guard var record = scenarioState.nonces[credentials.nonce] else {
            throw .challenge(.digestStaleNonce, "the nonce is no longer remembered (evicted or reset)", stale: true)
        }
        if let lifetime = scenario.nonce.lifetime, now.timeIntervalSince(record.issuedAt) > lifetime {
            let age = Int(now.timeIntervalSince(record.issuedAt))
            throw .challenge(
                .digestStaleNonce, "the nonce is \(age) s old; its lifetime is \(Self.seconds(lifetime))", stale: true
            )
        }
        if record.uses == 0, record.serial < scenario.nonce.staleFirst {
            throw .challenge(
                .digestStaleNonce,
                "nonce.stale-first: the scenario declares the first \(scenario.nonce.staleFirst) nonce(s) stale",
                stale: true
            )
        }
        if let maxUses = scenario.nonce.maxUses, record.uses >= maxUses {
            throw .challenge(
                .digestStaleNonce, "the nonce was already used \(record.uses) time(s); it allows \(maxUses)",
                stale: true
            )
        }
        if credentials.qop != nil, scenario.nonce.strictNC {
            let nc = UInt32(credentials.nc, radix: 16)!
            switch record.ncSeen.admit(nc) {
            case .admitted:
                break
            case .seen:
                throw .challenge(.digestNCReplay, "nc \(credentials.nc) was already used with this nonce (a replay)")
            case .tooOld(let highest):
                throw .challenge(
                    .digestNCReplay,
                    "nc \(credentials.nc) is more than \(NCWindow.width) below the highest nc seen for this nonce "
                        + "(\(TextFormat.hex(highest, width: 8))): a replay cannot be ruled out"
                )
            }
        }
        record.uses += 1
        scenarioState.nonces[credentials.nonce] = record
        return record
    }

    // MARK: - Helpers

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

extension DigestChallenge: SchemeOptions {
    static let keys = ["scheme", "algorithm", "qop", "opaque", "userhash", "charset", "authentication-info"]

    static func read(_ fields: Fields, scheme: AuthScheme, reader: ScenarioReader) -> Challenge {
        .digest(reader.digestChallenge(fields))
    }

    func summary(_ scheme: AuthScheme) -> String {
        var words = [scheme.token, effectiveAlgorithm.token]
        words.append(qop.isEmpty ? "no qop" : "qop=" + qop.map(\.rawValue).joined(separator: ","))
        if userhash { words.append("userhash") }
        if let info = authenticationInfo { words.append(info.summary) }
        return words.joined(separator: " ")
    }

    /// None: every Digest challenge carries a fresh nonce.
    func fixedChallenge(_ scheme: AuthScheme, realm: String) -> String? { nil }

    /// Digest's answer names its challenge (realm, algorithm, nonce): all the scenario's are consulted.
    func verify(
        _ attempt: Engine.Attempt, engine: inout Engine, random: inout some RandomNumberGenerator,
        presented: inout PresentedCredentials
    ) -> Engine.AuthOutcome {
        engine.verifyDigest(
            attempt.field, request: attempt.request, now: attempt.now, random: &random, presented: &presented
        )
    }
}
