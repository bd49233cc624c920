/// A scripted change to a user while the scenario runs: a password change, a lock, an unlock, a removal,
/// the user's tokens expiring.
///
/// Clients that cache credentials must notice when they stop working and not retry a dead password
/// forever; the timeline is how a scenario makes that happen at a known moment.
public struct TimelineStep: Sendable, Equatable {
    public enum Trigger: Sendable, Equatable {
        /// Right after the user's Nth successful authentication.
        case afterSuccesses(Int)
        /// Once this many seconds have passed since the server started (or was reset).
        case afterTime(Double)
        /// Just before the Nth HTTP request (all users, all paths) is decided.
        case atRequest(Int)
    }

    public enum Action: Sendable, Equatable {
        case setPassword(String)
        /// Valid credentials get 403 (`credential.locked`).
        case lock
        case unlock
        /// The user no longer exists.
        case remove
        /// Every access token of the user (or OAuth client) expires now, the static one included: the
        /// next request with one gets 401 `invalid_token`; refresh tokens stay valid.
        case expireTokens
    }

    public var trigger: Trigger
    public var user: String
    public var action: Action

    public init(trigger: Trigger, user: String, action: Action) {
        self.trigger = trigger
        self.user = user
        self.action = action
    }
}
