import TapgridCore
import TapgridInput
import TapgridSystem

/// Touch contacts from every source, socket clients' `down`/`move`/`up`/`cancel` and
/// touchscreens' contacts alike, through the engine's recognizer: timers due at an event's time
/// run first, then the event is recorded and recognized, and the taps it completes go out
/// through the `TapOutput`. Keeps the loop's timer at the recognizer's next one (long press,
/// hold repeat, double-tap window).
final class TouchInput: TouchscreenSink {
    private let output: TapOutput
    private unowned let loop: EventLoop
    private var timer: LoopTimer!
    /// The screen, with `screen` in the config: it may use up a contact that wakes it.
    var screen: Screen?
    /// Taps the recognizer fired (reused between events).
    private var classed: [ClassedTap] = []

    init(output: TapOutput, loop: EventLoop) {
        self.output = output
        self.loop = loop
        timer = loop.makeTimer { [unowned self] in timersDue() }
    }

    /// Keeps the loop's timer at the recognizer's next timer.
    func reschedule() { loop.schedule(timer, at: output.engine.nextTouchDeadline) }

    // MARK: - Socket clients

    /// A socket client's contact event: recognized, recorded, answered with the taps it completed.
    func touch(_ phase: TouchPhase, _ request: Request, id: UnsafeBufferPointer<UInt8>?, _ connection: Connection) {
        let out = connection.output
        var layout: Int? = nil
        if phase == .down || phase == .move {
            guard request.x != nil else {
                ReplyWriter.error(.badRequest, "\"x\" is required", id: id, out)
                return
            }
            guard request.y != nil else {
                ReplyWriter.error(.badRequest, "\"y\" is required", id: id, out)
                return
            }
        }
        if phase == .down, let name = request.layout {
            guard let index = output.engine.layoutIndex(for: name) else {
                ReplyWriter.error(.unknownLayout, output.engine.active.unknownLayout(name), id: id, out)
                return
            }
            layout = index
        }
        let key = ContactKey(stream: connection.number, slot: request.slot ?? 0)
        if phase == .down && output.engine.isDown(key) {
            ReplyWriter.error(.badRequest, "slot \(key.slot) is already down", id: id, out)
            return
        }
        connection.state.touched()
        output.contactsCome(from: connection)
        ReplyWriter.touchStart(id: id, into: out)
        let now = output.clock.monotonic
        runTimers(now: now)
        contact(phase, key: key, x: request.x, y: request.y, layout: layout, layoutName: phase == .down ? request.layout : nil,
                now: now, reply: out)
        ReplyWriter.touchEnd(into: out)
    }

    /// The connection closed: its contacts end, with their cancel records.
    func connectionClosed(_ connection: Connection) {
        let now = output.clock.monotonic
        for key in output.engine.endContacts(stream: connection.number) {
            output.writeTouchRecord(.cancel, key: key, x: nil, y: nil, now: now, layout: nil)
        }
        output.connectionGone(connection)
        screen?.endContacts(stream: connection.number)
        reschedule()
    }

    // MARK: - Touchscreens

    /// A touchscreen's contact, in the device's own fractions: the timers due at its time run
    /// first (a long press that switches layout does so before the point is mapped), then the
    /// point is mapped onto the layout current now and recognized like a socket contact, its
    /// records' `source` the device's name, no reply.
    func touchscreenContact(_ sample: TouchSample, mapping: TouchMapping) -> TouchscreenContact {
        let now = sample.timeMicroseconds &* 1_000
        runTimers(now: now)
        let size = currentLayoutSize
        let mapped = TouchscreenContact(sample, mapping: mapping, width: size.width, height: size.height)
        let phase: TouchPhase
        switch sample.phase {
        case .down: phase = .down
        case .move: phase = .move
        case .up: phase = .up
        case .cancel: phase = .cancel
        }
        let placed = phase != .cancel
        contact(phase, key: ContactKey(stream: output.touchscreenStream(sample.device), slot: Int(sample.slot)),
                x: placed ? mapped.x : nil, y: placed ? mapped.y : nil, layout: nil, layoutName: nil, now: now, reply: nil)
        return mapped
    }

    /// The current layout's width and height, read in place (a copy of the engine or of a
    /// `LoadedLayout` would retain their arrays on every contact).
    var currentLayoutSize: (width: Double, height: Double) {
        let index = output.engine.currentLayout
        return output.engine.active.layouts.withUnsafeBufferPointer { ($0[index].frame.width, $0[index].frame.height) }
    }

    // MARK: - Recognizing

    /// One contact event (timers due before it already ran): recorded and recognized; the taps it
    /// completes are carried out, recorded, and appended to `reply` (a socket client's) as its `taps`.
    private func contact(
        _ phase: TouchPhase, key: ContactKey, x: Double?, y: Double?, layout: Int?, layoutName: String?, now: UInt64,
        reply: ByteBuffer?
    ) {
        if let screen, screen.usesUp(phase, key: key, x: x, y: y, now: now) { return }
        classed.removeAll(keepingCapacity: true)
        do throws(TouchError) {
            try output.engine.touch(phase, key: key, x: x, y: y, layout: layout, now: now, into: &classed)
        } catch {
            return
        }
        output.writeTouchRecord(phase, key: key, x: x, y: y, now: now, layout: layoutName,
                                current: phase == .down ? output.engine.currentLayoutName : nil)
        for index in classed.indices {
            if index > 0 { reply?.append(0x2C) }
            output.emit(&classed[index], reply: reply)
        }
        output.recordEndedContacts(now: now)
        reschedule()
    }

    /// The loop's timer: long presses, hold repeats, ended double-tap windows.
    private func timersDue() {
        runTimers(now: output.clock.monotonic)
        reschedule()
    }

    private func runTimers(now: UInt64) {
        guard !output.engine.touchIsIdle else { return }
        classed.removeAll(keepingCapacity: true)
        output.engine.advanceTouch(to: now, into: &classed)
        for index in classed.indices { output.emit(&classed[index], reply: nil) }
        output.recordEndedContacts(now: now)
    }

    /// Ends every contact in flight (the daemon is stopping, or a new config), with their cancel records.
    func endAllContacts() {
        output.engine.endAllContacts()
        output.recordEndedContacts(now: output.clock.monotonic)
        loop.schedule(timer, at: nil)
    }
}
