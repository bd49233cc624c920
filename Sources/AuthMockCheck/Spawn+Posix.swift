#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `posix_spawn_file_actions_t`: what the child's descriptors become before the program starts.
struct SpawnActions {
    #if canImport(Glibc)
    var value = posix_spawn_file_actions_t()
    #else
    var value: posix_spawn_file_actions_t?
    #endif

    init() { posix_spawn_file_actions_init(&value) }

    mutating func destroy() { posix_spawn_file_actions_destroy(&value) }

    mutating func set(_ target: Int32, _ stream: Spawn.Stream, readOnly: Bool) throws(Spawn.Failure) {
        let code: Int32
        switch stream {
        case .null:
            code = posix_spawn_file_actions_addopen(&value, target, "/dev/null", readOnly ? O_RDONLY : O_WRONLY, 0)
        case .file(let path):
            let flags = readOnly ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC
            code = posix_spawn_file_actions_addopen(&value, target, path, flags, 0o644)
        case .descriptor(let descriptor):
            code = posix_spawn_file_actions_adddup2(&value, descriptor, target)
        }
        guard code == 0 else { throw Spawn.Failure(call: "posix_spawn_file_actions", code: code) }
    }

    /// The child's working directory. glibc has had `posix_spawn_file_actions_addchdir_np` since 2.29, but
    /// Swift's Glibc module does not declare it (it is a GNU extension), so it is looked up by name.
    mutating func changeDirectory(_ path: String) throws(Spawn.Failure) {
        typealias AddChdir = @convention(c) (UnsafeMutableRawPointer, UnsafePointer<CChar>) -> Int32
        guard let symbol = Self.addChdir else {
            throw Spawn.Failure(call: "posix_spawn_file_actions_addchdir_np", code: ENOSYS)
        }
        let function = unsafeBitCast(symbol, to: AddChdir.self)
        let code = withUnsafeMutablePointer(to: &value) { function(UnsafeMutableRawPointer($0), path) }
        guard code == 0 else { throw Spawn.Failure(call: "posix_spawn_file_actions_addchdir_np", code: code) }
    }

    private nonisolated(unsafe) static let addChdir: UnsafeMutableRawPointer? = {
        let process = dlopen(nil, RTLD_NOW)
        return dlsym(process, "posix_spawn_file_actions_addchdir_np")
    }()
}

/// `posix_spawnattr_t`: default signal dispositions, an empty signal mask, optionally a new process group.
struct SpawnAttributes {
    #if canImport(Glibc)
    var value = posix_spawnattr_t()
    #else
    var value: posix_spawnattr_t?
    #endif

    init(newProcessGroup: Bool) {
        posix_spawnattr_init(&value)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigdefault(&value, &all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&value, &none)
        var flags = Int32(POSIX_SPAWN_SETSIGDEF) | Int32(POSIX_SPAWN_SETSIGMASK)
        if newProcessGroup {
            flags |= Int32(POSIX_SPAWN_SETPGROUP)
            posix_spawnattr_setpgroup(&value, 0)
        }
        posix_spawnattr_setflags(&value, Int16(flags))
    }

    mutating func destroy() { posix_spawnattr_destroy(&value) }
}

/// A NULL-terminated array of C strings (argv, envp), freed by `free()`.
struct CStrings {
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init(_ strings: [String]) {
        pointers = .allocate(capacity: strings.count + 1)
        for (index, string) in strings.enumerated() { pointers[index] = strdup(string) }
        pointers[strings.count] = nil
    }

    func release() {
        var index = 0
        while let string = pointers[index] {
            free(string)
            index += 1
        }
        pointers.deallocate()
    }
}

/// A pipe whose two ends are closed on exec (a child gets an end only by `Spawn.Stream.descriptor`, which
/// duplicates it), made under the launch lock so that no launch on another thread inherits it meanwhile.
struct SpawnPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(Spawn.Failure) {
        var descriptors: [Int32] = [-1, -1]
        let code: Int32 = ProcessLauncher.withLaunchLock {
            guard pipe(&descriptors) == 0 else { return errno }
            for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            return 0
        }
        guard code == 0 else { throw Spawn.Failure(call: "pipe", code: code) }
        readEnd = descriptors[0]
        writeEnd = descriptors[1]
    }
}

/// Closes `descriptor` under the launch lock (Foundation's `Process.run()` in tests lists open descriptors).
func closeDescriptor(_ descriptor: Int32) {
    ProcessLauncher.withLaunchLock { _ = close(descriptor) }
}
