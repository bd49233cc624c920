import NIOConcurrencyHelpers
import NIOCore

/// The open connections, so that shutdown can quiesce them and tests can count them.
final class ConnectionRegistry: Sendable {
    private struct State {
        var nextID: UInt64 = 1
        var open: [UInt64: any Channel] = [:]
        /// Connections holding an answer back (a scenario's `stall`): shutdown closes them at once.
        var stalled: [ObjectIdentifier: any Channel] = [:]
        var closing = false
        var refused = 0
        /// Tasks waiting for the last open connection to close, by a number of their own.
        var idleWaiters: [Int: CheckedContinuation<Bool, Never>] = [:]
        var nextWaiter = 0
    }

    private let state = NIOLockedValueBox(State())

    enum Admission {
        case admitted(UInt64)
        /// Over the connection limit: closed.
        case refused(UInt64)
        /// Shutdown has begun: closed.
        case closing
    }

    /// Assigns the next connection id and forgets the channel when it closes. A connection accepted
    /// after shutdown began, or beyond `limit` open ones, is closed at once, so nothing is journaled
    /// after the journal is flushed and no client can exhaust the process's descriptors.
    func register(_ channel: any Channel, limit: Int = .max) -> Admission {
        let admission = state.withLockedValue { state -> Admission in
            defer { state.nextID += 1 }
            if state.closing { return .closing }
            if state.open.count >= limit {
                state.refused += 1
                return .refused(state.nextID)
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
        let waiters = state.withLockedValue { state -> [CheckedContinuation<Bool, Never>] in
            state.open.removeValue(forKey: id)
            guard state.open.isEmpty else { return [] }
            defer { state.idleWaiters = [:] }
            return Array(state.idleWaiters.values)
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    var openCount: Int { state.withLockedValue { $0.open.count } }

    /// Returns true once no connection is open (at once when none is), or false when the task is
    /// cancelled first. Woken by the close of the last connection: no polling.
    func waitUntilIdle() async -> Bool {
        let id = state.withLockedValue { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Registered under the lock that `forget` and the cancellation handler take, so that
                // neither a close nor a cancellation can slip between the check and the registration.
                let now: Bool? = state.withLockedValue { state in
                    if state.open.isEmpty { return true }
                    if Task.isCancelled { return false }
                    state.idleWaiters[id] = continuation
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            state.withLockedValue { $0.idleWaiters.removeValue(forKey: id) }?.resume(returning: false)
        }
    }

    /// Connections refused because the limit was reached.
    var refusedCount: Int { state.withLockedValue { $0.refused } }

    /// Connections holding a stalled answer right now.
    var stalledCount: Int { state.withLockedValue { $0.stalled.count } }

    /// Remembers a connection that holds its answer back, until it closes.
    func markStalled(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        let closing = state.withLockedValue { state in
            if !state.closing { state.stalled[key] = channel }
            return state.closing
        }
        if closing {
            channel.close(promise: nil)
            return
        }
        channel.closeFuture.whenComplete { [weak self] _ in
            self?.state.withLockedValue { _ = $0.stalled.removeValue(forKey: key) }
        }
    }

    /// A fresh connection id for a connection that starts inside another (a CONNECT tunnel).
    func allocateID() -> UInt64 {
        state.withLockedValue { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Asks every connection to finish its current exchange and close, then closes what is left
    /// after the grace period.
    /// Whether shutdown has asked the open connections to finish (tests wait for this).
    var isClosing: Bool { state.withLockedValue { $0.closing } }

    func quiesce(gracePeriod: Duration) async {
        let (channels, stalled) = state.withLockedValue { state in
            state.closing = true
            return (Array(state.open.values), Array(state.stalled.values))
        }
        // A stalled answer would never come: waiting for it would only spend the grace period.
        for channel in stalled { channel.close(promise: nil) }
        for channel in channels {
            channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for channel in channels { try? await channel.closeFuture.get() }
            }
            group.addTask { try? await Task.sleep(for: gracePeriod) }
            // Whichever comes first: every connection closed, or the grace period is over.
            await group.next()
            group.cancelAll()
            for channel in channels { channel.close(promise: nil) }
        }
    }
}
