import CShims
@preconcurrency import Glibc

/// How a child process ended.
public enum ChildExitStatus: Hashable, Sendable, CustomStringConvertible {
    /// It called `exit(code)` (or returned from `main`).
    case exited(CInt)
    /// A signal killed it (see `Signals.name`).
    case signaled(CInt)

    /// Decodes a `waitpid` status word. The corresponding C macros are `WIFEXITED`,
    /// `WEXITSTATUS`, `WIFSIGNALED` and `WTERMSIG`.
    /// - Returns: `nil` for a stopped/continued report (not requested by `reap`).
    public init?(waitStatus status: CInt) {
        if cshims_wifexited(status) != 0 {
            self = .exited(cshims_wexitstatus(status))
        } else if cshims_wifsignaled(status) != 0 {
            self = .signaled(cshims_wtermsig(status))
        } else {
            return nil
        }
    }

    /// `exit 3` or `killed by SIGKILL`.
    public var description: String {
        switch self {
        case .exited(let code): return "exit \(code)"
        case .signaled(let signal): return "killed by \(Signals.name(signal))"
        }
    }
}

/// A started child: its pid, a pidfd (readable when it exits) and the read ends of its stdout
/// and stderr pipes (non-blocking, close-on-exec). The child is the leader of its own process
/// group (pgid == pid). Fields can be consumed one by one (`let out = child.stdout`).
@frozen
public struct SpawnedChild: ~Copyable {
    /// The child's pid, also its process group id.
    public let pid: pid_t
    /// Becomes readable when the child exits; register it in `Epoll`, then `Spawn.reap`.
    public var pidfd: OwnedFD
    /// Read end of the child's stdout pipe. Drain it while the child runs.
    public var stdout: OwnedFD
    /// Read end of the child's stderr pipe. Drain it while the child runs.
    public var stderr: OwnedFD
}

/// Starting, signalling and reaping children, without `Foundation.Process`.
public enum Spawn {
    /// Starts `arguments[0]` with `arguments` and exactly `environment`, without a shell.
    ///
    /// The child gets: stdin from `/dev/null`; stdout/stderr to fresh pipes; an empty signal
    /// mask and default dispositions for every signal (undoing the daemon's blocked SIGTERM/
    /// SIGCHLD and ignored SIGPIPE); its own process group; no descriptor above 2
    /// (`closefrom(3)`); `workingDirectory` if given (the daemon itself never `chdir`s).
    /// A name without `/` is looked up in the `PATH` entry of `environment` (else the daemon's
    /// own `PATH`, else `/usr/local/bin:/usr/bin:/bin`), like `execvp`.
    /// glibc's `posix_spawn` reports exec failures (e.g. `ENOENT`) synchronously, as its
    /// return value. The corresponding C functions are `posix_spawn`, `pipe2` and `pidfd_open`.
    /// - Parameters:
    ///   - arguments: argv; must not be empty.
    ///   - environment: `NAME=value` strings, the child's whole environment.
    ///   - workingDirectory: the child's current directory, or `nil` for the daemon's.
    /// - Returns: the child, which the caller must eventually `reap`.
    /// - Throws: `SystemError`, e.g. `cannot spawn nosuch: No such file or directory (errno 2)`.
    public static func run(
        _ arguments: [String], environment: [String], workingDirectory: String? = nil
    ) throws(SystemError) -> SpawnedChild {
        precondition(!arguments.isEmpty, "Spawn.run needs at least the program name")
        let program = arguments[0]
        let executable = try resolve(program, environment: environment)
        if let workingDirectory, !Files.isDirectory(workingDirectory) {
            throw SystemError(Errno(ENOTDIR), operation: "use working directory", path: workingDirectory)
        }

        let out = try makePipe(program)
        let err = try makePipe(program)

        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        var empty = sigset_t()
        sigemptyset(&empty)
        var defaults = allSignalsButKillAndStop()
        posix_spawnattr_setsigmask(&attr, &empty)
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setpgroup(&attr, 0)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var rc = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if rc == 0 { rc = posix_spawn_file_actions_adddup2(&actions, out.write.rawValue, 1) }
        if rc == 0 { rc = posix_spawn_file_actions_adddup2(&actions, err.write.rawValue, 2) }
        if rc == 0, let workingDirectory { rc = cshims_spawn_addchdir(&actions, workingDirectory) }
        if rc == 0 { rc = cshims_spawn_addclosefrom(&actions, 3) }
        if rc != 0 { throw Errno(rc).with("spawn", program) }

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for p in argv { free(p) }
            for p in envp { free(p) }
        }
        var pid: pid_t = 0
        rc = posix_spawn(&pid, executable, &actions, &attr, argv, envp)
        if rc != 0 { throw Errno(rc).with("spawn", program) }
        // Our copies of the write ends must go, or the pipes never report end of file.
        _ = consume out.write
        _ = consume err.write

        let pidfd: OwnedFD
        do throws(Errno) {
            pidfd = try retryingEINTR { cshims_pidfd_open(pid) }.ownedFD
        } catch {
            // Without a pidfd the caller cannot supervise the child: stop it and reap it now.
            _ = kill(-pid, SIGKILL)
            var status: CInt = 0
            _ = waitpid(pid, &status, 0)
            throw error.with("open a pidfd for", program)
        }
        return SpawnedChild(pid: pid, pidfd: pidfd, stdout: out.read, stderr: err.read)
    }

    /// Sends `signal` to every process in group `pgid` (the child and anything it started that
    /// stayed in its group). The corresponding C function is `kill(-pgid, signal)`.
    /// - Throws: `Errno` (`ESRCH` when the group is empty).
    public static func killGroup(_ pgid: pid_t, signal: CInt) throws(Errno) {
        precondition(pgid > 1, "killGroup needs a real process group id, got \(pgid)")
        _ = try retryingEINTR { kill(-pgid, signal) }
    }

    /// Collects the exit status of child `pid` if it has ended, without blocking.
    /// The corresponding C function is `waitpid(pid, &status, WNOHANG)`.
    /// - Returns: how it ended, or `nil` while it is still running.
    /// - Throws: `Errno` (`ECHILD` if it is not our child or was already reaped).
    public static func reap(_ pid: pid_t) throws(Errno) -> ChildExitStatus? {
        var status: CInt = 0
        let got = try retryingEINTR { waitpid(pid, &status, WNOHANG) }
        if got == 0 { return nil }
        return ChildExitStatus(waitStatus: status)
    }

    /// Every signal 1...64 except SIGKILL and SIGSTOP, *including* glibc's internal signals 32
    /// and 33 (SIGCANCEL, SIGSETXID). `sigfillset`/`sigaddset` leave those two out, and glibc's
    /// spawn helper then sets them to SIG_IGN in the child when the parent has handlers for them
    /// (any threaded Swift process does); SIG_IGN survives `exec`, so the child would start with
    /// two ignored real-time signals. The bits are set directly (signal n is bit n-1), which
    /// `posix_spawnattr_setsigdefault` copies as given.
    static func allSignalsButKillAndStop() -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        var bits: UInt64 = ~0
        bits &= ~(UInt64(1) << UInt64(SIGKILL - 1))
        bits &= ~(UInt64(1) << UInt64(SIGSTOP - 1))
        withUnsafeMutableBytes(of: &set) { $0.storeBytes(of: bits, as: UInt64.self) }
        return set
    }

    /// Finds the file `execvp` would run for `program`.
    static func resolve(_ program: String, environment: [String]) throws(SystemError) -> String {
        if program.isEmpty { throw SystemError(Errno(ENOENT), operation: "spawn", path: "\"\"") }
        if program.utf8.contains(UInt8(ascii: "/")) { return program }
        let searchPath =
            environment.last(where: { $0.hasPrefix("PATH=") }).map { String($0.dropFirst(5)) }
            ?? CurrentProcess.environment("PATH") ?? "/usr/local/bin:/usr/bin:/bin"
        var sawDenied = false
        for dir in searchPath.split(separator: ":", omittingEmptySubsequences: false) {
            let candidate = (dir.isEmpty ? "." : String(dir)) + "/" + program
            var st = stat()
            guard stat(candidate, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { continue }
            if access(candidate, X_OK) == 0 { return candidate }
            sawDenied = true
        }
        throw SystemError(Errno(sawDenied ? EACCES : ENOENT), operation: "spawn", path: program)
    }

    private struct Pipe: ~Copyable {
        var read: OwnedFD
        var write: OwnedFD
    }

    /// A pipe with both ends close-on-exec and the read end non-blocking.
    private static func makePipe(_ program: String) throws(SystemError) -> Pipe {
        var fds: (CInt, CInt) = (-1, -1)
        let rc = withUnsafeMutablePointer(to: &fds) {
            $0.withMemoryRebound(to: CInt.self, capacity: 2) { cshims_pipe2($0, O_CLOEXEC) }
        }
        if rc != 0 { throw Errno.current.with("create a pipe for", program) }
        let pipe = Pipe(read: OwnedFD(taking: fds.0), write: OwnedFD(taking: fds.1))
        do throws(Errno) { try FD.setNonBlocking(pipe.read.rawValue) } catch { throw error.with("create a pipe for", program) }
        return pipe
    }
}

extension CInt {
    fileprivate var ownedFD: OwnedFD { OwnedFD(taking: self) }
}
