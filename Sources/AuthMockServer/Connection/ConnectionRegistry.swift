import NIOCore

/// The open connections, so that shutdown can quiesce them and tests can count them.
final class ConnectionRegistry: Sendable {
    private struct State {
        /// The key of the next open connection (internal), and the next number a journal entry may show.
        var nextID: UInt64 = 1
        var nextNumber: UInt64 = 1
        var open: [UInt64: any Channel] = [:]
        /// Connections holding an answer back (a scenario's `stall`): shutdown closes them at once.
        var stalled: [ObjectIdentifier: any Channel] = [:]
        var closing = false
        var refused = 0
    }

    /// The state, and the tasks waiting for the last open connection to close (resumed with true).
    private let state = WaitQueue<State, Bool>(State())

    enum Admission {
        /// Registered under a key (not its journal number: see ``number()``).
        case admitted(UInt64)
        /// Over the connection limit: closed; the number its journal entry shows.
        case refused(UInt64)
        /// Shutdown has begun: closed.
        case closing
    }

    /// Registers the channel under the next key and forgets the channel when it closes. A connection accepted
    /// after shutdown began, or beyond `limit` open ones, is closed at once, so nothing is journaled
    /// after the journal is flushed and no client can exhaust the process's descriptors.
    func register(_ channel: any Channel, limit: Int = .max) -> Admission {
        let admission = state.withLock { state -> Admission in
            defer { state.nextID += 1 }
            if state.closing { return .closing }
            if state.open.count >= limit {
                state.refused += 1
                defer { state.nextNumber += 1 }
                return .refused(state.nextNumber)
            }
            state.open[state.nextID] = channel
            return .admitted(state.nextID)
        }
        guard case .admitted(let id) = admission else {
            channel.close(promise: nil)
            return admission
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.forget(id)
        }
        return admission
    }

    private func forget(_ id: UInt64) {
        state.update { state, waiters in
            state.open.removeValue(forKey: id)
            if state.open.isEmpty { waiters.resumeAll(returning: true) }
        }
    }

    var openCount: Int { state.withLock { $0.open.count } }

    /// Returns true once no connection is open (at once when none is), or false when `deadline` passes or
    /// the task is cancelled first. Woken by the close of the last connection: no polling.
    func waitUntilIdle(until deadline: ContinuousClock.Instant? = nil) async -> Bool {
        await state.wait(until: deadline, timedOut: false, cancelled: false) { $0.open.isEmpty ? true : nil }
    }

    /// Connections refused because the limit was reached.
    var refusedCount: Int { state.withLock { $0.refused } }

    /// Connections holding a stalled answer right now.
    var stalledCount: Int { state.withLock { $0.stalled.count } }

    /// Remembers a connection that holds its answer back, until it closes.
    func markStalled(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let closing = state.withLock { state in
            if !state.closing { state.stalled[key] = channel }
            return state.closing
        }
        if closing {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLock { _ = $0.stalled.removeValue(forKey: key) }
        }
    }

    /// The next connection number the journal shows: for a connection when something about it is first
    /// journaled, or at once for a connection that starts inside another (a CONNECT tunnel).
    func allocateID() -> UInt64 {
        state.withLock { state in
            defer { state.nextNumber += 1 }
            return state.nextNumber
        }
    }

    /// Whether shutdown has asked the open connections to finish (tests wait for this).
    var isClosing: Bool { state.withLock { $0.closing } }

    /// Asks every connection to finish its current exchange and close, then closes what is left
    /// after the grace period.
    func quiesce(gracePeriod: Duration) async {
        let (channels, stalled) = state.withLock { state in
            state.closing = true
            return (Array(state.open.values), Array(state.stalled.values))
        }
        // A stalled answer would never come: waiting for it would only spend the grace period.
        for channel in stalled { channel.close(promise: nil) }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        // Whichever comes first: every connection closed (none can open now), or the grace period is over.
        _ = await waitUntilIdle(until: ContinuousClock.now + gracePeriod)
        for channel in channels { channel.close(promise: nil) }
        // Returns once they are all closed, so that nothing is journaled after the journal is flushed.
        for channel in channels { try? await channel.closeFuture.get() }
    }
}
