import TapgridCore
import TapgridInput
import TapgridSystem

/// One touchscreen contact in layout units: what the recognizer takes, like a socket client's
/// `down`/`move`/`up`/`cancel`.
struct TouchscreenContact: Equatable {
    typealias Phase = TouchSample.Phase
    var phase: Phase
    /// libinput's seat slot: one number per finger down across every touchscreen read.
    var slot: Int32
    /// Layout units of the layout that was current when the contact was read.
    var x: Double
    var y: Double
    /// The kernel's timestamp of the event, `CLOCK_MONOTONIC` nanoseconds (the clock of
    /// `Clock.monotonicNanos()`).
    var timeNanos: UInt64
    /// The device's name as libinput reports it (`libinput_device_get_name`): the contact's and
    /// its taps' `source`.
    var source: String
}

/// The touchscreen input: a `TouchscreenReader` on the event loop, its
/// positions mapped to the current layout with `touch.rotation` and `touch.calibration`, each
/// contact handed to `onContact`.
///
/// Never stops the daemon: a context that cannot be made, a missing device or one it may not
/// open is a warning (once per device and cause) and the socket keeps serving. Configured paths
/// that are missing or vanished are tried again every `TouchscreenReader.retryInterval` on a
/// loop timer. With `--verbose`, one debug line per contact:
/// `touch down slot 0 (120, 340) from "Fake Touchscreen"`.
///
/// The daemon makes one at start and calls `configure` with the config's `touch` (and again
/// with a reloaded config's: same devices keep their reader, only the mapping changes).
final class TouchscreenInput: LoopHandler {
    /// Unowned: the loop holds this object as the handler of its registration and outlives it; a
    /// strong reference back made a cycle that `make asan` reported as leaked (the tests' loops).
    private unowned let loop: EventLoop
    private let log: LogSink
    /// The current layout's width and height (the daemon's engine knows it).
    private let layoutSize: () -> (width: Double, height: Double)
    /// Where contacts go (the recognizer).
    @exclusivity(unchecked) var onContact: (TouchscreenContact) -> Void
    private(set) var config: TouchConfig?
    // Read per contact: unchecked, as the loop owns this object and nothing re-enters it.
    @exclusivity(unchecked) private var mapping = TouchMapping()
    @exclusivity(unchecked) private var reader: TouchscreenReader?
    /// The reader's descriptor's registration with the loop.
    private var registration: LoopRegistration?
    /// Looks for missing configured paths again (made on first use).
    private var retryTimer: LoopTimer?
    /// Contacts cancelled during the current read, by device name: the reader cancels the
    /// contacts still down on a device that goes away (libinput's `TOUCH_CANCEL`, or its own)
    /// right before it reports the removal, in the same read.
    private var cancelledThisRead: [String: Int] = [:]

    init(loop: EventLoop, log: LogSink, layoutSize: @escaping () -> (width: Double, height: Double),
         onContact: @escaping (TouchscreenContact) -> Void) {
        self.loop = loop
        self.log = log
        self.layoutSize = layoutSize
        self.onContact = onContact
    }

    /// The touchscreens open now.
    var devices: [TouchscreenDevice] { reader?.devices ?? [] }
    /// Whether a libinput context is open (a `touch` config whose context could be made).
    var isReading: Bool { reader != nil }
    /// Whether configured paths are being looked for again (the retry timer is armed).
    var isRetrying: Bool { retryTimer.map { loop.dueTime($0) != nil } ?? false }

    /// Reads what `touch` says: nil closes everything; the same devices or seat as now only
    /// change the mapping (contacts in flight keep their reader); other devices replace the
    /// reader. Problems are logged, never thrown.
    func configure(_ touch: TouchConfig?) {
        defer { config = touch }
        mapping = touch?.mapping ?? TouchMapping()
        guard let touch else {
            close()
            return
        }
        if reader != nil && config?.source == touch.source { return }
        close()
        let backend: TouchscreenReader.Backend
        switch touch.source {
        case .devices(let paths): backend = .paths(paths)
        case .seat(let seat): backend = .seat(seat)
        }
        let made: TouchscreenReader
        do throws(InputError) {
            made = try TouchscreenReader(backend: backend)
        } catch {
            log.warning("touchscreens cannot be read: \(error)")
            return
        }
        do throws(Errno) {
            registration = try loop.register(made.fd, events: .readable, handler: self)
        } catch {
            log.warning("touchscreens cannot be read: cannot watch libinput's descriptor: \(error)")
            return
        }
        reader = made
        // libinput queued DEVICE_ADDED (and we, the problems) without making its fd readable.
        readEvents(retrying: false)
    }

    /// Stops reading: the reader's devices are closed (contacts in flight are not finished here;
    /// the recognizer cancels what it holds when it is told).
    func close() {
        if let registration { loop.unregister(registration) }
        registration = nil
        reader = nil
        disarmRetry()
    }

    func handle(token: UInt64, events: EpollEvents) { readEvents(retrying: false) }

    private func readEvents(retrying: Bool) {
        guard let reader else { return }
        cancelledThisRead.removeAll(keepingCapacity: true)
        do throws(InputError) {
            if retrying {
                try reader.retry { event in handle(event) }
            } else {
                try reader.read { event in handle(event) }
            }
        } catch {
            // libinput itself failed (not one device): say so once and stop reading.
            log.warning("touchscreens: \(error); no longer reading them")
            close()
            return
        }
        if reader.isWaitingForDevices { armRetry() } else { disarmRetry() }
    }

    private func handle(_ event: TouchscreenEvent) {
        switch event {
        case .contact(let sample):
            if sample.phase == .cancel { cancelledThisRead[sample.device, default: 0] += 1 }
            deliver(sample)
        case .added(let device): log.info("touchscreen \(device) added: \(device.summary)")
        case .removed(let device):
            // Its contacts in flight are already cancelled (no tap, no long press or hold later).
            let cancelled = cancelledThisRead.removeValue(forKey: device.name) ?? 0
            let contacts = cancelled > 0 ? " with \(counted(cancelled, "contact")) down, cancelled" : ""
            let waiting = device.configuredPath != nil ? "; waiting for it to return" : ""
            log.warning("touchscreen \(device) removed\(contacts)\(waiting)")
        case .problem(let problem): log.warning(problem.description)
        }
    }

    /// One contact: mapped onto the current layout, logged with --verbose, handed to `onContact`.
    func deliver(_ sample: TouchSample) {
        let size = layoutSize()
        let point = mapping.layoutPoint(x: sample.x, y: sample.y, width: size.width, height: size.height)
        let contact = TouchscreenContact(
            phase: sample.phase, slot: sample.slot, x: point.x, y: point.y,
            timeNanos: sample.timeMicroseconds &* 1_000, source: sample.device)
        log.debug("touch \(contact.phase.name) slot \(contact.slot) (\(formatNumber(contact.x)), \(formatNumber(contact.y))) from \"\(contact.source)\"")
        onContact(contact)
    }

    // MARK: - Retrying missing paths

    private static let retryNanos = UInt64(TouchscreenReader.retryInterval.components.seconds) * 1_000_000_000

    /// Schedules the next look for missing paths, unless one is scheduled (`readEvents` after a
    /// retry schedules the next while paths are still missing).
    private func armRetry() {
        let timer = retryTimer ?? loop.makeTimer { [unowned self] in readEvents(retrying: true) }
        retryTimer = timer
        if loop.dueTime(timer) == nil { loop.schedule(timer, after: Self.retryNanos) }
    }

    private func disarmRetry() {
        if let retryTimer { loop.schedule(retryTimer, at: nil) }
    }
}

extension TapService {
    /// The current layout's width and height, for `TouchscreenInput`'s `layoutSize`: read in place
    /// (a copy of the engine or of a `LoadedLayout` would retain their arrays on every contact).
    var currentLayoutSize: (width: Double, height: Double) {
        let index = engine.currentLayout
        return engine.active.layouts.withUnsafeBufferPointer { ($0[index].frame.width, $0[index].frame.height) }
    }
}
