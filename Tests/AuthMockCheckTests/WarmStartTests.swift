@testable import AuthMockCheck
import AuthMockCore
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A profile's `warm:` process (clients/warm.py behind ``WarmPool``): each case still runs in a process of
/// its own, with its own arguments, environment, directory, output files and process group, judged from its
/// exit as a cold start is; only the interpreter's start-up is shared, and nothing a case does reaches the next.
struct WarmStartTests {
    let warmScript = repositoryRoot.appendingPathComponent("clients/warm.py").path

    func scratch() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("warm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    func pool(in directory: URL, modules: [String] = ["json"]) -> WarmPool {
        WarmPool(
            command: ["python3", warmScript] + modules, environment: ProcessInfo.processInfo.environment,
            workingDirectory: directory.path, logDirectory: directory
        )
    }

    /// Runs `script` (Python source written to the scratch directory) through `pool` as a case would.
    func run(
        _ script: String, _ arguments: [String] = [], in directory: URL, pool: WarmPool?, timeout: Double = 20,
        environment: [String: String] = [:], crash: ClientProfile.CrashSignature = .init()
    ) async throws -> ClientProcess.Result {
        let file = directory.appendingPathComponent("client-\(UUID().uuidString).py")
        try Data(script.utf8).write(to: file)
        let caseDirectory = directory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: caseDirectory, withIntermediateDirectories: true)
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { $1 }
        return try await ClientProcess.run(
            ["python3", file.lastPathComponent] + arguments, environment: env, directory: caseDirectory,
            workingDirectory: directory.path, timeout: timeout, crash: crash, warm: pool
        )
    }

    @Test func theProfileNamesItsWarmProcess() throws {
        let yaml = "name: requests\nwarm: [python3, warm.py, requests]\ncommand: [python3, python-requests.py]\n"
        #expect(try ClientProfileLoader.load(yaml: yaml, file: "requests.yaml").warm == ["python3", "warm.py", "requests"])
        #expect(try ClientProfileLoader.load(yaml: "name: curl\ncommand: [curl]\n", file: "curl.yaml").warm == nil)
        #expect(throws: (any Error).self) {
            try ClientProfileLoader.load(yaml: "name: x\nwarm: python3 warm.py\ncommand: [x]\n", file: "x.yaml")
        }
    }

    /// `jobs:` caps a heavy client's cases at once and `timeout:` is its case limit (a duration).
    @Test func theProfileCapsItsJobsAndSetsItsTimeout() throws {
        let browser = try ClientProfileLoader.load(
            yaml: "name: b\njobs: 2\ntimeout: 20s\ncommand: [b]\n", file: "b.yaml"
        )
        #expect(browser.jobs == 2 && browser.timeout == 20)
        let plain = try ClientProfileLoader.load(yaml: "name: c\ncommand: [c]\n", file: "c.yaml")
        #expect(plain.jobs == nil && plain.timeout == nil)
        for bad in ["jobs: 0", "jobs: 65", "jobs: two", "timeout: -1", "timeout: soon"] {
            #expect(throws: (any Error).self, "\(bad)") {
                try ClientProfileLoader.load(yaml: "name: x\n\(bad)\ncommand: [x]\n", file: "x.yaml")
            }
        }
    }

    @Test func aCaseSeesItsOwnArgumentsEnvironmentDirectoryAndGroup() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let warm = pool(in: directory)
        let script = """
            import os, sys
            print(sys.argv[1:], os.environ.get("GREETING"), os.getcwd() == os.path.realpath(sys.argv[1]))
            print("group leader" if os.getpgid(0) == os.getpid() else "no group", __name__)
            print("to stderr", file=sys.stderr)
            sys.exit(7)
            """
        let real = try #require(realpath(directory.path, nil))
        defer { free(real) }
        let result = try await run(
            script, [String(cString: real)], in: directory, pool: warm, environment: ["GREETING": "hello there"]
        )
        await warm.shutdown()
        #expect(result.outcome.exitStatus == 7)
        #expect(result.stdout == "['\(String(cString: real))'] hello there True\ngroup leader __main__\n")
        #expect(result.stderr == "to stderr\n")
    }

    @Test func casesShareTheWarmProcessAndNothingElse() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let warm = pool(in: directory, modules: ["json", "decimal"])
        // Both children of one warm process, forked (decimal, which only the warm process imported, is there),
        // not exec'd anew; a module attribute set by the first is not seen by the second.
        let script = """
            import json, os, sys
            print(os.getppid(), "decimal" in sys.modules, getattr(json, "left_behind", "clean"))
            json.left_behind = "dirty"
            """
        let first = try await run(script, in: directory, pool: warm)
        let second = try await run(script, in: directory, pool: warm)
        await warm.shutdown()
        let parents = [first, second].map { $0.stdout.split(separator: " ").first.map(String.init) }
        #expect(first.outcome.exitStatus == 0 && second.outcome.exitStatus == 0)
        #expect(parents[0] == parents[1] && parents[0] != String(getpid()))
        #expect(first.stdout.hasSuffix(" True clean\n") && second.stdout.hasSuffix(" True clean\n"))
    }

    @Test func anUncaughtExceptionIsACrashAsInAColdStart() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let crash = ClientProfile.CrashSignature(exitStatuses: [], stderrPrefixes: ["Traceback (most recent call last):"])
        let script = "raise KeyError('SHA-512-256')\n"
        let warm = pool(in: directory)
        let hot = try await run(script, in: directory, pool: warm, crash: crash)
        await warm.shutdown()
        let cold = try await run(script, in: directory, pool: nil, crash: crash)
        #expect(hot.outcome.exitStatus == 1 && cold.outcome.exitStatus == 1)
        #expect(hot.outcome.crash != nil && hot.outcome.crash == cold.outcome.crash)
        #expect(hot.stderr.hasSuffix("KeyError: 'SHA-512-256'\n"))
    }

    @Test func aHangingCaseIsKilledWithItsChildrenAndThePoolGoesOn() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let warm = pool(in: directory)
        let marker = directory.appendingPathComponent("grandchild-survived")
        // A grandchild in the case's group must die with it, as with a cold start.
        let script = """
            import os, subprocess, time
            child = subprocess.Popen(["sh", "-c", "sleep 30 && touch \(marker.path)"])
            print(os.getppid(), os.getpgid(0), os.getpgid(child.pid), child.pid, flush=True)
            time.sleep(60)
            """
        let hung = try await run(script, in: directory, pool: warm, timeout: 0.5)
        #expect(hung.outcome.timedOut && hung.outcome.exitStatus == nil)
        let next = try await run("print('next')\n", in: directory, pool: warm)
        await warm.shutdown()
        #expect(next.outcome.exitStatus == 0 && next.stdout == "next\n")
        // Signalled with the case; reaped by init once it is gone, so give it time (a survivor lives 30 s).
        // No pid when a loaded machine killed the case before it printed, as then there is no grandchild.
        var alive = false
        let printed = hung.stdout.split(separator: " ").dropFirst(3).first?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let grandchild = printed.flatMap({ Int32($0) }) {
            let deadline = ContinuousClock.now.advanced(by: .seconds(10))
            alive = true
            while alive, ContinuousClock.now < deadline {
                alive = kill(grandchild, 0) == 0 && !isZombie(grandchild)
                if alive { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
        // Its parent (the warm process, or authmock for a cold start) and the groups, should this fail.
        #expect(!alive, "parent, groups, grandchild: \(hung.stdout)")
        #expect(!FileManager.default.fileExists(atPath: marker.path), "parent, groups, grandchild: \(hung.stdout)")
    }

    @Test func interpreterOptionsAreExecutedAndOtherProgramsStartCold() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let warm = pool(in: directory)
        func run(_ command: [String]) async throws -> ClientProcess.Result {
            try await ClientProcess.run(
                command, environment: ProcessInfo.processInfo.environment, directory: directory,
                workingDirectory: directory.path, timeout: 10, warm: warm
            )
        }
        // `python3 -c …` is the warm process's program with an option: exec'd by it, still its child.
        let options = try await run(["python3", "-c", "import os, signal; print(os.getppid()); os.kill(os.getpid(), 11)"])
        // Another program (here a shell) never reaches the warm process: the runner starts it itself.
        let shell = try await run(["/bin/sh", "-c", "echo $PPID; kill -SEGV $$"])
        await warm.shutdown()
        #expect(options.outcome.signal == SIGSEGV && shell.outcome.signal == SIGSEGV)
        #expect(options.stdout != "\(getpid())\n" && !options.stdout.isEmpty)
        #expect(shell.stdout == "\(getpid())\n")
    }

    /// A warm process stuck before its fork (here a module's hook; a browser that never starts) is given the
    /// case's time, then killed, and the case starts cold: the warm start costs time, never the verdict.
    @Test func aWarmProcessStuckBeforeTheForkIsKilledAndTheCaseStartsCold() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("import time\ndef authmock_warm_job(job):\n    time.sleep(60)\n".utf8)
            .write(to: directory.appendingPathComponent("stuck.py"))
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = directory.path
        let warm = WarmPool(
            command: ["python3", warmScript, "stuck"], environment: environment, workingDirectory: directory.path,
            logDirectory: directory
        )
        let began = ContinuousClock.now
        // The case's time is the warm process's until it is killed, and the cold start's after: 1 s was too little
        // for python3 to start cold on a loaded CI machine (exit status, not the fall-back, failed the test).
        let result = try await run(
            "import os; print(os.getppid())\n", in: directory, pool: warm, timeout: 4,
            environment: ["PYTHONPATH": directory.path]
        )
        let took = ContinuousClock.now - began
        await warm.shutdown()
        #expect(result.outcome.exitStatus == 0 && result.stdout == "\(getpid())\n")
        // The stuck hook sleeps 60 s: a case that waited for it takes that long, a loaded machine not 30 s.
        #expect(took < .seconds(30), "the case waited for the stuck warm process: \(took)")
    }

    @Test func aWarmCommandThatCannotStartFallsBackToColdStarts() async throws {
        let directory = try scratch()
        defer { try? FileManager.default.removeItem(at: directory) }
        let warm = pool(in: directory, modules: ["no_such_module_anywhere"])
        let first = try await run("import sys; sys.exit(3)\n", in: directory, pool: warm)
        let second = try await run("import os; print(os.getppid())\n", in: directory, pool: warm)
        await warm.shutdown()
        #expect(first.outcome.exitStatus == 3)
        // Cold: the runner itself is the parent.
        #expect(second.stdout == "\(getpid())\n")
        let log = try String(contentsOf: directory.appendingPathComponent("warm-0.stderr"), encoding: .utf8)
        #expect(log.contains("No module named 'no_such_module_anywhere'"))
    }
}
