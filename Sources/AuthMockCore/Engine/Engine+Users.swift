#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A user as the running scenario knows them: the password may have changed, the user may be locked
/// or gone, and the passwords they had before are remembered to recognise a client that keeps using them.
struct UserRecord: Sendable, Equatable {
    var user: User
    var locked = false
    var removed = false
    /// The user as they were before each password change (password or stored hash), most recent last.
    var retired: [User] = []
    var successes = 0
}

extension Engine {
    /// The user who can authenticate now (not removed), by exact name.
    func activeUser(named name: String) -> User? {
        scenarioState.users.first { $0.user.name == name && !$0.removed }?.user
    }

    /// Whether `matches` accepts one of the user's retired secrets (or, for a removed user, the last one).
    func matchesRetiredPassword(of name: String, _ matches: (User) -> Bool) -> Bool {
        guard let record = scenarioState.users.first(where: { $0.user.name == name }) else { return false }
        let candidates = record.retired + (record.removed ? [record.user] : [])
        // Check them all, so the time taken does not say which one matched.
        return candidates.reduce(false) { matched, old in matches(old) || matched }
    }

    /// Whether the password bytes a client sent (Basic) are `user`'s: in clear, or against a stored hash.
    func passwordMatches(_ user: User, _ candidate: [UInt8]) -> Bool {
        if let stored = user.stored {
            return passwordMemo.verify(stored, candidate, user: user.name)
        }
        return constantTimeEquals(candidate, Array(user.password.utf8))
    }

    func isLocked(_ name: String) -> Bool {
        scenarioState.users.first { $0.user.name == name }?.locked ?? false
    }

    /// Applies the steps due before a request is decided: time-based ones and `at-request`.
    mutating func applyStepsBeforeRequest(now: Date, journal: inout JournalLog) -> [JournalEntry] {
        let elapsed = now.timeIntervalSince(scenarioState.startedAt ?? now)
        let requests = scenarioState.requests
        return applySteps(now: now, journal: &journal) { trigger in
            switch trigger {
            case .afterTime(let seconds): return elapsed >= seconds
            case .atRequest(let n): return requests >= n
            case .afterSuccesses: return false
            }
        }
    }

    /// Counts a success for `name` and applies the `after-successes` steps that became due.
    mutating func recordSuccess(of name: String, now: Date, journal: inout JournalLog) -> [JournalEntry] {
        guard let index = scenarioState.users.firstIndex(where: { $0.user.name == name }) else { return [] }
        scenarioState.users[index].successes += 1
        let successes = scenarioState.users[index].successes
        return applySteps(now: now, restrictedTo: name, journal: &journal) { trigger in
            if case .afterSuccesses(let n) = trigger { return successes >= n }
            return false
        }
    }

    private mutating func applySteps(
        now: Date, restrictedTo user: String? = nil, journal: inout JournalLog, due: (TimelineStep.Trigger) -> Bool
    ) -> [JournalEntry] {
        var entries: [JournalEntry] = []
        for (index, step) in scenario.timeline.enumerated() where !scenarioState.firedSteps.contains(index) {
            if let user, step.user != user { continue }
            guard due(step.trigger) else { continue }
            scenarioState.firedSteps.insert(index)
            let reason = "timeline step \(index + 1) (\(Self.describe(step.trigger)))"
            if let entry = change(step.user, step.action, reason: reason, now: now, journal: &journal) {
                entries.append(entry)
            }
        }
        return entries
    }

    /// The users who can authenticate now, with their current passwords (after any change).
    public var currentUsers: [User] {
        scenarioState.users.filter { !$0.removed }.map(\.user)
    }

    /// Changes a user as a timeline step or the control endpoint would, and journals it; nil when there
    /// is no such user. For hosts that drive the engine directly (the Swift fixture library).
    public mutating func changeUser(
        _ name: String, _ action: TimelineStep.Action, reason: String, now: Date, journal: inout JournalLog
    ) -> JournalEntry? {
        change(name, action, reason: reason, now: now, journal: &journal)
    }

    /// Changes a user and journals the change; nil when there is no such user.
    mutating func change(
        _ name: String, _ action: TimelineStep.Action, reason: String, now: Date, journal: inout JournalLog
    ) -> JournalEntry? {
        // Tokens belong to users and to OAuth clients (client credentials).
        if action == .expireTokens {
            guard scenarioState.users.contains(where: { $0.user.name == name })
                || scenario.oauth?.clients.contains(where: { $0.id == name }) == true
            else { return nil }
            let count = scenarioState.tokens.expireTokens(of: name)
            let staticToo = staticTokens.values.contains(name) ? ", and the static one" : ""
            let what = "\(name)'s access tokens expired (\(count) issued\(staticToo))"
            return append(
                JournalEntry(userChange: name, time: now, verdict: .userTokensExpired, detail: "\(what) (\(reason))"),
                to: &journal
            )
        }
        guard let index = scenarioState.users.firstIndex(where: { $0.user.name == name }) else { return nil }
        let verdict: Verdict
        let what: String
        switch action {
        case .setPassword(let password):
            // Connections NTLM authenticated as this user must authenticate again.
            connections.forget(user: name)
            scenarioState.users[index].retired.append(scenarioState.users[index].user)
            scenarioState.users[index].user.password = password
            // A new password is known in clear, whatever the user file held.
            scenarioState.users[index].user.stored = nil
            scenarioState.users[index].user.source = nil
            scenarioState.users[index].removed = false
            verdict = .userPasswordChanged
            what = "\(name)'s password changed"
        case .lock:
            scenarioState.users[index].locked = true
            verdict = .userLocked
            what = "\(name) is locked: valid credentials now get 403"
        case .unlock:
            scenarioState.users[index].locked = false
            verdict = .userUnlocked
            what = "\(name) is unlocked"
        case .remove:
            connections.forget(user: name)
            scenarioState.users[index].removed = true
            verdict = .userRemoved
            what = "\(name) was removed"
        case .expireTokens:
            preconditionFailure("handled above")
        }
        return append(
            JournalEntry(userChange: name, time: now, verdict: verdict, detail: "\(what) (\(reason))"), to: &journal
        )
    }

    static func describe(_ trigger: TimelineStep.Trigger) -> String {
        switch trigger {
        case .afterSuccesses(let n): return "after \(n) successful request(s)"
        case .afterTime(let time): return "after \(seconds(time))"
        case .atRequest(let n): return "at request \(n)"
        }
    }

    // MARK: - Control: /_authmock/users

    /// `GET /_authmock/users` and `POST /_authmock/users/{name}` with a JSON body
    /// `{"password": "new"}`, `{"enabled": false}` (lock) or `{"enabled": true}` (unlock).
    mutating func usersControl(_ request: Request, name: String?, now: Date, journal: inout JournalLog) -> Exchange {
        guard let name else {
            guard request.method == "GET" else { return Exchange(response: Self.methodNotAllowed(allow: "GET")) }
            return Exchange(response: Self.json(scenarioState.users.map(UserStatus.init)))
        }
        guard request.method == "POST" else { return Exchange(response: Self.methodNotAllowed(allow: "POST")) }
        let decodedName = PercentEncoding.decode(name) ?? name
        guard scenarioState.users.contains(where: { $0.user.name == decodedName }) else {
            return Exchange(response: Self.plain(status: 404, "404 Not Found: no user named '\(decodedName)'\n"))
        }
        guard let change = try? JSONDecoder().decode(UserChange.self, from: Data(request.body)),
            change.password != nil || change.enabled != nil
        else {
            return Exchange(response: Self.plain(
                status: 400,
                "400 Bad Request: send a JSON body such as {\"password\": \"new\"}, {\"enabled\": false} or "
                    + "{\"enabled\": true}\n"
            ))
        }
        var entries: [JournalEntry] = []
        let reason = "\(request.method) \(request.path)"
        if let password = change.password,
            let entry = self.change(decodedName, .setPassword(password), reason: reason, now: now, journal: &journal)
        {
            entries.append(entry)
        }
        if let enabled = change.enabled,
            let entry = self.change(decodedName, enabled ? .unlock : .lock, reason: reason, now: now, journal: &journal)
        {
            entries.append(entry)
        }
        let status = scenarioState.users.first { $0.user.name == decodedName }.map(UserStatus.init)
        return Exchange(response: Self.json(status), events: entries)
    }

    struct UserChange: Decodable {
        var password: String?
        var enabled: Bool?
    }

    /// A user's state as the control endpoints show it.
    public struct UserStatus: Codable, Sendable, Equatable {
        public var name: String
        /// nil for a user from a file whose password was not changed: only its hash is known.
        public var password: String?
        public var domain: String?
        /// The stored hash's scheme (`bcrypt`, `apr1`, `htdigest`…) for users from a file.
        public var hash: String?
        /// Where a user from a file came from: `users.htpasswd:3`.
        public var source: String?
        public var enabled: Bool
        public var removed: Bool
        public var passwordChanges: Int
        public var successes: Int

        init(_ record: UserRecord) {
            name = record.user.name
            password = record.user.knowsPassword ? record.user.password : nil
            domain = record.user.domain
            hash = record.user.stored?.scheme
            source = record.user.source
            enabled = !record.locked
            removed = record.removed
            passwordChanges = record.retired.count
            successes = record.successes
        }

        enum CodingKeys: String, CodingKey {
            case name, password, domain, hash, source, enabled, removed, successes
            case passwordChanges = "password_changes"
        }
    }
}
