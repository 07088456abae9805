import Testing

@testable import TapgridCore

/// The screen's records as the daemon writes them (exact text, the contract's field order) and
/// read back; the backlight's bytes for each state and the warning for a level above max.
@Suite struct ScreenRecordTests {
    func written(_ write: (ByteBuffer) -> Void) -> [UInt8] {
        let record = ByteBuffer(capacity: 256)
        EventRecordHead(runID: "abc").write(seconds: 1_795_946_400, nanoseconds: 123_000_000, into: record)
        write(record)
        return Array(record.bytes)
    }

    func read(_ text: String) -> Result<ScreenEventRecord, EventRecord.Unreadable>? { ScreenEventRecord.read(Array(text.utf8)[...]) }

    @Test(arguments: [
        (ScreenState.off, ScreenReason.idle, #""state":"off","reason":"idle""#),
        (.dim, .idle, #""state":"dim","reason":"idle""#),
        (.on, .touch, #""state":"on","reason":"touch""#),
        (.on, .start, #""state":"on","reason":"start""#),
        (.off, .mqtt, #""state":"off","reason":"mqtt""#),
        (.dim, .op, #""state":"dim","reason":"op""#),
    ])
    func screenRecords(state: ScreenState, reason: ScreenReason, fields: String) {
        let text = written { ScreenRecord.write(seq: 44, state: state, reason: reason, into: $0) }
        #expect(String(decoding: text, as: UTF8.self)
            == #"{"time":"2026-11-29T10:00:00.123Z","run":"abc","seq":44,"event":"screen","# + fields + "}\n")
        #expect(ScreenEventRecord.read(text.dropLast())
            == .success(.screen(RecordedScreen(seq: "44", state: state, reason: reason.name.description))))
        // Readers that know nothing of the screen skip it as another kind of event.
        #expect(EventRecord.read(text.dropLast()) == .success(.event("screen")))
    }

    @Test func wakeRecords() {
        let socket = written { WakeRecord.write(seq: 45, source: Array(#""socket""#.utf8), conn: 3, x: 120, y: 340.5, into: $0) }
        #expect(String(decoding: socket, as: UTF8.self)
            == #"{"time":"2026-11-29T10:00:00.123Z","run":"abc","seq":45,"event":"wake","source":"socket","conn":3,"x":120,"y":340.5}"# + "\n")
        #expect(ScreenEventRecord.read(socket.dropLast()) == .success(.wake(RecordedWake(seq: "45", source: "socket", conn: 3, x: 120, y: 340.5))))
        #expect(EventRecord.read(socket.dropLast()) == .success(.event("wake")))

        let touchscreen = written { WakeRecord.write(seq: 46, source: Array(#""Fake \"Touch\"""#.utf8), conn: nil, x: 0, y: 479, into: $0) }
        #expect(String(decoding: touchscreen, as: UTF8.self)
            == #"{"time":"2026-11-29T10:00:00.123Z","run":"abc","seq":46,"event":"wake","source":"Fake \"Touch\"","conn":null,"x":0,"y":479}"# + "\n")
        #expect(ScreenEventRecord.read(touchscreen.dropLast()) == .success(.wake(RecordedWake(seq: "46", source: #"Fake "Touch""#, x: 0, y: 479))))
    }

    @Test func otherLinesAndBrokenRecords() {
        #expect(read(#"{"seq":1,"layout":"a","x":1,"y":2}"#) == nil)
        #expect(read(#"{"event":"touch","phase":"down","slot":0,"source":"socket","ms":1}"#) == nil)
        #expect(read(#"{"seq":1,"event":"exit","status":0}"#) == nil)
        #expect(read(#"{"seq":1,"#) == nil)
        #expect(read("") == nil)
        // A reason a newer daemon writes is kept as it is.
        #expect(read(#"{"seq":7,"event":"screen","state":"dim","reason":"schedule"}"#)
            == .success(.screen(RecordedScreen(seq: "7", state: .dim, reason: "schedule"))))
        #expect(read(#"{"seq":7,"event":"screen","state":"bright","reason":"op"}"#)
            == .failure(.init(#"not a screen record (needs seq, "state" on, dim or off, and reason)"#)))
        #expect(read(#"{"seq":7,"event":"screen","state":"on"}"#)
            == .failure(.init(#"not a screen record (needs seq, "state" on, dim or off, and reason)"#)))
        #expect(read(#"{"seq":8,"event":"wake","source":"socket","conn":1,"x":1}"#)
            == .failure(.init("not a wake record (needs seq, source, x and y)")))
    }

    @Test func recordedScreenCommands() {
        #expect(RecordedScreen(seq: "1", state: .off, reason: "op").command == .op)
        #expect(RecordedScreen(seq: "1", state: .on, reason: "mqtt").command == .mqtt)
        for reason in ["idle", "touch", "start", "schedule"] { #expect(RecordedScreen(seq: "1", state: .on, reason: reason).command == nil) }
    }

    /// Screen and wake records take the taps' counter, as state records do.
    @Test func recordsTakeTheNextSeq() throws {
        var engine = try TapEngineTests.engine()
        #expect(engine.tap(layout: 0, x: 60.5, y: 50, explicitLayout: false, now: 0).seq == 1)
        #expect(engine.takeSeq() == 2)
        #expect(engine.tap(layout: 0, x: 60.5, y: 50, explicitLayout: false, now: 1_000_000_000).seq == 3)
    }

    // MARK: - Backlight

    @Test(arguments: [
        ("255\n", 255), ("0", 0), (" 96000 \n", 96000), ("2147483647\n", 2_147_483_647),
        ("", nil), ("\n", nil), ("-1\n", nil), ("25 5", nil), ("0x10", nil), ("2147483648", nil), ("99999999999", nil),
    ] as [(String, Int?)])
    func maxBrightnessText(text: String, expected: Int?) {
        #expect(ScreenConfig.Backlight.maxBrightness(from: Array(text.utf8)) == expected)
    }

    @Test func bytesForEachState() {
        let defaults = ScreenConfig.Backlight(path: "/sys/class/backlight/b")
        func written(_ backlight: ScreenConfig.Backlight, _ state: ScreenState, _ max: Int?) -> String? {
            backlight.brightness(for: state, maxBrightness: max).map { String(decoding: $0, as: UTF8.self) }
        }
        #expect(written(defaults, .on, 255) == "255\n")
        #expect(written(defaults, .dim, 255) == "51\n")
        #expect(written(defaults, .off, 255) == "0\n")
        // The default dim: a fifth, rounded down, never 0 unless max is.
        #expect(written(defaults, .dim, 7) == "1\n")
        #expect(written(defaults, .dim, 1) == "1\n")
        #expect(written(defaults, .dim, 0) == "0\n")
        #expect(written(defaults, .dim, 96000) == "19200\n")
        // max_brightness unreadable: the numbers still go out, "max" and the default dim cannot.
        #expect(written(defaults, .on, nil) == nil)
        #expect(written(defaults, .dim, nil) == nil)
        #expect(written(defaults, .off, nil) == "0\n")
        let numbers = ScreenConfig.Backlight(path: "/b", on: .value(200), dim: .value(20), off: .max)
        #expect(written(numbers, .on, 255) == "200\n")
        #expect(written(numbers, .dim, nil) == "20\n")
        #expect(written(numbers, .off, 255) == "255\n")
        // Above max: max (sysfs refuses more).
        #expect(written(numbers, .on, 100) == "100\n")
        #expect(numbers.value(for: .on, maxBrightness: 100) == 100)
    }

    @Test func levelsAboveMaxAreWarnedAbout() {
        let backlight = ScreenConfig.Backlight(path: "/sys/class/backlight/rpi_backlight", on: .value(300), dim: .value(255), off: .value(256))
        #expect(backlight.levelWarnings(maxBrightness: 255, file: "/etc/tapgrid/tapgrid.json").map(\.description) == [
            "/etc/tapgrid/tapgrid.json: screen.backlight.on: 300 is above max_brightness (255 in /sys/class/backlight/rpi_backlight/max_brightness); 255 is written instead",
            "/etc/tapgrid/tapgrid.json: screen.backlight.off: 256 is above max_brightness (255 in /sys/class/backlight/rpi_backlight/max_brightness); 255 is written instead",
        ])
        #expect(backlight.levelWarnings(maxBrightness: 255, file: nil).allSatisfy { $0.severity == .warning })
        #expect(ScreenConfig.Backlight(path: "/b").levelWarnings(maxBrightness: 0, file: nil).isEmpty)
        #expect(backlight.levelWarnings(maxBrightness: 300, file: nil).isEmpty)
    }
}
