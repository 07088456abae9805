import Testing

@testable import TapgridCore

/// `replay --config`'s screen: which recorded contacts the config's screen would now use up
/// (withheld from the recognizer) and which recorded waking touches it would now press.
@Suite struct ScreenReplayTests {
    static func s(_ seconds: Double) -> UInt64 { UInt64((seconds * 1e9).rounded()) }
    static let screen = ScreenConfig(dimSeconds: 30, offSeconds: 120)

    static func touch(_ phase: TouchPhase, slot: Int = 0, conn: Int? = 3, source: String = "socket") -> TouchRecord {
        TouchRecord(phase: phase, slot: slot, x: phase == .down ? 10 : nil, y: phase == .down ? 20 : nil, source: source, conn: conn, ms: 0)
    }

    static let wake = RecordedWake(seq: "9", source: "socket", conn: 3, x: 10, y: 20)

    /// A log recorded without a screen, replayed with one: the contact that comes after the idle
    /// time is withheld whole (its recorded taps will differ); the next one presses.
    @Test func contactsOnADarkScreenAreWithheld() {
        var replay = ScreenReplay(config: Self.screen)
        #expect(replay.state == nil)
        #expect(replay.touch(Self.touch(.down), run: "r1", at: Self.s(100)) == true)
        #expect(replay.state == .on)
        #expect(replay.touch(Self.touch(.up), run: "r1", at: Self.s(100.1)) == true)
        #expect(replay.touch(Self.touch(.down), run: "r1", at: Self.s(130.1)) == false)
        #expect(replay.state == .on)
        #expect(replay.touch(Self.touch(.move), run: "r1", at: Self.s(130.2)) == false)
        // A second finger of the same wake, from a touchscreen.
        #expect(replay.touch(Self.touch(.down, conn: nil, source: "Fake Touchscreen"), run: "r1", at: Self.s(130.2)) == false)
        #expect(replay.touch(Self.touch(.up), run: "r1", at: Self.s(130.3)) == false)
        #expect(replay.touch(Self.touch(.up, conn: nil, source: "Fake Touchscreen"), run: "r1", at: Self.s(130.3)) == false)
        #expect(replay.touch(Self.touch(.down, slot: 1), run: "r1", at: Self.s(131)) == true)
        #expect(replay.touch(Self.touch(.up, slot: 1), run: "r1", at: Self.s(131.1)) == true)
    }

    /// A recorded waking touch is a difference when the replay's screen would press it: no
    /// screen block, `pass`, or a screen still lit.
    @Test func wakeRecords() {
        var same = ScreenReplay(config: Self.screen)
        #expect(same.touch(Self.touch(.down), run: "r", at: Self.s(100)) == true)
        #expect(same.touch(Self.touch(.up), run: "r", at: Self.s(100)) == true)
        #expect(same.wake(Self.wake, run: "r", at: Self.s(300)) == true)
        #expect(same.state == .on)
        // The waking finger is not held down for later contacts (theirs would not be in the log).
        #expect(same.touch(Self.touch(.down, slot: 2), run: "r", at: Self.s(300.5)) == true)

        var longer = ScreenReplay(config: ScreenConfig(dimSeconds: 600))
        #expect(longer.touch(Self.touch(.down), run: "r", at: Self.s(100)) == true)
        #expect(longer.wake(Self.wake, run: "r", at: Self.s(300)) == false)

        var pass = ScreenReplay(config: ScreenConfig(dimSeconds: 30, wakeTouch: .pass))
        #expect(pass.touch(Self.touch(.down), run: "r", at: Self.s(100)) == true)
        #expect(pass.wake(Self.wake, run: "r", at: Self.s(300)) == false)
        #expect(pass.state == .on)

        var none = ScreenReplay(config: nil)
        #expect(none.wake(Self.wake, run: "r", at: Self.s(300)) == false)
        #expect(none.touch(Self.touch(.down), run: "r", at: Self.s(10_000)) == true)
        #expect(none.state == nil)
    }

    /// Ops' and MQTT's changes are made again; idle, touch and start follow from the log.
    @Test func screenRecordsFromCommands() {
        var replay = ScreenReplay(config: Self.screen)
        replay.screen(RecordedScreen(seq: "1", state: .on, reason: "start"), run: "r", at: Self.s(100))
        replay.screen(RecordedScreen(seq: "2", state: .off, reason: "mqtt"), run: "r", at: Self.s(101))
        #expect(replay.state == .off)
        #expect(replay.touch(Self.touch(.down), run: "r", at: Self.s(102)) == false)
        #expect(replay.touch(Self.touch(.up), run: "r", at: Self.s(102.1)) == false)
        // A recorded idle change is not made: the replay's own timers decide.
        replay.screen(RecordedScreen(seq: "3", state: .off, reason: "idle"), run: "r", at: Self.s(103))
        #expect(replay.state == .on)
        replay.screen(RecordedScreen(seq: "4", state: .dim, reason: "op"), run: "r", at: Self.s(104))
        #expect(replay.touch(Self.touch(.down), run: "r", at: Self.s(105)) == false)
    }

    /// Each run starts its own screen, lit at its first record; the clock never runs backwards.
    @Test func runsAndClocks() {
        var replay = ScreenReplay(config: Self.screen)
        #expect(replay.touch(Self.touch(.down), run: "r1", at: Self.s(100)) == true)
        #expect(replay.touch(Self.touch(.up), run: "r1", at: Self.s(100)) == true)
        #expect(replay.touch(Self.touch(.down), run: "r2", at: Self.s(5_000)) == true)
        #expect(replay.touch(Self.touch(.up), run: "r2", at: Self.s(5_000)) == true)
        // A clock stepped back: held at 5000, so 20 s later is 5020, still lit.
        #expect(replay.touch(Self.touch(.down), run: "r2", at: Self.s(10)) == true)
        #expect(replay.touch(Self.touch(.up), run: "r2", at: Self.s(5_020)) == true)
        // No time at all: the last one.
        #expect(replay.touch(Self.touch(.down), run: "r2", at: nil) == true)
        #expect(replay.touch(Self.touch(.up), run: "r2", at: nil) == true)
        #expect(replay.touch(Self.touch(.down), run: "r2", at: Self.s(5_051)) == false)
    }
}
