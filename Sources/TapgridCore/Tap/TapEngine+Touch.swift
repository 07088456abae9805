/// Which contact: the stream it came from (a socket connection's number, or a touchscreen's
/// negative id) and its slot there, so two connections' slot 0 are two fingers.
public struct ContactKey: Hashable, Sendable {
    public var stream: Int
    public var slot: Int

    public init(stream: Int, slot: Int) {
        self.stream = stream
        self.slot = slot
    }
}

/// A contact event's phase.
public enum TouchPhase: Int, Sendable, NamedCase {
    case down, move, up, cancel

    public var name: StaticString {
        switch self {
        case .down: return "down"
        case .move: return "move"
        case .up: return "up"
        case .cancel: return "cancel"
        }
    }
}

/// A tap the recognizer fired, with where it was.
public struct ClassedTap: Sendable, Equatable {
    public var decision: TapDecision
    public var x: Double
    public var y: Double
    /// The contact that made it (for a double, the second one).
    public var key: ContactKey
    /// Which press (the engine numbers every accepted `down` from 1) made it.
    public var press: Int

    /// A slider's value for a `change` or `release`; nil for every other tap.
    public var value: Double? { decision.value }
}

/// One contact in flight.
struct Contact {
    enum Stage: Equatable {
        /// Down, within slop: may become a tap, or long/hold at `due`.
        case pressed
        /// `long` fired: the release does nothing.
        case longFired
        /// `hold` fires at `due`, then every `repeatMs`.
        case holding
        /// Moved past slop: no class at all, whatever follows.
        case void
        /// Went down on a slider: `change` as it moves, `release` when it lifts, wherever it is.
        case sliding
    }
    var layout: Int
    var explicitLayout: Bool
    /// The pressed grid (nil: the down hit nothing).
    var target: TapTarget?
    var classes: ClassHandlers
    var downX: Double, downY: Double
    var lastX: Double, lastY: Double
    var stage: Stage
    /// When its next timer fires (long press, hold repeat); nil for none.
    var due: UInt64?
    /// Its number among the engine's presses.
    var press: Int
    /// The slider it went down on (stage `.sliding`), else nil.
    var slide: Slide? = nil
}

/// A contact's slider and its `change`s so far (docs/touch.md "Sliders").
struct Slide {
    var place: SliderPlace
    /// The value of its last `change`; nil before the first.
    var sent: Double?
    /// When its last `change` fired.
    var sentAt: UInt64?
    /// A value held back by `changeMs`, with its point: fired at the contact's `due`.
    var held: (value: Double, x: Double, y: Double)?
}

/// A tap on a grid that routes `double`, waiting `doubleTapMs` for a second tap.
struct DoubleKey: Hashable {
    var layout: Int
    var grid: Int
}

struct DoubleWait {
    var target: TapTarget
    var explicitLayout: Bool
    var x: Double, y: Double
    var key: ContactKey
    var press: Int
    var deadline: UInt64
}

/// Why a contact event was refused.
public enum TouchError: Error, Equatable, Sendable {
    /// `down` on a slot that is already down.
    case slotAlreadyDown(Int)
    /// `down` without coordinates.
    case missingPosition
}

/// The recognizer of tap classes (docs/touch.md "Touch contacts and tap classes"): driven only by the
/// times it is given, so every rule is tested in-process without sleeping (`TouchRecognizerTests`),
/// and `replay` runs it again on recorded timing. The daemon arms a deadline at
/// `nextTouchDeadline` and calls `advanceTouch(to:)` when it passes.
extension TapEngine {
    /// The next time a long press, a hold repeat or the end of a double-tap window is due.
    public var nextTouchDeadline: UInt64? {
        var next: UInt64? = nil
        for contact in contacts.values { if let due = contact.due, due < (next ?? .max) { next = due } }
        for wait in doubleWaits.values where wait.deadline < (next ?? .max) { next = wait.deadline }
        return next
    }

    /// Whether the contact is down (a `down` for it would be refused).
    public func isDown(_ key: ContactKey) -> Bool { contacts[key] != nil }

    /// Whether any contact is down or any tap waits for its double.
    public var touchIsIdle: Bool { contacts.isEmpty && doubleWaits.isEmpty }

    /// Applies one contact event at `now` (timers due before it first, in order).
    /// - Parameters:
    ///   - layout: for `down`, the layout it is aimed at (nil: the current one).
    ///   - taps: receives the taps fired, timers' first; `completed` counts those this very event made.
    /// - Returns: how many of the appended taps this event itself completed (an `up` that ends a
    ///   tap or a double), which its reply carries.
    @discardableResult
    public mutating func touch(
        _ phase: TouchPhase, key: ContactKey, x: Double?, y: Double?, layout: Int?, now: UInt64,
        into taps: inout [ClassedTap]
    ) throws(TouchError) -> Int {
        advanceTouch(to: now, into: &taps)
        let before = taps.count
        switch phase {
        case .down:
            guard let x, let y else { throw .missingPosition }
            guard contacts[key] == nil else { throw .slotAlreadyDown(key.slot) }
            let index = layout ?? currentLayout
            let target = active.target(layout: index, x: x, y: y)
            presses += 1
            if let target, let place = active.slider(layout: index, grid: target.grid) {
                // The down itself sends nothing; long, hold and double do not apply.
                contacts[key] = Contact(
                    layout: index, explicitLayout: layout != nil, target: target, classes: ClassHandlers(), downX: x, downY: y,
                    lastX: x, lastY: y, stage: .sliding, due: nil, press: presses, slide: Slide(place: place))
                return 0
            }
            let classes = target.flatMap { active.layouts[index].classHandlers[$0.info] } ?? ClassHandlers()
            let timing = active.layouts[index].timing
            let routesPress = classes.long >= 0 || classes.hold >= 0
            contacts[key] = Contact(
                layout: index, explicitLayout: layout != nil, target: target, classes: classes, downX: x, downY: y,
                lastX: x, lastY: y, stage: .pressed, due: routesPress ? now + UInt64(timing.longPressMs) * 1_000_000 : nil,
                press: presses)
        case .move:
            guard var contact = contacts[key] else { return 0 }
            contact.lastX = x ?? contact.lastX
            contact.lastY = y ?? contact.lastY
            if contact.stage == .sliding {
                slid(&contact, key: key, now: now, into: &taps)
            } else if contact.stage != .void && beyondSlop(contact) {
                // A swipe is not a tap: no class at all, and hold repeats stop.
                contact.stage = .void
                contact.due = nil
            }
            contacts[key] = contact
        case .up:
            guard var contact = contacts.removeValue(forKey: key) else { return 0 }
            contact.lastX = x ?? contact.lastX
            contact.lastY = y ?? contact.lastY
            if let slide = contact.slide {
                // Always, with the value at the point it lifted (a change still held is dropped).
                taps.append(fire(.release, layout: contact.layout, target: contact.target, explicitLayout: contact.explicitLayout,
                                 x: contact.lastX, y: contact.lastY, key: key, press: contact.press, at: now,
                                 value: slide.place.value(atX: contact.lastX, y: contact.lastY)))
                return taps.count - before
            }
            guard contact.stage == .pressed, !beyondSlop(contact) else { return 0 }
            // Released still over the pressed grid (or, for a press on nothing, over nothing).
            let over = active.target(layout: contact.layout, x: contact.lastX, y: contact.lastY)
            guard over?.grid == contact.target?.grid else { return 0 }
            if let target = contact.target, contact.classes.double >= 0 {
                let waitKey = DoubleKey(layout: contact.layout, grid: target.grid)
                if doubleWaits.removeValue(forKey: waitKey) != nil {
                    taps.append(fire(.double, layout: contact.layout, target: target, explicitLayout: contact.explicitLayout,
                                     x: contact.lastX, y: contact.lastY, key: key, press: contact.press, at: now))
                } else {
                    let window = UInt64(active.layouts[contact.layout].timing.doubleTapMs) * 1_000_000
                    doubleWaits[waitKey] = DoubleWait(
                        target: target, explicitLayout: contact.explicitLayout, x: contact.lastX, y: contact.lastY, key: key,
                        press: contact.press, deadline: now + window)
                }
            } else {
                taps.append(fire(.tap, layout: contact.layout, target: contact.target, explicitLayout: contact.explicitLayout,
                                 x: contact.lastX, y: contact.lastY, key: key, press: contact.press, at: now))
            }
        case .cancel:
            contacts[key] = nil
        }
        return taps.count - before
    }

    /// Fires the timers due by `now`, in time order: long presses, hold repeats, and the single
    /// taps whose double-tap window ended.
    public mutating func advanceTouch(to now: UInt64, into taps: inout [ClassedTap]) {
        while let due = nextTouchDeadline, due <= now {
            // Ties in a fixed order (stream, then slot), so replay fires them as the daemon did.
            if let (key, contact) = contacts.filter({ $0.value.due == due }).min(by: { ($0.key.stream, $0.key.slot) < ($1.key.stream, $1.key.slot) }) {
                fireTimer(key, contact, due: due, now: now, into: &taps)
            } else if let (waitKey, wait) = doubleWaits.filter({ $0.value.deadline == due }).min(by: { ($0.key.layout, $0.key.grid) < ($1.key.layout, $1.key.grid) }) {
                doubleWaits[waitKey] = nil
                taps.append(fire(.tap, layout: waitKey.layout, target: wait.target, explicitLayout: wait.explicitLayout,
                                 x: wait.x, y: wait.y, key: wait.key, press: wait.press, at: due))
            }
        }
    }

    private mutating func fireTimer(_ key: ContactKey, _ contact: Contact, due: UInt64, now: UInt64, into taps: inout [ClassedTap]) {
        var contact = contact
        if contact.stage == .sliding {
            // A change held back by changeMs, now that its time is up (it still differs: a
            // move back to the last change's value dropped it).
            contact.due = nil
            if let held = contact.slide?.held {
                contact.slide!.held = nil
                sendChange(&contact, value: held.value, x: held.x, y: held.y, key: key, at: due, into: &taps)
            }
            contacts[key] = contact
            return
        }
        let timing = active.layouts[contact.layout].timing
        let tapClass: TapClass
        if contact.stage == .holding {
            // Every repeat at its own time, even when they are caught up late: replay, which
            // advances only at the recorded events, must fire exactly what the daemon fired.
            tapClass = .hold
            contact.due = due + UInt64(timing.repeatMs) * 1_000_000
        } else if contact.classes.long >= 0 {
            tapClass = .long
            contact.stage = .longFired
            contact.due = nil
        } else {
            tapClass = .hold
            contact.stage = .holding
            contact.due = due + UInt64(timing.repeatMs) * 1_000_000
        }
        let isRepeat = tapClass == .hold && contacts[key]?.stage == .holding
        contacts[key] = contact
        taps.append(fire(tapClass, layout: contact.layout, target: contact.target, explicitLayout: contact.explicitLayout,
                         x: contact.lastX, y: contact.lastY, key: key, press: contact.press, at: due, isRepeat: isRepeat))
    }

    /// Ends every contact of `stream` (its connection closed) without a class.
    /// - Returns: the contacts ended, for their cancel records.
    public mutating func endContacts(stream: Int) -> [ContactKey] {
        let ended = contacts.keys.filter { $0.stream == stream }.sorted { $0.slot < $1.slot }
        for key in ended { contacts[key] = nil }
        return ended
    }

    /// Ends every contact in flight (a layout switch, a reload, the daemon stopping) and drops the
    /// taps waiting for a double: nothing pressed on one page acts on another.
    public mutating func endAllContacts() {
        guard !touchIsIdle else { return }
        endedContacts += contacts.keys.sorted { ($0.stream, $0.slot) < ($1.stream, $1.slot) }
        contacts.removeAll()
        doubleWaits.removeAll()
    }

    /// Takes the contacts the engine ended itself since the last call.
    public mutating func takeEndedContacts() -> [ContactKey] {
        let ended = endedContacts
        endedContacts.removeAll()
        return ended
    }

    /// A slider's contact moved to (lastX, lastY): a `change` now if the value differs from the
    /// last one and `changeMs` has passed since it, else held until then (nothing while the
    /// grid is disabled).
    private mutating func slid(_ contact: inout Contact, key: ContactKey, now: UInt64, into taps: inout [ClassedTap]) {
        guard var slide = contact.slide, let target = contact.target else { return }
        let value = slide.place.value(atX: contact.lastX, y: contact.lastY)
        let disabled = cellRules && cells[Self.cellKey(contact.layout, target.grid)]?.isDisabled == true
        if disabled || value == slide.sent {
            slide.held = nil
            contact.due = nil
            contact.slide = slide
            return
        }
        let wait = UInt64(slide.place.spec.changeMs) * 1_000_000
        if let sentAt = slide.sentAt, now < sentAt + wait {
            slide.held = (value, contact.lastX, contact.lastY)
            contact.due = sentAt + wait
            contact.slide = slide
            return
        }
        slide.held = nil
        contact.due = nil
        contact.slide = slide
        sendChange(&contact, value: value, x: contact.lastX, y: contact.lastY, key: key, at: now, into: &taps)
    }

    private mutating func sendChange(
        _ contact: inout Contact, value: Double, x: Double, y: Double, key: ContactKey, at now: UInt64, into taps: inout [ClassedTap]
    ) {
        contact.slide?.sent = value
        contact.slide?.sentAt = now
        taps.append(fire(.change, layout: contact.layout, target: contact.target, explicitLayout: contact.explicitLayout,
                         x: x, y: y, key: key, press: contact.press, at: now, value: value))
    }

    private func beyondSlop(_ contact: Contact) -> Bool {
        let dx = contact.lastX - contact.downX, dy = contact.lastY - contact.downY
        let slop = active.layouts[contact.layout].timing.slop
        return dx * dx + dy * dy > slop * slop
    }

    /// A classed tap through the same rules as a tap request: the class's handler, debounce
    /// (not for hold's repeats), the handler's decision.
    private mutating func fire(
        _ tapClass: TapClass, layout: Int, target: TapTarget?, explicitLayout: Bool, x: Double, y: Double, key: ContactKey,
        press: Int, at now: UInt64, isRepeat: Bool = false, value: Double? = nil
    ) -> ClassedTap {
        seq += 1
        var decision = TapDecision(seq: seq, layout: layout, target: nil, outcome: .miss, action: .none, reason: nil)
        decision.tapClass = tapClass
        decision.fromContact = true
        decision.value = value
        // Neither debounced nor debouncing: a hold's repeats, a slider's changes.
        let undebounced = isRepeat || tapClass == .change
        if var target {
            if tapClass != .tap && tapClass != .release {
                target.handler = active.layouts[layout].classHandlers[target.info]?[tapClass] ?? -1
            }
            decision.target = target
            if cellRules && applyCellRules(&decision, target: target, x: x, y: y) {
                decision.outcome = .disabled
            } else if target.handler < 0 {
                decision.outcome = .unrouted
            } else if !undebounced && isSuppressed(layout: layout, grid: target.grid, explicitLayout: explicitLayout, now: now) {
                decision.outcome = .suppressed
            } else {
                route(&decision, target: target, now: now)
                if !decision.action.isSettledByCaller && decision.outcome == .dispatched && !undebounced {
                    noteDispatch(layout: layout, grid: target.grid, now: now)
                }
            }
        }
        if !decision.action.isSettledByCaller { outcomeCounts.add(decision.outcome) }
        return ClassedTap(decision: decision, x: x, y: y, key: key, press: press)
    }
}
