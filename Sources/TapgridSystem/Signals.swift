@preconcurrency import Glibc

/// Signal masks and names.
public enum Signals {
    /// The signal numbers the daemon handles or sends, so callers need not import Glibc.
    public static let hangup = SIGHUP, interrupt = SIGINT, terminate = SIGTERM, kill = SIGKILL
    public static let user1 = SIGUSR1, child = SIGCHLD, stop = SIGSTOP, cont = SIGCONT

    /// Blocks `signals` in the calling thread; threads created afterwards inherit the mask.
    ///
    /// Call this in `main` *before any other thread exists* for the signals a `SignalFD` reads:
    /// `signalfd` only sees a signal that is blocked in every thread, otherwise the kernel may
    /// deliver it to an unblocked thread (default action: often termination).
    /// The corresponding C function is `pthread_sigmask(SIG_BLOCK)`.
    /// - Throws: `Errno` (returned by `pthread_sigmask`, not set in `errno`).
    public static func block(_ signals: [CInt]) throws(Errno) {
        try change(SIG_BLOCK, signals)
    }

    /// Unblocks `signals` in the calling thread (tests restoring their mask).
    /// The corresponding C function is `pthread_sigmask(SIG_UNBLOCK)`.
    /// - Throws: `Errno` returned by `pthread_sigmask`.
    public static func unblock(_ signals: [CInt]) throws(Errno) {
        try change(SIG_UNBLOCK, signals)
    }

    /// Whether `signal` is blocked in the calling thread. The C function is `pthread_sigmask`.
    public static func isBlocked(_ signal: CInt) -> Bool {
        var current = sigset_t()
        pthread_sigmask(SIG_BLOCK, nil, &current)
        return sigismember(&current, signal) == 1
    }

    private static func change(_ how: CInt, _ signals: [CInt]) throws(Errno) {
        var set = makeSet(signals)
        let rc = pthread_sigmask(how, &set, nil)
        if rc != 0 { throw Errno(rc) }
    }

    static func makeSet(_ signals: [CInt]) -> sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        for s in signals { sigaddset(&set, s) }
        return set
    }

    /// Sets `SIGPIPE` to ignored, process-wide, so a write to a vanished peer returns `EPIPE`
    /// instead of killing the daemon. Children get it back to default (`Spawn` uses
    /// `POSIX_SPAWN_SETSIGDEF`). The corresponding C function is `signal`.
    public static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// The conventional name of a signal number: `SIGKILL` for 9, `SIGRTMIN+2` for a real-time
    /// signal, `SIG<n>` for anything unknown. Used in event-log records (`"signal": "SIGKILL"`).
    public static func name(_ signal: CInt) -> String {
        switch signal {
        case SIGHUP: return "SIGHUP"
        case SIGINT: return "SIGINT"
        case SIGQUIT: return "SIGQUIT"
        case SIGILL: return "SIGILL"
        case SIGTRAP: return "SIGTRAP"
        case SIGABRT: return "SIGABRT"
        case SIGBUS: return "SIGBUS"
        case SIGFPE: return "SIGFPE"
        case SIGKILL: return "SIGKILL"
        case SIGUSR1: return "SIGUSR1"
        case SIGSEGV: return "SIGSEGV"
        case SIGUSR2: return "SIGUSR2"
        case SIGPIPE: return "SIGPIPE"
        case SIGALRM: return "SIGALRM"
        case SIGTERM: return "SIGTERM"
        case SIGSTKFLT: return "SIGSTKFLT"
        case SIGCHLD: return "SIGCHLD"
        case SIGCONT: return "SIGCONT"
        case SIGSTOP: return "SIGSTOP"
        case SIGTSTP: return "SIGTSTP"
        case SIGTTIN: return "SIGTTIN"
        case SIGTTOU: return "SIGTTOU"
        case SIGURG: return "SIGURG"
        case SIGXCPU: return "SIGXCPU"
        case SIGXFSZ: return "SIGXFSZ"
        case SIGVTALRM: return "SIGVTALRM"
        case SIGPROF: return "SIGPROF"
        case SIGWINCH: return "SIGWINCH"
        case SIGIO: return "SIGIO"
        case SIGPWR: return "SIGPWR"
        case SIGSYS: return "SIGSYS"
        default:
            // SIGRTMIN/SIGRTMAX are glibc functions (the C library reserves the first few).
            let rtmin = __libc_current_sigrtmin(), rtmax = __libc_current_sigrtmax()
            if signal == rtmin { return "SIGRTMIN" }
            if signal > rtmin && signal <= rtmax { return "SIGRTMIN+\(signal - rtmin)" }
            return "SIG\(signal)"
        }
    }
}
