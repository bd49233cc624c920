
/// The sections that change what the scenario does while it runs: faults and the timeline.
extension ScenarioReader {
    // MARK: - Faults

    func faults(_ node: YAMLNode, what: String, triggers: [Fault.Trigger] = Fault.Trigger.allCases) -> [Fault] {
        guard let items = sequence(node, what) else { return [] }
        var faults: [Fault] = []
        for item in items {
            guard
                let fields = mapping(
                    item, "a fault", allowed: ScenarioLoader.keys["fault"]!, required: ["when", "effect"]
                ),
                let whenNode = fields["when"], let when = string(whenNode, "\(what).when"),
                let effectNode = fields["effect"], let effectName = string(effectNode, "\(what).effect")
            else { continue }
            guard let trigger = Fault.Trigger(rawValue: when), triggers.contains(trigger) else {
                let names = triggers.map(\.rawValue)
                report(
                    whenNode, "\(what).when '\(when)' is not one of \(names.joined(separator: ", "))",
                    hint: triggers.count == 1
                        ? "the proxy's faults apply to its 407s: write `when: challenge`"
                        : Suggestion.hint(for: when, in: names)
                )
                continue
            }
            let duration = fields["duration"].flatMap { self.duration($0, "\(what).duration") }
            guard let effect = faultEffect(effectName, at: effectNode, duration: duration, fields: fields, what: what)
            else { continue }
            if let node = fields["duration"], !["stall", "delay"].contains(effectName) {
                report(
                    node, "effect \(effectName) takes no duration",
                    hint: "remove `duration:`; only stall and delay wait"
                )
            }
            if let node = fields["duration"], let seconds = duration, seconds > 3600 {
                report(
                    node, "\(what).duration is over an hour",
                    hint: "use at most 1h; a client's timeout is what is being tested"
                )
            }
            var fault = Fault(when: trigger, effect: effect)
            if let node = fields["times"] { fault.times = int(node, "\(what).times", in: 1...1_000_000) }
            if let node = fields["path"], let path = string(node, "\(what).path") {
                if path.hasPrefix("/") {
                    fault.path = path
                } else {
                    report(
                        node, "\(what).path '\(path)' does not start with '/'",
                        hint: "write a resource path such as /private or /api/*"
                    )
                }
            }
            faults.append(fault)
        }
        return faults
    }

    /// A fault's `effect:`; nil (reported) when it is unknown, or a delay without a duration.
    private func faultEffect(
        _ effectName: String, at effectNode: YAMLNode, duration: Double?, fields: Fields, what: String
    ) -> Fault.Effect? {
        switch effectName {
        case "close": return .close
        case "disconnect": return .disconnect
        case "drop-body": return .dropBody
        case "server-error": return .serverError
        case "stall": return .stall(seconds: duration)
        case "delay":
            guard let duration else {
                if fields["duration"] == nil {
                    report(effectNode, "effect delay needs a duration", hint: "add `duration: 2s`")
                }
                return nil
            }
            return .delay(seconds: duration)
        default:
            report(
                effectNode, "\(what).effect '\(effectName)' is not known",
                hint: Suggestion.hint(for: effectName, in: Fault.Effect.names)
            )
            return nil
        }
    }

    // MARK: - Timeline

    func timelineSteps(_ node: YAMLNode, users: [User], clients: [String] = []) -> [TimelineStep] {
        guard let items = sequence(node, "timeline") else { return [] }
        let triggers = ["after-successes", "after", "at-request"]
        let actions = ["password", "lock", "unlock", "remove", "expire-tokens"]
        var steps: [TimelineStep] = []
        for item in items {
            guard
                let fields = mapping(
                    item, "a timeline step", allowed: ScenarioLoader.keys["timeline step"]!, required: ["user"]
                )
            else { continue }
            let givenTriggers = triggers.filter { fields[$0] != nil }
            let givenActions = actions.filter { fields[$0] != nil }
            guard givenTriggers.count == 1 else {
                report(
                    item,
                    "a timeline step needs exactly one trigger, found "
                        + "\(givenTriggers.isEmpty ? "none" : givenTriggers.joined(separator: " and "))",
                    hint: "add one of after-successes: N, after: 30s, at-request: N"
                )
                continue
            }
            guard givenActions.count == 1 else {
                report(
                    item,
                    "a timeline step needs exactly one action, found "
                        + "\(givenActions.isEmpty ? "none" : givenActions.joined(separator: " and "))",
                    hint: "add one of password: NEW, lock: true, unlock: true, remove: true, expire-tokens: true"
                )
                continue
            }
            guard let userNode = fields["user"], let user = string(userNode, "a timeline step's user") else { continue }
            // Tokens belong to users and, for the client credentials grant, to OAuth clients.
            let named = givenActions == ["expire-tokens"] ? users.map(\.name) + clients : users.map(\.name)
            if !named.contains(user) {
                report(
                    userNode, "timeline user '\(user)' is not in users\(clients.isEmpty ? "" : " or oauth.clients")",
                    hint: Suggestion.hint(for: user, in: named, noun: "one of the users")
                )
                continue
            }
            guard let trigger = timelineTrigger(givenTriggers[0], fields: fields),
                let action = timelineAction(givenActions[0], fields: fields)
            else { continue }
            steps.append(TimelineStep(trigger: trigger, user: user, action: action))
        }
        return steps
    }

    /// A timeline step's trigger, `name` (after-successes, after or at-request); nil when its value is not valid.
    private func timelineTrigger(_ name: String, fields: Fields) -> TimelineStep.Trigger? {
        switch name {
        case "after-successes":
            guard let n = int(fields["after-successes"]!, "after-successes", in: 1...1_000_000_000) else {
                return nil
            }
            return .afterSuccesses(n)
        case "after":
            guard let seconds = duration(fields["after"]!, "after") else { return nil }
            return .afterTime(seconds)
        default:
            guard let n = int(fields["at-request"]!, "at-request", in: 1...1_000_000_000) else { return nil }
            return .atRequest(n)
        }
    }

    /// A timeline step's action, `name` (password, lock, unlock, remove or expire-tokens); nil when its value is
    /// not valid or
    /// is `false`.
    private func timelineAction(_ name: String, fields: Fields) -> TimelineStep.Action? {
        let actionNode = fields[name]!
        switch name {
        case "password":
            guard let password = string(actionNode, "password", allowEmpty: true) else { return nil }
            return .setPassword(password)
        default:
            guard let flag = bool(actionNode, name) else { return nil }
            guard flag else {
                report(actionNode, "\(name): false does nothing", hint: "leave the step out, or write \(name): true")
                return nil
            }
            switch name {
            case "lock": return .lock
            case "unlock": return .unlock
            case "expire-tokens": return .expireTokens
            default: return .remove
            }
        }
    }
}
