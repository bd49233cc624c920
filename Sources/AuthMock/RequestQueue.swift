import AuthMockCore
import AuthMockServer

/// HTTP exchanges in arrival order, and the callers waiting for them.
///
/// Fed by the server's journal observer (under the engine lock: it only appends and resumes), drained
/// by `take`. A waiter is resumed exactly once: by an entry, by its timeout, by cancellation or by close.
final class RequestQueue: Sendable {
    private struct State {
        var pending: [JournalEntry] = []
        var seen = 0
        var closed = false
    }

    /// The exchanges not yet taken, and the takes waiting for one, first come first served.
    private let state = WaitQueue<State, Result<JournalEntry, any Error>>(State())

    var exchangesSeen: Int { state.withLock { $0.seen } }

    func append(_ entry: JournalEntry) {
        guard entry.isExchange else { return }
        state.update { state, waiters in
            state.seen += 1
            if !waiters.resumeFirst(returning: .success(entry)) { state.pending.append(entry) }
        }
    }

    func clear() {
        state.withLock {
            $0.pending.removeAll()
            $0.seen = 0
        }
    }

    func close() {
        state.update { state, waiters in
            state.closed = true
            waiters.resumeAll(returning: .failure(AuthMockError.shutDown))
        }
    }

    func take(timeout: Duration) async throws -> JournalEntry {
        let taken = await state.wait(
            until: ContinuousClock.now + timeout,
            timedOut: .failure(AuthMockError.timedOut(timeout)),
            cancelled: .failure(CancellationError())
        ) { state in
            if !state.pending.isEmpty { return .success(state.pending.removeFirst()) }
            if state.closed { return .failure(AuthMockError.shutDown) }
            return nil
        }
        return try taken.get()
    }
}
