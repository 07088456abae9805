import TapgridSystem
import TapgridSystemd

/// The daemon's side of systemd's notification protocol (`sd_notify`): readiness, reloads,
/// stopping, `STATUS=` and watchdog pings. Without `NOTIFY_SOCKET` (not started by systemd)
/// every call does nothing. A failed notification is logged once, never fatal.
final class ServiceManager {
    private let log: LogSink
    /// Half of `WatchdogSec=` in nanoseconds (systemd wants a ping at least that often), when set.
    let watchdogPingNanos: UInt64?
    private var lastStatus: String?
    private var reportedFailure = false

    init(log: LogSink) {
        self.log = log
        var interval: UInt64? = nil
        do throws(SystemdError) {
            interval = try ServiceNotifier.watchdogMicroseconds()
        } catch {
            log.warning("watchdog: \(error); not pinging systemd")
        }
        watchdogPingNanos = interval.map { max($0 * 1000 / 2, 1_000_000) }
    }

    /// Sends `fields` in one datagram.
    func notify(_ fields: [NotifyField]) {
        do throws(SystemdError) {
            try ServiceNotifier.notify(fields)
        } catch {
            if !reportedFailure { log.warning("cannot notify systemd: \(error)") }
            reportedFailure = true
        }
    }

    /// How often `STATUS=` is brought up to date (taps are counted there, not sent per tap).
    static let statusNanos: UInt64 = 2_000_000_000

    /// Starts the watchdog pings and the status refreshes on the loop.
    /// - Parameter status: the current `STATUS=` text; nil while it should not change (stopping).
    func start(on loop: EventLoop, status: @escaping () -> String?) {
        let refresh = loop.makeTimer(every: Self.statusNanos) { [unowned self] in
            if let text = status() { self.status(text) }
        }
        loop.schedule(refresh, after: Self.statusNanos)
        guard let interval = watchdogPingNanos else { return }
        // WATCHDOG=1 from the loop itself: a loop that stalls stops pinging, and systemd restarts it.
        let ping = loop.makeTimer(every: interval) { [unowned self] in notify([.watchdog]) }
        // The first ping from the loop's first turn: after READY=1, the first thing systemd hears.
        loop.schedule(ping, at: Clock.monotonicNanos())
    }

    /// `READY=1` with the current status.
    func ready(status: String) {
        lastStatus = status
        notify([.ready, .status(status)])
    }

    /// `STATUS=`, when it changed since the last one sent.
    func status(_ text: String) {
        guard text != lastStatus else { return }
        lastStatus = text
        notify([.status(text)])
    }
}
