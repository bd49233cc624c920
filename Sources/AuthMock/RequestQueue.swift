import AuthMockCore
import NIOConcurrencyHelpers

/// HTTP exchanges in arrival order, and the callers waiting for them.
///
/// Fed by the server's journal observer (under the engine lock: it only appends and resumes), drained
/// by `take`. A waiter is resumed exactly once: by an entry, by its timeout, by cancellation or by close.
final class RequestQueue: Sendable {
    private struct State {
        var pending: [JournalEntry] = []
        var waiters: [(id: UInt64, continuation: CheckedContinuation<JournalEntry, any Error>)] = []
        var nextID: UInt64 = 0
        /// Takes cancelled before their waiter was registered.
        var abandoned: Set<UInt64> = []
        /// The timeout of each waiting take, cancelled when the take ends otherwise.
        var timers: [UInt64: Task<Void, any Error>] = [:]
        var seen = 0
        var closed = false
    }

    private let state = NIOLockedValueBox(State())

    var exchangesSeen: Int { state.withLockedValue { $0.seen } }

    func append(_ entry: JournalEntry) {
        guard entry.isExchange else { return }
        let waiter: CheckedContinuation<JournalEntry, any Error>? = state.withLockedValue { state in
            state.seen += 1
            guard !state.waiters.isEmpty else {
                state.pending.append(entry)
                return nil
            }
            let waiter = state.waiters.removeFirst()
            state.timers.removeValue(forKey: waiter.id)?.cancel()
            return waiter.continuation
        }
        waiter?.resume(returning: entry)
    }

    func clear() {
        state.withLockedValue {
            $0.pending.removeAll()
            $0.seen = 0
        }
    }

    func close() {
        let waiters = state.withLockedValue { state in
            state.closed = true
            for timer in state.timers.values { timer.cancel() }
            state.timers.removeAll()
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.continuation.resume(throwing: AuthMockError.shutDown) }
    }

    func take(timeout: Duration) async throws -> JournalEntry {
        let id = state.withLockedValue { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<JournalEntry, any Error>) in
                let outcome: Result<JournalEntry, any Error>? = state.withLockedValue { state in
                    if !state.pending.isEmpty { return .success(state.pending.removeFirst()) }
                    if state.closed { return .failure(AuthMockError.shutDown) }
                    // Cancelled before the waiter existed: `onCancel` left a note for us.
                    if state.abandoned.remove(id) != nil { return .failure(CancellationError()) }
                    state.waiters.append((id, continuation))
                    return nil
                }
                if let outcome {
                    continuation.resume(with: outcome)
                    return
                }
                // The timer starts once the waiter is registered, so it always finds it (or finds it gone).
                let timer = Task {
                    try await Task.sleep(for: timeout)
                    self.fail(id, with: AuthMockError.timedOut(timeout))
                }
                state.withLockedValue { state in
                    if state.waiters.contains(where: { $0.id == id }) { state.timers[id] = timer } else { timer.cancel() }
                }
            }
        } onCancel: {
            self.fail(id, with: CancellationError(), rememberIfAbsent: true)
        }
    }

    /// Resumes waiter `id` with `error` if it is still waiting. A cancellation that comes before the
    /// waiter is registered is remembered (`rememberIfAbsent`), so the registration fails at once.
    private func fail(_ id: UInt64, with error: any Error, rememberIfAbsent: Bool = false) {
        let waiter = state.withLockedValue { state -> CheckedContinuation<JournalEntry, any Error>? in
            guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                if rememberIfAbsent { state.abandoned.insert(id) }
                return nil
            }
            state.timers.removeValue(forKey: id)?.cancel()
            return state.waiters.remove(at: index).continuation
        }
        waiter?.resume(throwing: error)
    }
}
