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

extension TouchscreenContact {
    /// `sample` in layout units: `mapping` (calibration, then rotation) onto a layout of `width`
    /// by `height`, the time in nanoseconds.
    init(_ sample: TouchSample, mapping: TouchMapping, width: Double, height: Double) {
        let point = mapping.layoutPoint(x: sample.x, y: sample.y, width: width, height: height)
        self.init(phase: sample.phase, slot: sample.slot, x: point.x, y: point.y, timeNanos: sample.timeMicroseconds &* 1_000,
                  source: sample.device)
    }
}

/// Where a touchscreen's contacts go (the daemon's `TouchInput`): it runs the recognizer's timers
/// due by the contact's time, maps the sample onto the layout current then, and recognizes it.
protocol TouchscreenSink: AnyObject {
    /// - Returns: the contact as mapped (for the `--verbose` line).
    func touchscreenContact(_ sample: TouchSample, mapping: TouchMapping) -> TouchscreenContact
}

/// The touchscreen input: a `TouchscreenReader` on the event loop, each contact handed to the
/// `TouchscreenSink` with the mapping of `touch.rotation` and `touch.calibration`.
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
    /// Where contacts go (the recognizer).
    private let sink: TouchscreenSink
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

    init(loop: EventLoop, log: LogSink, sink: TouchscreenSink) {
        self.loop = loop
        self.log = log
        self.sink = sink
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

    /// One contact: handed to the sink with the mapping, logged with --verbose as it was mapped.
    func deliver(_ sample: TouchSample) {
        let contact = sink.touchscreenContact(sample, mapping: mapping)
        log.debug("touch \(contact.phase.name) slot \(contact.slot) (\(formatNumber(contact.x)), \(formatNumber(contact.y))) from \"\(contact.source)\"")
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
