extension Engine {
    /// The effect of the first scenario fault that matches this answer and has not used up its `times`.
    mutating func fault(for decision: Decision, request: Request) -> Fault.Effect? {
        guard !scenario.faults.isEmpty else { return nil }
        let isChallenge = decision.response.status == challengeStatus
        let isGranted = decision.authenticatedUser != nil || decision.verdict == .publicResource
        for (index, fault) in scenario.faults.enumerated() {
            switch fault.trigger {
            case .challenge where !isChallenge, .granted where !isGranted: continue
            default: break
            }
            if let path = fault.path, !Resource(path: path).matches(path: request.resourcePath) { continue }
            let fired = scenarioState.faultsFired[index, default: 0]
            if let times = fault.times, fired >= times { continue }
            scenarioState.faultsFired[index] = fired + 1
            return fault.effect
        }
        return nil
    }

    /// A new certificate every `rotate-after-requests` requests over TLS (`tls.rotate-after-requests`).
    mutating func rotationActions(after request: Request) -> [ServerAction] {
        guard let every = scenario.tls?.rotateAfterRequests, request.connection.tls != nil else { return [] }
        scenarioState.requestsSinceRotation += 1
        guard scenarioState.requestsSinceRotation >= every else { return [] }
        scenarioState.requestsSinceRotation = 0
        return [.rotateCertificate(keepKey: scenario.tls?.rotateKeepsKey ?? true)]
    }
}
