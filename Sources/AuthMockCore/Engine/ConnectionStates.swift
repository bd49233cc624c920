/// Per-connection NTLM state: a handshake in progress, or a connection already authenticated.
enum NTLMConnectionState: Sendable, Equatable {
    /// `unicode`: the string encoding the CHALLENGE settled on.
    case challenged(serverChallenge: [UInt8], negotiate: Bool, unicode: Bool)
    case authenticated(user: String)
}

struct IssuedNTLMChallenge: Sendable, Equatable {
    var connection: UInt64
    var serverChallenge: [UInt8]
}

/// What the engine keeps about one TCP connection rather than the scenario: NTLM binds its handshake,
/// and then its authentication, to the connection. Nothing here outlives the connection's close
/// (``Engine/connectionClosed(_:)``) or a reset.
struct ConnectionStates: Sendable, Equatable {
    /// Most connections an engine never told of closes can hold state for.
    static let capacity = 10_000
    /// How many recent CHALLENGEs are remembered to name an AUTHENTICATE sent on the wrong connection.
    static let recentChallengesKept = 64

    private(set) var ntlm: [UInt64: NTLMConnectionState] = [:]
    /// The last CHALLENGEs sent, with their connections, to name an AUTHENTICATE sent on the wrong one.
    private(set) var recentNTLMChallenges: [IssuedNTLMChallenge] = []

    var ntlmCount: Int { ntlm.count }

    subscript(ntlm connection: UInt64) -> NTLMConnectionState? {
        ntlm[connection]
    }

    /// Remembers a connection's NTLM state, bounded so an engine never told of closes cannot grow forever.
    mutating func remember(_ connection: UInt64, _ value: NTLMConnectionState) {
        if ntlm[connection] == nil, ntlm.count >= Self.capacity, let oldest = ntlm.keys.min() {
            ntlm[oldest] = nil
        }
        ntlm[connection] = value
    }

    /// Ends a connection's handshake (answered, or answered wrongly) without closing the connection.
    mutating func endHandshake(on connection: UInt64) {
        ntlm[connection] = nil
    }

    /// Notes a CHALLENGE sent on a connection.
    mutating func issued(_ challenge: IssuedNTLMChallenge) {
        recentNTLMChallenges.append(challenge)
        if recentNTLMChallenges.count > Self.recentChallengesKept { recentNTLMChallenges.removeFirst() }
    }

    /// The user a connection authenticated as with NTLM, if any.
    func user(on connection: UInt64) -> String? {
        if case .authenticated(let user) = ntlm[connection] { return user }
        return nil
    }

    /// Forgets everything about a closed connection.
    mutating func closed(_ connection: UInt64) {
        ntlm[connection] = nil
    }

    /// Connections NTLM authenticated as this user must authenticate again (after a change to the user).
    mutating func forget(user name: String) {
        ntlm = ntlm.filter { $0.value != .authenticated(user: name) }
    }

    mutating func removeAll() {
        ntlm.removeAll()
        recentNTLMChallenges.removeAll()
    }
}
