@preconcurrency import Glibc

/// Detached worker threads for the few jobs that must not block the event loop (config loads).
public enum Threads {
    /// Runs `job` on a new detached thread; runs it on the calling thread when no thread can be
    /// created (the job still happens, only later than the loop would like).
    /// The new thread inherits the caller's signal mask, so signals the loop reads through its
    /// signalfd stay blocked there too. The corresponding C function is `pthread_create`.
    public static func detach(_ job: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(JobBox(job)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                Unmanaged<JobBox>.fromOpaque(raw!).takeRetainedValue().job()
                return nil
            }, box)
        if rc == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<JobBox>.fromOpaque(box).takeRetainedValue().job()
        }
    }

    private final class JobBox: Sendable {
        let job: @Sendable () -> Void
        init(_ job: @escaping @Sendable () -> Void) { self.job = job }
    }
}
