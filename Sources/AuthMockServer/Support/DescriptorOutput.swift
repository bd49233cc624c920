#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing to a file descriptor with plain POSIX calls, where Foundation's `FileHandle` (not in
/// FoundationEssentials) was used: the journal file, stdout and stderr.
package struct DescriptorOutput: Sendable {
    package let descriptor: Int32

    package init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// A file created (or truncated) for writing; nil if it cannot be.
    package init?(creating path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
    }

    package static let standardOutput = DescriptorOutput(descriptor: 1)
    package static let standardError = DescriptorOutput(descriptor: 2)

    /// Writes all of `bytes` (retrying short writes and interruptions); false on an error such as a closed
    /// pipe or a full disk.
    @discardableResult
    package func write(_ bytes: some Collection<UInt8>) -> Bool {
        Array(bytes).withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                #if canImport(Glibc)
                let written = Glibc.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #else
                let written = Darwin.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                #endif
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += written
            }
            return true
        }
    }

    package func synchronize() { _ = fsync(descriptor) }

    package func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #else
        _ = Darwin.close(descriptor)
        #endif
    }
}
