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
    /// The icon set the panel draws from (docs/panel.md "What a cell shows"): read for every
    /// config with `panel` (a `set` or a pushed layout may name an icon the config does not),
    /// so configs without a panel read no font.
    var icons: IconSet?

    /// Loads `path` as the daemon does (`ConfigLoader.loadForDaemon`), then its icons: an
    /// `iconFont` that cannot be read is an error, Debian's font missing a warning.
    static func load(path: String) -> LoadResult {
        let (config, secrets, diagnostics) = ConfigLoader.loadForDaemon(path: path)
        var result = LoadResult(config: config, secrets: secrets, diagnostics: diagnostics)
        guard let config, config.panel != nil, !diagnostics.hasErrors else { return result }
        let (icons, problems) = ConfigLoader.readIcons(for: config)
        result.icons = icons
        // Debian's font missing is said only to a config that draws icons of its own; for the
        // others, icons named later (set, pushed layouts) show as their labels, as the docs say.
        let usesIcons = config.layouts.contains { layout in layout.tree.looks.contains { $0.icon != nil } }
        if usesIcons || config.iconFont != nil { result.diagnostics.append(contentsOf: problems) }
        if result.diagnostics.hasErrors { result.config = nil }
        return result
    }
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
            let result = LoadResult.load(path: path)
            inbox.withLock { $0.append(result) }
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
