import Testing

@testable import TapgridCore

/// The screen's state machine, driven with given times (no clock): the idle timers, the ops, and
/// which contacts the waking touch uses up.
@Suite struct ScreenMachineTests {
    typealias Change = ScreenMachine.Change
    typealias Actions = ScreenMachine.Actions

    /// Seconds as the machine's nanoseconds.
    static func s(_ seconds: Double) -> UInt64 { UInt64((seconds * 1e9).rounded()) }
    static let a = ContactKey(stream: 3, slot: 0)
    static let b = ContactKey(stream: 3, slot: 1)
    static let c = ContactKey(stream: -1, slot: 0)

    /// A machine with dimSeconds 30 and offSeconds 120 (unless given), started at 100 s.
    static func started(dim: Double? = 30, off: Double? = 120, wakeTouch: ScreenConfig.WakeTouch = .consume) -> ScreenMachine {
        var machine = ScreenMachine(config: ScreenConfig(dimSeconds: dim, offSeconds: off, wakeTouch: wakeTouch))
        _ = machine.start(now: s(100))
        return machine
    }

    /// The machine after idling from 100 s into `state`.
    static func dark(_ state: ScreenState, wakeTouch: ScreenConfig.WakeTouch = .consume) -> ScreenMachine {
        var machine = started(wakeTouch: wakeTouch)
        _ = machine.due(now: s(130))
        if state == .off { _ = machine.due(now: s(220)) }
        #expect(machine.state == state)
        return machine
    }

    @Test func startIsOnWithItsTimers() {
        var machine = ScreenMachine(config: ScreenConfig(dimSeconds: 30, offSeconds: 120))
        #expect(!machine.started && machine.state == .on && machine.deadline == nil)
        #expect(machine.start(now: Self.s(100)) == Actions(change: Change(.on, .start), deadline: Self.s(130)))
        #expect(machine.started && machine.since == Self.s(100))
        // Once only.
        #expect(machine.start(now: Self.s(105)) == Actions(deadline: Self.s(130)))
    }

    @Test func idleDimsThenGoesOff() {
        var machine = Self.started()
        #expect(machine.due(now: Self.s(129.999)) == Actions(deadline: Self.s(130)))
        #expect(machine.due(now: Self.s(130)) == Actions(change: Change(.dim, .idle), deadline: Self.s(220)))
        #expect(machine.since == Self.s(130))
        #expect(machine.due(now: Self.s(219)) == Actions(deadline: Self.s(220)))
        #expect(machine.due(now: Self.s(220.5)) == Actions(change: Change(.off, .idle), deadline: nil))
        #expect(machine.state == .off && machine.since == Self.s(220.5))
        #expect(machine.due(now: Self.s(10_000)) == Actions(deadline: nil))
    }

    /// A timer that fires late, past both deadlines, goes straight off: one change.
    @Test func aLateTimerGoesStraightOff() {
        var machine = Self.started()
        #expect(machine.due(now: Self.s(500)) == Actions(change: Change(.off, .idle), deadline: nil))
    }

    /// Either timer may be missing; without both the screen changes only by ops; fractions count.
    @Test func timersLeftOut() {
        var offOnly = Self.started(dim: nil, off: 0.25)
        #expect(offOnly.deadline == Self.s(100.25))
        #expect(offOnly.due(now: Self.s(100.25)) == Actions(change: Change(.off, .idle), deadline: nil))
        var dimOnly = Self.started(dim: 0.5, off: nil)
        #expect(dimOnly.due(now: Self.s(100.5)) == Actions(change: Change(.dim, .idle), deadline: nil))
        #expect(dimOnly.due(now: Self.s(1_000_000)) == Actions(deadline: nil))
        var neither = Self.started(dim: nil, off: nil)
        #expect(neither.deadline == nil)
        #expect(neither.due(now: Self.s(1_000_000)) == Actions(deadline: nil))
        #expect(neither.contact(.down, key: Self.a, now: Self.s(200)) == (.pass, Actions(deadline: nil)))
    }

    /// A person's down, move and up restart both timers; a cancel (the contact ended for them)
    /// does not.
    @Test func contactsRestartTheTimers() {
        var machine = Self.started()
        #expect(machine.contact(.down, key: Self.a, now: Self.s(110)) == (.pass, Actions(deadline: Self.s(140))))
        #expect(machine.contact(.move, key: Self.a, now: Self.s(120)) == (.pass, Actions(deadline: Self.s(150))))
        #expect(machine.contact(.up, key: Self.a, now: Self.s(125)) == (.pass, Actions(deadline: Self.s(155))))
        #expect(machine.contact(.down, key: Self.b, now: Self.s(126)) == (.pass, Actions(deadline: Self.s(156))))
        #expect(machine.contact(.cancel, key: Self.b, now: Self.s(150)) == (.pass, Actions(deadline: Self.s(156))))
        #expect(machine.due(now: Self.s(155)) == Actions(deadline: Self.s(156)))
        #expect(machine.due(now: Self.s(156)) == Actions(change: Change(.dim, .idle), deadline: Self.s(246)))
    }

    /// With `consume`, the down on a dark screen wakes it and is used up with its moves and up;
    /// the next contact counts as usual.
    @Test(arguments: [ScreenState.dim, .off])
    func theWakingTouchIsUsedUp(from state: ScreenState) {
        var machine = Self.dark(state)
        #expect(machine.contact(.down, key: Self.a, now: Self.s(300)) == (.consume(wake: true), Actions(change: Change(.on, .touch), deadline: Self.s(330))))
        #expect(machine.state == .on && machine.since == Self.s(300))
        #expect(machine.isConsumed(Self.a) && machine.holdsConsumedContacts)
        #expect(!machine.isConsumed(Self.c))
        // Held and moved: still used up, and still a person's contact for the timers.
        #expect(machine.contact(.move, key: Self.a, now: Self.s(302)) == (.consume(wake: false), Actions(deadline: Self.s(332))))
        #expect(machine.contact(.up, key: Self.a, now: Self.s(303)) == (.consume(wake: false), Actions(deadline: Self.s(333))))
        #expect(!machine.isConsumed(Self.a) && !machine.holdsConsumedContacts)
        // Forgotten at its up: the same slot's next contact presses.
        #expect(machine.contact(.down, key: Self.a, now: Self.s(304)) == (.pass, Actions(deadline: Self.s(334))))
        #expect(machine.contact(.up, key: Self.a, now: Self.s(304.1)).verdict == .pass)
    }

    /// Two fingers on a dark screen are one wake: a second down while the waking one is still
    /// down, or at the same instant, is used up too, with no second wake.
    @Test func twoFingersAreOneWake() {
        var machine = Self.dark(.off)
        #expect(machine.contact(.down, key: Self.a, now: Self.s(300)).verdict == .consume(wake: true))
        #expect(machine.contact(.down, key: Self.b, now: Self.s(300.2)) == (.consume(wake: false), Actions(deadline: Self.s(330.2))))
        #expect(machine.contact(.up, key: Self.a, now: Self.s(300.3)).verdict == .consume(wake: false))
        // B is still down: a third finger belongs to the same wake.
        #expect(machine.contact(.down, key: Self.c, now: Self.s(300.4)).verdict == .consume(wake: false))
        #expect(machine.contact(.up, key: Self.b, now: Self.s(300.5)).verdict == .consume(wake: false))
        #expect(machine.contact(.cancel, key: Self.c, now: Self.s(300.6)).verdict == .consume(wake: false))
        #expect(!machine.holdsConsumedContacts)
        #expect(machine.contact(.down, key: Self.b, now: Self.s(301)).verdict == .pass)

        // A touchscreen's frame: both downs at one instant, the first already lifted.
        var frame = Self.dark(.dim)
        #expect(frame.contact(.down, key: Self.a, now: Self.s(400)).verdict == .consume(wake: true))
        #expect(frame.contact(.up, key: Self.a, now: Self.s(400)).verdict == .consume(wake: false))
        #expect(frame.contact(.down, key: Self.b, now: Self.s(400)).verdict == .consume(wake: false))
        #expect(frame.contact(.up, key: Self.b, now: Self.s(400.1)).verdict == .consume(wake: false))
        #expect(frame.contact(.down, key: Self.c, now: Self.s(400.2)).verdict == .pass)
    }

    /// With `pass`, the down wakes the screen (reason `touch`) and counts as usual.
    @Test func passWakesWithoutUsingUp() {
        var machine = Self.dark(.off, wakeTouch: .pass)
        #expect(machine.contact(.down, key: Self.a, now: Self.s(300)) == (.pass, Actions(change: Change(.on, .touch), deadline: Self.s(330))))
        #expect(!machine.isConsumed(Self.a))
        #expect(machine.contact(.down, key: Self.b, now: Self.s(300)).verdict == .pass)
        #expect(machine.contact(.up, key: Self.a, now: Self.s(300.1)).verdict == .pass)
    }

    /// A contact that went down while `on` is never used up, and its moves and up do not wake the
    /// dark screen (only a down does): a long press begun before the screen dimmed still fires.
    @Test func aContactFromBeforeTheDarkIsNeverUsedUp() {
        var machine = Self.started()
        #expect(machine.contact(.down, key: Self.a, now: Self.s(100)).verdict == .pass)
        #expect(machine.due(now: Self.s(130)).change == Change(.dim, .idle))
        #expect(machine.contact(.move, key: Self.a, now: Self.s(131)) == (.pass, Actions(deadline: Self.s(251))))
        #expect(machine.state == .dim)
        #expect(machine.due(now: Self.s(251)).change == Change(.off, .idle))
        #expect(machine.contact(.up, key: Self.a, now: Self.s(260)) == (.pass, Actions(deadline: nil)))
        #expect(machine.state == .off && !machine.isConsumed(Self.a))
        // The next down wakes.
        #expect(machine.contact(.down, key: Self.b, now: Self.s(261)).verdict == .consume(wake: true))
    }

    /// A new down on a slot whose used-up contact never got its up ends that contact.
    @Test func aNewDownOnAUsedUpSlotPresses() {
        var machine = Self.dark(.off)
        #expect(machine.contact(.down, key: Self.a, now: Self.s(300)).verdict == .consume(wake: true))
        #expect(machine.contact(.down, key: Self.a, now: Self.s(305)).verdict == .pass)
        #expect(!machine.isConsumed(Self.a))
    }

    /// A closed connection's used-up contacts are forgotten; the others stay.
    @Test func endedStreamsForgetTheirContacts() {
        var machine = Self.dark(.off)
        #expect(machine.contact(.down, key: Self.a, now: Self.s(300)).verdict == .consume(wake: true))
        #expect(machine.contact(.down, key: Self.c, now: Self.s(300)).verdict == .consume(wake: false))
        machine.endContacts(stream: 3)
        #expect(!machine.isConsumed(Self.a) && machine.isConsumed(Self.c))
        machine.endContacts(stream: -1)
        #expect(!machine.holdsConsumedContacts)
    }

    /// `wake` lights a dark screen (reason `op` or `mqtt`) and restarts the timers; on a lit one it
    /// only restarts them. A contact down after a wake is not used up.
    @Test func wakeOps() {
        var machine = Self.dark(.off)
        #expect(machine.wake(from: .op, now: Self.s(300)) == Actions(change: Change(.on, .op), deadline: Self.s(330)))
        #expect(machine.wake(from: .mqtt, now: Self.s(310)) == Actions(deadline: Self.s(340)))
        #expect(machine.contact(.down, key: Self.a, now: Self.s(310)).verdict == .pass)
        var dim = Self.dark(.dim)
        #expect(dim.wake(from: .mqtt, now: Self.s(140)) == Actions(change: Change(.on, .mqtt), deadline: Self.s(170)))
    }

    /// `screen off` holds the screen off (no timer) until a contact goes down or a wake; `screen
    /// dim` is as if it had just dimmed by itself; `screen on` restarts the timers.
    @Test func screenOps() {
        var machine = Self.started()
        #expect(machine.set(.off, from: .mqtt, now: Self.s(110)) == Actions(change: Change(.off, .mqtt), deadline: nil))
        #expect(machine.due(now: Self.s(10_000)) == Actions(deadline: nil))
        #expect(machine.set(.off, from: .op, now: Self.s(10_001)) == Actions(deadline: nil))
        #expect(machine.contact(.down, key: Self.a, now: Self.s(10_002)) == (.consume(wake: true), Actions(change: Change(.on, .touch), deadline: Self.s(10_032))))
        _ = machine.contact(.up, key: Self.a, now: Self.s(10_002))

        // dim: off after the dim span (120 - 30), from the op.
        #expect(machine.set(.dim, from: .op, now: Self.s(10_010)) == Actions(change: Change(.dim, .op), deadline: Self.s(10_100)))
        #expect(machine.set(.dim, from: .op, now: Self.s(10_020)) == Actions(deadline: Self.s(10_110)))
        #expect(machine.due(now: Self.s(10_110)) == Actions(change: Change(.off, .idle), deadline: nil))
        // From off to dim: the dim span again, never straight off.
        #expect(machine.set(.dim, from: .mqtt, now: Self.s(20_000)) == Actions(change: Change(.dim, .mqtt), deadline: Self.s(20_090)))
        #expect(machine.set(.on, from: .op, now: Self.s(20_001)) == Actions(change: Change(.on, .op), deadline: Self.s(20_031)))
        #expect(machine.set(.on, from: .mqtt, now: Self.s(20_005)) == Actions(deadline: Self.s(20_035)))

        var offOnly = Self.started(dim: nil, off: 60)
        #expect(offOnly.set(.dim, from: .op, now: Self.s(110)) == Actions(change: Change(.dim, .op), deadline: Self.s(170)))
        var dimOnly = Self.started(dim: 30, off: nil)
        #expect(dimOnly.set(.dim, from: .op, now: Self.s(110)) == Actions(change: Change(.dim, .op), deadline: nil))
    }

    /// An op while a used-up contact is down leaves it used up to its up.
    @Test func opsKeepUsedUpContacts() {
        var machine = Self.dark(.off)
        #expect(machine.contact(.down, key: Self.a, now: Self.s(300)).verdict == .consume(wake: true))
        #expect(machine.set(.off, from: .op, now: Self.s(301)).change == Change(.off, .op))
        #expect(machine.contact(.move, key: Self.a, now: Self.s(302)).verdict == .consume(wake: false))
        #expect(machine.state == .off)
        // A second finger on the dark screen now wakes it again (a new wake).
        #expect(machine.contact(.down, key: Self.b, now: Self.s(303)).verdict == .consume(wake: true))
        #expect(machine.contact(.up, key: Self.a, now: Self.s(304)).verdict == .consume(wake: false))
    }

    /// A reload takes the new timers and `wakeTouch`, keeping the state: the timers restart from
    /// the reload as they would in that state.
    @Test func reconfigure() {
        var machine = Self.started()
        #expect(machine.reconfigure(ScreenConfig(dimSeconds: 5, offSeconds: 10), now: Self.s(200)) == Actions(deadline: Self.s(205)))
        #expect(machine.due(now: Self.s(205)).change == Change(.dim, .idle))
        #expect(machine.reconfigure(ScreenConfig(dimSeconds: 10, offSeconds: 60, wakeTouch: .pass), now: Self.s(206)) == Actions(deadline: Self.s(256)))
        #expect(machine.state == .dim && machine.wakeTouch == .pass)
        #expect(machine.contact(.down, key: Self.a, now: Self.s(207)).verdict == .pass)
        #expect(machine.state == .on)
        _ = machine.set(.off, from: .op, now: Self.s(208))
        #expect(machine.reconfigure(ScreenConfig(offSeconds: 1), now: Self.s(209)) == Actions(deadline: nil))
        #expect(machine.state == .off)
    }
}
