import AuthMockCore
import Foundation

/// Appends journal entries to a file as JSON lines, off the event loop.
///
/// Writes go through a serial queue, so an event loop only pays for enqueueing; ``close()`` drains the
/// queue and syncs the file, which is how shutdown guarantees that no entry is lost.
final class JournalFile: Sendable {
    private let queue = DispatchQueue(label: "authmock.journal")
    private let handle: FileHandle

    init(path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw JournalFileError(path: path)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw JournalFileError(path: path) }
        self.handle = handle
    }

    func append(_ entry: JournalEntry) {
        queue.async { [handle] in
            handle.write(Data((entry.jsonLine() + "\n").utf8))
        }
    }

    /// Waits for every queued entry to be written, then syncs and closes the file.
    func close() {
        queue.sync { [handle] in
            try? handle.synchronize()
            try? handle.close()
        }
    }
}

struct JournalFileError: Error, CustomStringConvertible {
    var path: String
    var description: String { "cannot write the journal to \(path)" }
}
