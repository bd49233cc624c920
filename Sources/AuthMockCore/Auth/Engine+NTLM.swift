#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Engine {
    /// Handles `Authorization: NTLM …` or `Authorization: Negotiate …` (SPNEGO around NTLM).
    ///
    /// The handshake is bound to the TCP connection, as real servers do: the CHALLENGE is remembered for
    /// the connection that sent the NEGOTIATE (in ``ConnectionStates``), an AUTHENTICATE on another
    /// connection fails (`ntlm.connection-changed`), and ``connectionClosed(_:)`` forgets everything about
    /// a connection.
    mutating func verifyNTLM(
        token text: Substring, negotiate: Bool, options: NTLMChallenge, request: Request, now: Date,
        random: inout some RandomNumberGenerator, presented: inout PresentedCredentials
    ) -> AuthOutcome {
        let scheme = (negotiate ? AuthScheme.negotiate : .ntlm).token
        guard let token = Base64.decodeStrict(text.trimmingOWS().utf8), !token.isEmpty else {
            return .badRequest(.ntlmMalformed, "the \(scheme) token is not valid base64")
        }
        do throws(AuthRefusal) {
            // A raw NTLMSSP token inside Negotiate is accepted too (some clients send that).
            let ntlmToken = negotiate && Array(token.prefix(8)) != NTLMMessage.signature
                ? try Self.unwrapSPNEGO(token, presented: &presented)
                : token
            switch try parseNTLM(ntlmToken, on: request.connection.id) {
            case .negotiate(let flags):
                return answerNegotiate(
                    flags: flags, negotiate: negotiate, options: options, connection: request.connection.id, now: now,
                    random: &random, presented: &presented
                )
            case .authenticate(let auth):
                return try verifyAuthenticate(
                    auth, negotiate: negotiate, options: options, connection: request.connection.id,
                    presented: &presented
                )
            }
        } catch {
            return error.outcome
        }
    }

    /// The NTLM token inside a SPNEGO one; refuses Kerberos, which this server lacks.
    private static func unwrapSPNEGO(_ token: [UInt8], presented: inout PresentedCredentials) throws(AuthRefusal)
        -> [UInt8]
    {
        let parsed: SPNEGO.Token
        do throws(NTLMSyntaxError) {
            parsed = try SPNEGO.parse(token)
        } catch {
            throw .badRequest(.ntlmMalformed, "the Negotiate token is not SPNEGO: \(error.reason)")
        }
        switch parsed {
        case .initial(let mechTypes, let mechToken):
            presented.params = ["mechanisms": mechTypes.map(Self.describeOID).joined(separator: ",")]
            guard mechTypes.contains(SPNEGO.ntlmOID) else {
                // A server without Kerberos rejects a client that offers nothing else.
                let reject = negotiateHeader(SPNEGO.response(.reject, supportedMech: nil, token: nil))
                throw AuthRefusal(
                    outcome: .continueHandshake(
                        .negotiateKerberosUnsupported, "the client offered only Kerberos, which this server lacks",
                        header: reject
                    )
                )
            }
            guard mechTypes.first == SPNEGO.ntlmOID, let mechToken else {
                // The optimistic token is for another mechanism: ask for NTLM instead.
                let ask = negotiateHeader(SPNEGO.response(.acceptIncomplete, supportedMech: SPNEGO.ntlmOID, token: nil))
                throw AuthRefusal(
                    outcome: .continueHandshake(
                        .negotiateKerberosUnsupported, "the client preferred Kerberos; NTLM was requested instead",
                        header: ask
                    )
                )
            }
            return mechToken
        case .response(let responseToken):
            guard let responseToken else { throw .badRequest(.ntlmMalformed, "the NegTokenResp carries no token") }
            return responseToken
        }
    }

    /// The NTLM message, its strings read in the encoding the connection's CHALLENGE settled on.
    private func parseNTLM(_ token: [UInt8], on connection: UInt64) throws(AuthRefusal) -> NTLMMessage {
        do throws(NTLMSyntaxError) {
            var negotiated: Bool?
            if case .challenged(_, _, let unicode)? = connections[ntlm: connection] { negotiated = unicode }
            return try NTLMMessage.parse(token, unicode: negotiated)
        } catch {
            throw .badRequest(.ntlmMalformed, "bad NTLM message: \(error.reason)")
        }
    }

    /// A NEGOTIATE: answers with a CHALLENGE, remembered for this connection.
    private mutating func answerNegotiate(
        flags: UInt32, negotiate: Bool, options: NTLMChallenge, connection: UInt64, now: Date,
        random: inout some RandomNumberGenerator, presented: inout PresentedCredentials
    ) -> AuthOutcome {
        presented.params = (presented.params ?? [:])
            .merging(["message": "NEGOTIATE", "flags": TextFormat.hex(flags, width: 8)]) { $1 }
        let serverChallenge = options.serverChallenge ?? random.bytes(8)
        let challenge = NTLMMessage.challenge(
            serverChallenge: serverChallenge, clientFlags: flags, domain: options.domain, server: options.server,
            targetInfo: options.targetInfo, timestamp: NTLMMessage.fileTime(unixSeconds: now.timeIntervalSince1970),
            corruption: options.corruption
        )
        connections.remember(
            connection,
            .challenged(
                serverChallenge: serverChallenge, negotiate: negotiate,
                unicode: NTLMMessage.negotiatesUnicode(clientFlags: flags)
            )
        )
        connections.issued(IssuedNTLMChallenge(connection: connection, serverChallenge: serverChallenge))
        let header = negotiate
            ? Self.negotiateHeader(SPNEGO.response(.acceptIncomplete, supportedMech: SPNEGO.ntlmOID, token: challenge))
            : "NTLM " + Base64.encode(challenge)
        return .continueHandshake(
            .ntlmNegotiate, "NEGOTIATE received; CHALLENGE sent on connection \(connection)", header: header,
            hostile: options.corruption.map { Self.describe($0, in: challenge) }
        )
    }

    /// A corrupted CHALLENGE for the journal: `NTLM CHALLENGE target-info-past-end: TargetInfoFields length 4232
    /// at offset 64, in a 200-byte message`.
    static func describe(_ corruption: NTLMCorruption, in message: [UInt8]) -> String {
        let length = Int(message[40]) | Int(message[41]) << 8
        let offset = (0..<4).reduce(0) { $0 | Int(message[44 + $1]) << (8 * $1) }
        return "NTLM CHALLENGE \(corruption.rawValue): TargetInfoFields length \(length) at offset \(offset), in a "
            + "\(message.count)-byte message"
    }

    /// An AUTHENTICATE: it must answer this connection's CHALLENGE, with a known user's password.
    private mutating func verifyAuthenticate(
        _ auth: NTLMAuthenticate, negotiate: Bool, options: NTLMChallenge, connection: UInt64,
        presented: inout PresentedCredentials
    ) throws(AuthRefusal) -> AuthOutcome {
        presented.user = auth.user
        presented.params = (presented.params ?? [:]).merging([
            "message": "AUTHENTICATE", "domain": auth.domain, "workstation": auth.workstation,
            "flags": TextFormat.hex(auth.flags, width: 8),
            "version": auth.ntResponse.count > 24 ? "NTLMv2" : auth.ntResponse.count == 24 ? "NTLMv1" : "anonymous",
        ]) { $1 }
        let serverChallenge = try challengeAnswered(by: auth, negotiate: negotiate, on: connection)
        guard !auth.user.isEmpty, !auth.ntResponse.isEmpty else {
            throw .challenge(.ntlmAnonymous, "anonymous NTLM (no user or no response) is not accepted")
        }
        let isV1 = auth.ntResponse.count == 24
        if isV1, !options.allowV1 {
            let session = auth.flags & NTLMMessage.Flags.extendedSessionSecurity != 0 ? " (NTLM2 session response)" : ""
            throw .challenge(
                .ntlmV1Refused, "the client answered with NTLMv1\(session); this scenario accepts NTLMv2 only"
            )
        }
        guard let user = scenarioState.users.first(where: { $0.user.name.lowercased() == auth.user.lowercased() })
        else {
            throw .challenge(.ntlmUnknownUser, "no user named '\(auth.user)' in the scenario")
        }
        presented.user = user.user.name
        guard !user.removed, user.user.knowsPassword,
            let version = verifies(auth, serverChallenge: serverChallenge, password: user.user.password)
        else {
            let stale = matchesRetiredPassword(of: user.user.name) {
                $0.knowsPassword && verifies(auth, serverChallenge: serverChallenge, password: $0.password) != nil
            }
            if stale {
                throw .challenge(
                    .credentialStalePassword,
                    user.removed
                        ? "'\(user.user.name)' was removed; these credentials were valid before"
                        : "\(user.user.name)'s old password, which was changed"
                )
            }
            throw .challenge(.ntlmWrongPassword, "the response does not match \(user.user.name)'s password")
        }
        if let expected = user.user.domain, expected.lowercased() != auth.domain.lowercased() {
            throw .challenge(
                .ntlmWrongDomain, "the client sent domain '\(auth.domain)'; \(user.user.name)'s domain is '\(expected)'"
            )
        }
        connections.remember(connection, .authenticated(user: user.user.name))
        return .granted(
            user: user.user.name, verdict: .ntlmOK, detail: "authenticated as \(user.user.name) with \(version)",
            headers: completionHeaders(negotiate: negotiate)
        )
    }

    /// What a granted handshake sends back: Negotiate's final SPNEGO token; nothing for NTLM.
    private func completionHeaders(negotiate: Bool) -> [HeaderField] {
        guard negotiate else { return [] }
        let completed = SPNEGO.response(.acceptCompleted, supportedMech: nil, token: nil)
        return [HeaderField(hop.challengeHeader, Self.negotiateHeader(completed))]
    }

    /// The server challenge of the CHALLENGE this connection was sent for the same scheme; the handshake
    /// ends here, answered or not. Names an AUTHENTICATE that answers another connection's CHALLENGE.
    private mutating func challengeAnswered(
        by auth: NTLMAuthenticate, negotiate: Bool, on connection: UInt64
    ) throws(AuthRefusal) -> [UInt8] {
        if case .challenged(_, let wasNegotiate, _) = connections[ntlm: connection], wasNegotiate != negotiate {
            connections.endHandshake(on: connection)
            let scheme = (negotiate ? AuthScheme.negotiate : .ntlm).token
            throw .challenge(
                .ntlmNoChallenge,
                "the CHALLENGE was sent for \((wasNegotiate ? AuthScheme.negotiate : .ntlm).token), the AUTHENTICATE "
                    + "came as \(scheme)"
            )
        }
        guard case .challenged(let serverChallenge, _, _) = connections[ntlm: connection] else {
            let other = connections.recentNTLMChallenges.first {
                $0.connection != connection && verifies(auth, serverChallenge: $0.serverChallenge) != nil
            }
            if let other {
                throw .challenge(
                    .ntlmConnectionChanged,
                    "the AUTHENTICATE answers the CHALLENGE sent on connection \(other.connection), not on this one "
                        + "(\(connection))"
                )
            }
            throw .challenge(.ntlmNoChallenge, "AUTHENTICATE without a CHALLENGE on this connection")
        }
        connections.endHandshake(on: connection)
        return serverChallenge
    }

    /// Which NTLM variant the AUTHENTICATE proves the password with, or nil when it does not.
    func verifies(_ auth: NTLMAuthenticate, serverChallenge: [UInt8], password: String? = nil) -> String? {
        let candidates = password.map { [$0] } ?? scenarioState.users.filter {
            $0.user.name.lowercased() == auth.user.lowercased() && $0.user.knowsPassword
        }.map(\.user.password)
        for password in candidates {
            if auth.ntResponse.count > 24 {
                let key = NTLMCrypto.ntowfv2(password: password, user: auth.user, domain: auth.domain)
                let proof = NTLMCrypto.ntProofStr(
                    ntowfv2: key, serverChallenge: serverChallenge, blob: auth.ntResponse[16...]
                )
                if constantTimeEquals(proof, auth.ntResponse.prefix(16)) { return "NTLMv2" }
            } else if auth.ntResponse.count == 24 {
                let ess = auth.flags & NTLMMessage.Flags.extendedSessionSecurity != 0 && auth.lmResponse.count == 24
                    && auth.lmResponse[8...].allSatisfy { $0 == 0 }
                let expected = ess
                    ? NTLMCrypto.ntlm2SessionResponse(
                        password: password, serverChallenge: serverChallenge,
                        clientChallenge: Array(auth.lmResponse.prefix(8))
                    )
                    : NTLMCrypto.ntlmv1Response(password: password, serverChallenge: serverChallenge)
                if constantTimeEquals(expected, auth.ntResponse) { return ess ? "NTLM2 session response" : "NTLMv1" }
            }
        }
        return nil
    }

    /// Forgets everything about a closed connection (an NTLM handshake in progress or done).
    public mutating func connectionClosed(_ connection: UInt64) {
        connections.closed(connection)
    }

    /// The user a connection authenticated as with NTLM, if any.
    func ntlmUser(on connection: UInt64) -> String? {
        connections.user(on: connection)
    }

    static func negotiateHeader(_ token: [UInt8]) -> String {
        "Negotiate " + Base64.encode(token)
    }

    static func describeOID(_ oid: [UInt8]) -> String {
        if oid == SPNEGO.ntlmOID { return "NTLM" }
        if SPNEGO.kerberosOIDs.contains(oid) { return "Kerberos" }
        return oid.hexString
    }
}

/// NTLM's options serve both NTLM and Negotiate (SPNEGO carrying NTLM).
extension NTLMChallenge: SchemeOptions {
    static let keys = ["scheme", "server-challenge", "target-info", "allow-v1", "domain", "server", "corrupt"]

    static func read(_ fields: Fields, scheme: AuthScheme, reader: ScenarioReader) -> Challenge {
        let options = reader.ntlmChallenge(fields, scheme: scheme.token)
        return scheme == .negotiate ? .negotiate(options) : .ntlm(options)
    }

    func summary(_ scheme: AuthScheme) -> String {
        scheme.token + (allowV1 ? "" : " (NTLMv2 only)")
            + (corruption.map { " (CHALLENGE corrupted: \($0.rawValue))" } ?? "")
    }

    /// The first leg is the bare scheme name; the CHALLENGE answers the client's NEGOTIATE.
    func fixedChallenge(_ scheme: AuthScheme, realm: String) -> String? { scheme.token }

    func verify(
        _ attempt: Engine.Attempt, engine: inout Engine, random: inout some RandomNumberGenerator,
        presented: inout PresentedCredentials
    ) -> Engine.AuthOutcome {
        engine.verifyNTLM(
            token: attempt.token, negotiate: attempt.scheme == .negotiate, options: self, request: attempt.request,
            now: attempt.now, random: &random, presented: &presented
        )
    }
}
