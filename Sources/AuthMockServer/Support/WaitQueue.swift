import Synchronization

/// State behind a lock, and the tasks waiting for something about it, each until a deadline: the one way
/// the shell waits for "X, or a deadline". The connection registry waits with it for the last close
/// (``AuthMockServer/waitForConnectionsToClose(timeout:)``, shutdown's grace period), the fixture's
/// `takeRequest` for the next exchange, and the runner for a client's exit before its watchdog kills it.
///
/// A waiter is resumed exactly once, with a value:
/// - the one ``wait(until:timedOut:cancelled:_:)``'s `ready` returns at once (checked under the lock);
/// - the one an ``update(_:)`` hands it (the condition it waited for is met), first come first served;
/// - `timedOut` at its deadline;
/// - `cancelled` when its task is cancelled, also when that happened before it began to wait.
///
/// The condition is checked under the lock that `update` changes the state under, so no change can slip
/// between a waiter's check and its registration; a continuation is resumed once the lock is released.
/// No polling: a waiter with a deadline has one timer task, cancelled when the waiter is resumed otherwise.
///
/// ```swift
/// let idle = WaitQueue<Int, Bool>(open)             // the state: connections open
/// // a waiter: true once none is open, false after 5 s or when cancelled
/// let closed = await idle.wait(until: .now + .seconds(5), timedOut: false, cancelled: false) {
///     $0 == 0 ? true : nil
/// }
/// // elsewhere, as a connection closes:
/// idle.update { open, waiters in
///     open -= 1
///     if open == 0 { waiters.resumeAll(returning: true) }
/// }
/// ```
package final class WaitQueue<State: Sendable, Value: Sendable>: Sendable {
    fileprivate struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<Value, Never>
        /// Ends the wait at its deadline; cancelled when the waiter is resumed otherwise.
        var timer: Task<Void, Never>?
    }

    /// The waiters an ``WaitQueue/update(_:)`` may resume, oldest first.
    package struct Waiters {
        fileprivate var waiting: [Waiter]
        fileprivate var resumed: [(CheckedContinuation<Value, Never>, Value)] = []

        /// Whether no task is waiting.
        package var isEmpty: Bool { waiting.isEmpty }

        /// How many tasks are waiting.
        package var count: Int { waiting.count }

        /// Resumes the oldest waiter with `value`; false when none is waiting.
        @discardableResult
        package mutating func resumeFirst(returning value: Value) -> Bool {
            guard !waiting.isEmpty else { return false }
            let waiter = waiting.removeFirst()
            waiter.timer?.cancel()
            resumed.append((waiter.continuation, value))
            return true
        }

        /// Resumes every waiter with `value`, oldest first.
        package mutating func resumeAll(returning value: Value) {
            while resumeFirst(returning: value) {}
        }
    }

    private struct Locked {
        var state: State
        var waiting: [Waiter] = []
        var nextID: UInt64 = 0
    }

    private let locked: Mutex<Locked>

    package init(_ state: State) {
        locked = Mutex(Locked(state: state))
    }

    /// Reads or changes the state under the lock, without waking anyone.
    package func withLock<R: Sendable>(_ body: (inout State) -> R) -> R {
        locked.withLock { body(&$0.state) }
    }

    /// Changes the state under the lock and resumes the waiters `body` picks, once the lock is released.
    @discardableResult
    package func update<R: Sendable>(_ body: (inout State, inout Waiters) -> R) -> R {
        let (result, resumed) = locked.withLock { locked in
            var waiters = Waiters(waiting: locked.waiting)
            locked.waiting = []
            let result = body(&locked.state, &waiters)
            locked.waiting = waiters.waiting
            return (result, waiters.resumed)
        }
        for (continuation, value) in resumed { continuation.resume(returning: value) }
        return result
    }

    /// Waits until `ready` returns a value, an ``update(_:)`` hands one over, `deadline` passes (`timedOut`)
    /// or the task is cancelled (`cancelled`). `ready` is asked once, under the lock, before waiting; a
    /// value it returns wins over a deadline already past and over a cancellation. No deadline: no timer.
    package func wait(
        until deadline: ContinuousClock.Instant? = nil, timedOut: Value, cancelled: Value,
        _ ready: (inout State) -> Value?
    ) async -> Value {
        let id = locked.withLock { locked in
            defer { locked.nextID += 1 }
            return locked.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Value, Never>) in
                // Registered under the lock that `update` and the cancellation handler take, so that
                // neither a change nor a cancellation can slip between the check and the registration.
                let now: Value? = locked.withLock { locked in
                    if let value = ready(&locked.state) { return value }
                    if Task.isCancelled { return cancelled }
                    var waiter = Waiter(id: id, continuation: continuation)
                    if let deadline {
                        waiter.timer = Task { [self] in
                            do { try await Task.sleep(until: deadline, clock: .continuous) } catch { return }
                            resume(id, returning: timedOut)
                        }
                    }
                    locked.waiting.append(waiter)
                    return nil
                }
                if let now { continuation.resume(returning: now) }
            }
        } onCancel: {
            resume(id, returning: cancelled)
        }
    }

    /// Resumes waiter `id` with `value` if it is still waiting (its deadline, or its cancellation).
    private func resume(_ id: UInt64, returning value: Value) {
        let waiter = locked.withLock { locked -> Waiter? in
            guard let index = locked.waiting.firstIndex(where: { $0.id == id }) else { return nil }
            return locked.waiting.remove(at: index)
        }
        guard let waiter else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: value)
    }
}
