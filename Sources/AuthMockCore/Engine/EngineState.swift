#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What changes while a scenario is served and is shared by every connection: users, nonces, the
/// timeline, the faults played, the tokens issued. Per-connection state is apart, in ``ConnectionStates``; the
/// journal in
/// ``JournalLog``.
struct ScenarioState: Sendable, Equatable {
    var nonces: NonceStore
    var requestsSinceRotation = 0
    /// Nonces issued since start or reset (for `nonce.stale-first`).
    var noncesIssued = 0
    var tlsDescription: [UInt8]?
    var users: [UserRecord]
    var firedSteps: Set<Int> = []
    /// HTTP requests decided since start or reset (control requests excluded).
    var requests = 0
    var startedAt: Date?
    /// How many answers each scenario fault (by index) has been played on, for `times:`.
    var faultsFired: [Int: Int] = [:]
    /// The Bearer tokens the token endpoint issued (and the static tokens the timeline expired).
    var tokens = TokenStore()

    /// Starts over as after `init`: every nonce forgotten, the scenario's users restored, the timeline
    /// and the faults' counts restarted. The TLS description stays: it describes the shell, not the run.
    mutating func reset(users: [User], startedAt: Date?) {
        nonces.removeAll()
        self.users = users.map { UserRecord(user: $0) }
        firedSteps = []
        requests = 0
        self.startedAt = startedAt
        requestsSinceRotation = 0
        noncesIssued = 0
        faultsFired = [:]
        tokens = TokenStore(capacity: tokens.capacity)
    }
}

/// The sizes of what an engine holds now, for reading.
public struct EngineState: Sendable, Equatable {
    /// How many Digest nonces are remembered right now (bounded by the scenario's `nonce.remember`).
    public let rememberedNonces: Int
    /// How many connections have NTLM state (a handshake in progress or done); closed ones have none.
    public let ntlmConnections: Int
}
