import Synchronization
import TapgridConfig
import TapgridCore
import TapgridSystem

/// The result of one config load done off the loop thread.
struct LoadResult: Sendable {
    var config: Config?
    /// The secret files it names, read (`ConfigLoader.loadForDaemon`).
    var secrets = ConfigSecrets()
    var diagnostics: Diagnostics
}

/// Loads the config on a short-lived worker thread so the event loop never blocks on disk or
/// parsing, and posts the result back through a mutex-protected inbox plus an eventfd write.
final class Reloader: Sendable {
    private let inbox = Mutex<[LoadResult]>([])
    private let notifier: EventFD.Notifier

    init(notifier: EventFD.Notifier) { self.notifier = notifier }

    /// Starts loading `path`; the result arrives through `takeResults()` after the eventfd fires.
    func start(path: String) {
        Threads.detach { [self] in
            let (config, secrets, diagnostics) = ConfigLoader.loadForDaemon(path: path)
            inbox.withLock { $0.append(LoadResult(config: config, secrets: secrets, diagnostics: diagnostics)) }
            notifier.signal()
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
}
