import AuthMockCore
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch

/// Appends journal entries to a file as JSON lines, off the event loop.
///
/// Writes go through a serial queue, so an event loop only pays for enqueueing; ``close()`` drains the
/// queue and syncs the file, which is how shutdown guarantees that no entry is lost.
final class JournalFile: @unchecked Sendable {
    private let queue = DispatchQueue(label: "authmock.journal")
    private let handle: DescriptorOutput
    /// Only touched on `queue`.
    private var closed = false

    init(path: String) throws {
        guard let handle = DescriptorOutput(creating: path) else { throw JournalFileError(path: path) }
        self.handle = handle
    }

    /// Queues an entry. Call it in the order entries are decided (under the engine lock), so that
    /// the file keeps `seq` order.
    func append(_ entry: JournalEntry) {
        queue.async { [self] in
            // A full disk or a closed pipe must not take the server down: the in-memory journal still has it.
            guard !closed else { return }
            handle.write((entry.jsonLine() + "\n").utf8)
        }
    }

    /// Waits for every queued entry to be written, then syncs and closes the file.
    func close() {
        queue.sync { [self] in
            guard !closed else { return }
            closed = true
            handle.synchronize()
            handle.close()
        }
    }
}
