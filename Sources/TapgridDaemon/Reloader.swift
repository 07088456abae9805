@preconcurrency import Glibc
import Synchronization
import TapgridConfig
import TapgridCore
import TapgridSystem

/// The result of one config load done off the loop thread.
struct LoadResult: Sendable {
    var config: Config?
    var diagnostics: Diagnostics
}

/// Loads the config on a short-lived detached pthread so the event loop never blocks on disk
/// or parsing, and posts the result back through a mutex-protected inbox plus an eventfd write.
///
/// The thread inherits the loop's blocked signal mask (it is created after `main` blocked them),
/// so signals keep arriving only through the signalfd.
final class Reloader: Sendable {
    private let inbox = Mutex<[LoadResult]>([])
    private let notifier: EventFD.Notifier

    init(notifier: EventFD.Notifier) { self.notifier = notifier }

    /// Starts loading `path` in the background; the result arrives via `takeResults()` after the
    /// eventfd fires. Falls back to loading inline if no thread can be created.
    func start(path: String) {
        let job = Job(path: path, reloader: self)
        let box = Unmanaged.passRetained(job).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let job = Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue()
                job.run()
                return nil
            }, box)
        if rc == 0 {
            pthread_detach(thread)
        } else {
            Unmanaged<Job>.fromOpaque(box).release()
            job.run()
        }
    }

    /// The results posted since the last call, oldest first.
    func takeResults() -> [LoadResult] {
        inbox.withLock { pending in
            let taken = pending
            pending.removeAll()
            return taken
        }
    }

    fileprivate func post(_ result: LoadResult) {
        inbox.withLock { $0.append(result) }
        notifier.signal()
    }

    /// The work handed to the thread.
    private final class Job: Sendable {
        let path: String
        let reloader: Reloader
        init(path: String, reloader: Reloader) {
            self.path = path
            self.reloader = reloader
        }
        func run() {
            let (config, diagnostics) = ConfigLoader.load(path: path)
            reloader.post(LoadResult(config: config, diagnostics: diagnostics))
        }
    }
}
