@testable import AuthMockServer
import Testing

/// The one "wait for X or a deadline" helper: each waiter ends exactly once, with the value it was handed,
/// at its deadline, or at its cancellation, and the oldest waiter is served first.
struct WaitQueueTests {
    /// A counter of open things; its waiters want it to reach zero.
    private typealias Idle = WaitQueue<Int, String>

    private static func waitForZero(_ queue: Idle, until deadline: ContinuousClock.Instant?) async -> String {
        await queue.wait(until: deadline, timedOut: "deadline", cancelled: "cancelled") { $0 == 0 ? "at once" : nil }
    }

    /// Waits until `count` tasks are waiting on `queue`.
    private static func waiters(_ count: Int, on queue: Idle) async throws {
        while queue.update({ $1.count }) < count { try await Task.sleep(for: .milliseconds(2)) }
    }

    /// A condition already met ends the wait at once, even with a deadline already past.
    @Test func aConditionAlreadyMetReturnsAtOnce() async {
        let queue = Idle(0)
        #expect(await Self.waitForZero(queue, until: ContinuousClock.now - .seconds(1)) == "at once")
        #expect(queue.update { $1.count } == 0, "nothing was left waiting")
    }

    /// A condition met before the deadline ends the wait with the value handed over, long before the deadline.
    @Test func theConditionMetFirstEndsTheWait() async throws {
        let queue = Idle(1)
        let started = ContinuousClock.now
        let waiting = Task { await Self.waitForZero(queue, until: ContinuousClock.now + .seconds(30)) }
        try await Self.waiters(1, on: queue)
        queue.update { open, waiters in
            open = 0
            waiters.resumeAll(returning: "closed")
        }
        // "closed", not "deadline": the condition ended the wait. The time only shows the 30 s deadline was
        // far off (a loaded CI machine once took 5.2 s to schedule these tasks, so no tighter bound).
        #expect(await waiting.value == "closed")
        #expect(ContinuousClock.now - started < .seconds(20))
    }

    /// The deadline ends the wait with `timedOut`, not before it, and leaves no waiter behind.
    @Test func theDeadlineEndsTheWait() async {
        let queue = Idle(1)
        let started = ContinuousClock.now
        #expect(await Self.waitForZero(queue, until: started + .milliseconds(50)) == "deadline")
        #expect(ContinuousClock.now - started >= .milliseconds(50))
        #expect(queue.update { $1.count } == 0)
    }

    /// Without a deadline only the condition or a cancellation ends the wait.
    @Test func withoutADeadlineTheWaitLasts() async throws {
        let queue = Idle(1)
        let waiting = Task { await Self.waitForZero(queue, until: nil) }
        try await Self.waiters(1, on: queue)
        try await Task.sleep(for: .milliseconds(50))
        #expect(queue.update { $1.count } == 1, "still waiting")
        waiting.cancel()
        #expect(await waiting.value == "cancelled")
    }

    /// Cancelling a waiting task ends its wait with `cancelled` at once and removes it, so that the next
    /// change resumes nobody.
    @Test func cancellationEndsTheWait() async throws {
        let queue = Idle(1)
        let waiting = Task { await Self.waitForZero(queue, until: ContinuousClock.now + .seconds(30)) }
        try await Self.waiters(1, on: queue)
        let started = ContinuousClock.now
        waiting.cancel()
        #expect(await waiting.value == "cancelled")
        #expect(ContinuousClock.now - started < .seconds(20), "long before the 30 s deadline")
        #expect(queue.update { $1.resumeFirst(returning: "late") } == false)
    }

    /// A task cancelled before it began to wait ends at once, not at its deadline; a condition already
    /// met still wins.
    @Test func aTaskCancelledBeforeWaitingEndsAtOnce() async {
        let queue = Idle(1)
        for _ in 0..<20 {
            let waiting = Task { await Self.waitForZero(queue, until: ContinuousClock.now + .seconds(30)) }
            waiting.cancel()
            #expect(await waiting.value == "cancelled")
        }
        queue.update { open, _ in open = 0 }
        let met = Task { await Self.waitForZero(queue, until: nil) }
        met.cancel()
        #expect(await met.value == "at once")
    }

    /// `resumeFirst` serves the oldest waiter; `resumeAll` the rest, in order.
    @Test func theOldestWaiterIsServedFirst() async throws {
        let queue = Idle(1)
        var tasks: [Task<String, Never>] = []
        for index in 0..<3 {
            tasks.append(Task { await Self.waitForZero(queue, until: ContinuousClock.now + .seconds(30)) })
            try await Self.waiters(index + 1, on: queue)
        }
        #expect(queue.update { $1.resumeFirst(returning: "first") })
        #expect(await tasks[0].value == "first")
        queue.update { $1.resumeAll(returning: "rest") }
        #expect(await tasks[1].value == "rest")
        #expect(await tasks[2].value == "rest")
        #expect(queue.update { $1.resumeFirst(returning: "none") } == false)
    }

    /// A value handed over just as the deadline passes resumes the waiter once: whichever comes first wins,
    /// and the other finds it gone (a second resume of its continuation would trap).
    @Test func aWaiterIsResumedExactlyOnce() async throws {
        let queue = Idle(1)
        for _ in 0..<50 {
            let waiting = Task { await Self.waitForZero(queue, until: ContinuousClock.now + .milliseconds(2)) }
            try? await Task.sleep(for: .milliseconds(2))
            queue.update { $1.resumeAll(returning: "handed") }
            #expect(["handed", "deadline"].contains(await waiting.value))
        }
        #expect(queue.update { $1.count } == 0)
    }
}
