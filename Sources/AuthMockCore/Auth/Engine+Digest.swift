import Foundation

extension Engine {
    /// Parameters RFC 7616 §3.4 sends as quoted-strings; a token there is a client bug worth a 400.
    private static let quotedDigestParameters: Set<String> = ["username", "realm", "nonce", "uri", "response", "cnonce", "opaque"]

    /// Verifies `Authorization: Digest …` (RFC 7616, with RFC 2069 compatibility when no qop is offered).
    ///
    /// The checks run in an order that keeps the verdicts honest: syntax (400) first, then which challenge
    /// the client answers, then the response itself, and only a correct response can be told its nonce is
    /// stale. A wrong password therefore never sees `stale=true`.
    mutating func verifyDigest(
        _ credentials: AuthHeaderValue, request: Request, now: Date, presented: inout PresentedCredentials
    ) -> AuthOutcome {
        guard credentials.token68 == nil else {
            return .badRequest(.digestMalformed, "Digest credentials must be a parameter list, not a single token")
        }
        var params: [String: AuthParameter] = [:]
        for parameter in credentials.parameters {
            let name = parameter.name.lowercased()
            guard params[name] == nil else {
                return .badRequest(.digestMalformed, "parameter '\(name)' appears more than once")
            }
            params[name] = parameter
        }
        presented.params = params.mapValues(\.value)

        for name in ["realm", "nonce", "uri", "response"] where params[name] == nil {
            return .badRequest(.digestMalformed, "missing parameter '\(name)'")
        }
        for (name, parameter) in params where Self.quotedDigestParameters.contains(name) && !parameter.quoted {
            return .badRequest(.digestMalformed, "parameter '\(name)' must be a quoted-string (RFC 7616 §3.4)")
        }
        let claimedUser: String
        switch (params["username"], params["username*"]) {
        case (.some(let plain), .none):
            claimedUser = plain.value
        case (.none, .some(let extended)):
            guard params["userhash"]?.value.lowercased() != "true" else {
                return .badRequest(.digestMalformed, "username* cannot be combined with userhash=true (RFC 7616 §3.4.4)")
            }
            guard !extended.quoted, let decoded = Self.decodeExtendedValue(extended.value) else {
                return .badRequest(.digestMalformed, "username* is not an RFC 8187 ext-value (UTF-8''percent-encoded)")
            }
            claimedUser = decoded
        case (.some, .some):
            return .badRequest(.digestMalformed, "both username and username* were sent; RFC 7616 §3.4.4 allows one")
        case (.none, .none):
            return .badRequest(.digestMalformed, "missing parameter 'username'")
        }
        presented.user = claimedUser

        let realm = params["realm"]!.value
        let nonce = params["nonce"]!.value
        let uri = params["uri"]!.value
        let response = params["response"]!.value.lowercased()
        let qopToken = params["qop"]?.value
        var qop: DigestQOP?
        if let qopToken {
            guard let parsed = DigestQOP(rawValue: qopToken.lowercased()) else {
                return .badRequest(.digestMalformed, "qop '\(qopToken)' is neither auth nor auth-int")
            }
            qop = parsed
            guard params["cnonce"] != nil else { return .badRequest(.digestMalformed, "qop is present but cnonce is missing") }
            guard let nc = params["nc"]?.value else { return .badRequest(.digestMalformed, "qop is present but nc is missing") }
            guard nc.utf8.count == 8, nc.utf8.allSatisfy(\.isHexDigit) else {
                return .badRequest(.digestMalformed, "nc '\(nc)' is not 8 hexadecimal digits")
            }
        }

        guard Self.sameResource(uri, request.target) else {
            return .badRequest(
                .digestURIMismatch, "uri \"\(uri)\" differs from the request target \"\(request.target)\" (RFC 7616 §3.4.6)"
            )
        }
        guard realm == scenario.realm else {
            return .challenge(.digestWrongRealm, "realm \"\(realm)\" is not this scenario's realm \"\(scenario.realm)\"")
        }

        let offered: [(index: Int, challenge: DigestChallenge)] = scenario.challenges.enumerated().compactMap {
            if case .digest(let digest) = $0.element { return ($0.offset, digest) }
            return nil
        }
        let algorithmToken = params["algorithm"]?.value ?? "MD5"
        guard let algorithm = DigestAlgorithm(token: algorithmToken),
            offered.contains(where: { $0.challenge.effectiveAlgorithm == algorithm })
        else {
            let list = offered.map(\.challenge.effectiveAlgorithm.token).joined(separator: ", ")
            return .challenge(.digestAlgorithmNotOffered, "algorithm \(algorithmToken) was not offered (offered: \(list))")
        }

        guard let issued = minter.decode(nonce) else {
            return .challenge(.digestUnknownNonce, "the nonce was not issued by this server")
        }
        guard let answered = offered.first(where: { $0.index == issued.challengeIndex }),
            answered.challenge.effectiveAlgorithm == algorithm
        else {
            let issuedFor = offered.first { $0.index == issued.challengeIndex }?.challenge.effectiveAlgorithm.token ?? "another challenge"
            return .challenge(
                .digestNonceAlgorithmMismatch,
                "the nonce belongs to the \(issuedFor) challenge but the client used algorithm \(algorithm.token)"
            )
        }
        let challenge = answered.challenge

        switch (qop, challenge.qop.isEmpty) {
        case (nil, false):
            return .challenge(.digestQOPMissing, "qop was offered (\(challenge.qop.map(\.rawValue).joined(separator: ", "))) but the client sent none")
        case (.some(let used), true):
            return .challenge(.digestQOPNotOffered, "qop=\(used.rawValue) was sent but the challenge offered no qop (RFC 2069 mode)")
        case (.some(let used), false) where !challenge.qop.contains(used):
            return .challenge(.digestQOPNotOffered, "qop=\(used.rawValue) was not offered")
        default:
            break
        }

        if let expectedOpaque = opaques[answered.index], params["opaque"]?.value != expectedOpaque {
            let sent = params["opaque"].map { "\"\($0.value)\"" } ?? "none"
            return .challenge(.digestOpaqueMismatch, "opaque \(sent) does not echo the challenge's opaque")
        }

        let usesUserhash = params["userhash"]?.value.lowercased() == "true"
        let user: User?
        if usesUserhash {
            guard challenge.userhash else {
                return .challenge(.digestUserhashNotOffered, "userhash=true was sent but the challenge did not offer userhash")
            }
            user = scenarioState.users.first {
                constantTimeEquals(Array(algorithm.userhash(username: $0.user.name, realm: realm).utf8), Array(claimedUser.lowercased().utf8))
            }.map(\.user)
            presented.user = user?.name ?? claimedUser
        } else {
            user = scenarioState.users.first { $0.user.name == claimedUser }?.user
        }
        guard let user else {
            if usesUserhash, let (other, match) = Self.substitutedUserhash(claimedUser, realm: realm, users: scenarioState.users.map(\.user), announced: algorithm) {
                presented.user = match.name
                return .challenge(
                    .digestAlgorithmSubstituted,
                    "the userhash is \(match.name)'s computed with \(other.token), but the client announced algorithm=\(algorithm.token)"
                )
            }
            return .challenge(.digestUnknownUser, usesUserhash ? "the userhash matches no user" : "no user named '\(claimedUser)' in the scenario")
        }

        var inputs = DigestInputs(
            algorithm: algorithm, username: user.name, realm: realm, password: user.password, method: request.method, uri: uri,
            nonce: nonce, qop: qop, nc: params["nc"]?.value ?? "", cnonce: params["cnonce"]?.value ?? "", body: request.body
        )
        inputs.use(user)
        let removed = activeUser(named: user.name) == nil
        let matchesCurrent = !removed && constantTimeEquals(Array(inputs.response.utf8), Array(response.utf8))
        guard matchesCurrent else {
            // A password the user had before a change (or a removed user's last one)?
            let stale = matchesRetiredPassword(of: user.name) { before in
                var old = inputs
                old.use(before)
                return constantTimeEquals(Array(old.response.utf8), Array(response.utf8))
            }
            if stale {
                return .challenge(.credentialStalePassword, removed ? "'\(user.name)' was removed; these credentials were valid before" : "\(user.name)'s old password, which was changed")
            }
            if removed {
                return .challenge(.digestUnknownUser, "no user named '\(user.name)' in the scenario")
            }
            // Only on this failure path: an auth-int response computed over an empty body (curl 7.88 hashes
            // "" whatever it sends) or with the body left out of A2?
            if qop == .authInt, !request.body.isEmpty {
                let ha1 = inputs.ha1
                let a2s = ["\(inputs.method):\(inputs.uri):\(algorithm.hash([UInt8]()))", "\(inputs.method):\(inputs.uri)"]
                for a2 in a2s {
                    let candidate = algorithm.hash("\(ha1):\(nonce):\(inputs.nc):\(inputs.cnonce):auth-int:\(algorithm.hash(a2))")
                    if constantTimeEquals(Array(candidate.utf8), Array(response.utf8)) {
                        return .challenge(
                            .digestAuthIntWithoutBody,
                            "qop=auth-int was announced, but H(A2) does not cover the \(request.body.count)-byte body the client sent (RFC 7616 §3.4.3)"
                        )
                    }
                }
            }
            // Only on this failure path: was the response right under another algorithm's hash?
            for other in DigestAlgorithm.allCases where other != algorithm {
                var alternative = inputs
                alternative.algorithm = other
                if alternative.response == response {
                    return .challenge(
                        .digestAlgorithmSubstituted,
                        "the response was computed with \(other.token), but the client announced algorithm=\(algorithm.token)"
                    )
                }
            }
            return .challenge(.digestBadResponse, "the response does not match \(user.name)'s password (wrong password or wrong computation)")
        }

        // The response is right: only now may the nonce be called stale.
        guard var record = scenarioState.nonces[nonce] else {
            return .challenge(.digestStaleNonce, "the nonce is no longer remembered (evicted or reset)", stale: true)
        }
        if let lifetime = scenario.nonce.lifetime, now.timeIntervalSince(record.issuedAt) > lifetime {
            let age = Int(now.timeIntervalSince(record.issuedAt))
            return .challenge(.digestStaleNonce, "the nonce is \(age) s old; its lifetime is \(Self.seconds(lifetime))", stale: true)
        }
        if record.uses == 0, record.serial < scenario.nonce.staleFirst {
            return .challenge(.digestStaleNonce, "nonce.stale-first: the scenario declares the first \(scenario.nonce.staleFirst) nonce(s) stale", stale: true)
        }
        if let maxUses = scenario.nonce.maxUses, record.uses >= maxUses {
            return .challenge(.digestStaleNonce, "the nonce was already used \(record.uses) time(s); it allows \(maxUses)", stale: true)
        }
        if qop != nil, scenario.nonce.strictNC {
            let nc = UInt32(params["nc"]!.value, radix: 16)!
            guard nc > record.lastNC else {
                return .challenge(.digestNCReplay, "nc \(params["nc"]!.value) does not exceed the last nc seen for this nonce (\(String(format: "%08x", record.lastNC)))")
            }
            record.lastNC = nc
        }
        record.uses += 1
        scenarioState.nonces[nonce] = record
        return .granted(user: user.name, verdict: .digestOK)
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

    /// Whether a Digest `uri` names the request target. Through a proxy the request-target is
    /// absolute-form (`http://host/path`) while clients may put either form in `uri` (RFC 2617 §3.2.2
    /// notes proxies may change the Request-Line), so absolute- and origin-form of the same resource match;
    /// anything else, such as a missing query, does not.
    static func sameResource(_ uri: String, _ target: String) -> Bool {
        if uri == target { return true }
        func originForm(_ text: String) -> String? {
            let lower = text.lowercased()
            guard let scheme = ["http://", "https://"].first(where: { lower.hasPrefix($0) }) else { return nil }
            let rest = text.dropFirst(scheme.count)
            let path = rest.drop { $0 != "/" && $0 != "?" }
            return path.isEmpty ? "/" : path.hasPrefix("?") ? "/" + path : String(path)
        }
        switch (originForm(uri), originForm(target)) {
        case (nil, .some(let targetPath)): return uri == targetPath
        case (.some(let uriPath), nil): return uriPath == target
        default: return false
        }
    }

    /// Decodes an RFC 8187 ext-value in UTF-8 (`UTF-8''J%C3%A4s%C3%B8n`); the language tag is ignored.
    static func decodeExtendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].lowercased() == "utf-8" else { return nil }
        var bytes: [UInt8] = []
        var iterator = Array(parts[2].utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next(), let low = iterator.next(), high.isHexDigit, low.isHexDigit,
                    let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16)
                else { return nil }
                bytes.append(value)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}

extension UInt8 {
    var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}
