import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// Touchscreens read through libinput by the real daemon, without hardware, uinput or root:
/// umockdev fakes `/dev/input/event20` (Tests/touch: the device, libevdev's ioctls answered, and
/// recorded contacts played at their recorded gaps), and a small LD_PRELOAD shim
/// (Tests/touch/umockdev-shim.c) bridges umockdev 0.17's two gaps for libinput, stamps each event
/// with the time umockdev really wrote it (as a kernel would) and logs what it wrote, and can deny
/// opens or unplug the device for a while.
///
/// Each scenario runs `tapgridd --verbose` under `umockdev-run`; all of them start together on
/// the first test (each needs about 4 s before its contacts, for the daemon to start and add the
/// device) and each test then checks its own. They check the `--verbose` contact lines for now
/// (`touch down slot 0 (200, 120) from "Fake Touchscreen"`): `observedContacts` is the one place
/// to read them from, so the event log's `{"event": "touch", ...}` records (and classed taps) can
/// replace them there.
///
/// The fake device is 4096 x 2048 units and the layout 800 x 480, so without rotation a device
/// position (x, y) is (x / 4096 * 800, y / 2048 * 480) in layout units; every position played is a
/// multiple of 1/16 of the device, so every expected number is exact.
extension EndToEnd {
    @Suite(.enabled(if: TouchRun.toolsMissing == nil, "needs umockdev-run and cc (apt-get install umockdev gcc; make test installs them)"))
    struct TouchscreenTests {
        /// The contacts of Tests/touch/fake-touchscreen.events without rotation: a tap, a press held
        /// 700 ms, a swipe of five moves, two fingers (the second lifts first).
        static let unrotated: [Contact] = [
            .init("down", 0, 200, 120), .init("up", 0, 200, 120),
            .init("down", 0, 600, 360), .init("up", 0, 600, 360),
            .init("down", 0, 100, 240), .init("move", 0, 150, 240), .init("move", 0, 200, 240),
            .init("move", 0, 250, 240), .init("move", 0, 300, 240), .init("move", 0, 350, 240), .init("up", 0, 350, 240),
            .init("down", 0, 200, 240), .init("down", 1, 600, 240), .init("up", 1, 600, 240), .init("up", 0, 200, 240),
        ]

        /// The screen through a touchscreen (docs/screen.md): dark when the contacts come, the
        /// first one wakes it (a `wake` record from the device, no touch records, no tap) and
        /// the backlight goes back to max; the others are recognized as without a screen.
        @Test func theFirstContactOnTheDarkScreenWakesItAndIsUsedUp() throws {
            let run = try TouchRuns.shared.get(\.screen)
            let lines = try run.finish()
            #expect(run.classedTaps == [
                "long 1 menu from Fake Touchscreen", "tap 1 audit from Fake Touchscreen", "tap 0 audit from Fake Touchscreen",
            ], "the first tap woke the screen; \(lines.suffix(20))")
            let records = run.eventRecords.compactMap { try? parseObject($0) }
            #expect(records.filter { $0.string("event") == "screen" }.map { "\($0.string("state") ?? "") \($0.string("reason") ?? "")" }
                == ["on start", "dim idle", "off idle", "on touch"])
            let wake = records.first { $0.string("event") == "wake" }
            #expect(wake?.string("source") == "Fake Touchscreen" && wake?.int("x") == 200 && wake?.int("y") == 120, "\(String(describing: wake))")
            let downs = records.filter { $0.string("event") == "touch" && $0.string("phase") == "down" }
            #expect(downs.count == 4, "the waking contact has no touch records: \(downs)")
            #expect(run.backlight == "255\n", "lit again by the waking touch")
        }

        /// A slider under a finger (docs/touch.md "Sliders"): the swipe across "level" gives
        /// `change` records at most one per `changeMs` (50), rising, then one `release` at the
        /// lift's x; the second two-finger contact lands on it too, and its value is in `cells.json`.
        @Test func aDragAcrossASliderChangesAtMostOncePerChangeMsThenReleases() throws {
            let run = try TouchRuns.shared.get(\.slider)
            let lines = try run.finish()
            #expect(observedContacts(lines) == Self.unrotated)
            let records = run.eventRecords.compactMap { try? parseObject($0) }.filter { $0.string("hit") == "1/0" }
            let swipe = Array(records.prefix { $0.string("class") == "change" })
            #expect(!swipe.isEmpty, "no change: \(run.classedTaps)")
            let values = swipe.compactMap { $0.int("value") }
            #expect(values == values.sorted() && Set(values).count == values.count && values.allSatisfy { $0 > 100 && $0 <= 350 }, "\(values)")
            for (a, b) in zip(swipe, swipe.dropFirst()) {
                #expect(milliseconds(b) - milliseconds(a) >= 49, "changes closer than changeMs: \(a) \(b)")
            }
            #expect(records.filter { $0.string("class") == "release" }.map { $0.int("value") ?? -1 } == [350, 200], "\(run.classedTaps)")
            #expect(records.allSatisfy { $0.string("handler") == "level" && $0.string("source") == "Fake Touchscreen" })
            #expect(run.classedTaps.filter { !$0.contains("1/0") } == [
                "tap 0/0 audit from Fake Touchscreen", "long 2/1 menu from Fake Touchscreen", "tap 1/1 audit from Fake Touchscreen",
            ], "\(run.classedTaps)")
            let cells = try parseObject(try #require(run.cellsFile, "no cells.json"))
            let level = ((cells["layouts"] as? [String: Any])?["home"] as? [String: Any])?["1/0"] as? [String: Any]
            #expect(level?.int("value") == 200, "cells.json: \(String(describing: run.cellsFile))")
        }

        /// A record's `time` as milliseconds of its day (`...T10:00:00.123Z`).
        func milliseconds(_ record: [String: Any]) -> Int {
            let clock = (record.string("time") ?? "").split(separator: "T").last?.dropLast() ?? ""
            let parts = clock.split(separator: ":")
            guard parts.count == 3, let h = Int(parts[0]), let m = Int(parts[1]), let s = Double(parts[2]) else { return -1 }
            return (h * 3600 + m * 60) * 1000 + Int((s * 1000).rounded())
        }

        @Test func pathBackendDeliversEveryContactInLayoutUnits() throws {
            let run = try TouchRuns.shared.get(\.plain)
            let lines = try run.finish()
            #expect(lines.contains(#"tapgridd: touchscreen "Fake Touchscreen" (/dev/input/event20) added: 255.9x127.9 mm, 10 touches"#))
            #expect(observedContacts(lines) == Self.unrotated)
            #expect(warnings(lines) == [])
            // Recognized as socket contacts are: a tap, a 700 ms press on the long-press grid, a
            // swipe that is no tap, two fingers (the second lifts first).
            #expect(run.classedTaps == [
                "tap 0 audit from Fake Touchscreen", "long 1 menu from Fake Touchscreen",
                "tap 1 audit from Fake Touchscreen", "tap 0 audit from Fake Touchscreen",
            ])
        }

        /// `"rotation": 90, "calibration": [0.5, 0, 0.25, 0, 1, 0]`: the calibration first (x
        /// squeezed to the middle half of the device: u' = u/2 + 1/4), then a quarter turn
        /// clockwise (x'' = 1 - v, y'' = u'), then 800 x 480. The tap at (0.25, 0.25) of the
        /// device: u' = 0.375, so (1 - 0.25, 0.375) -> (600, 180).
        @Test func rotationAndCalibrationApplyInOrder() throws {
            let run = try TouchRuns.shared.get(\.rotated)
            let lines = try run.finish()
            #expect(observedContacts(lines) == [
                .init("down", 0, 600, 180), .init("up", 0, 600, 180),
                .init("down", 0, 200, 300), .init("up", 0, 200, 300),
                .init("down", 0, 400, 150), .init("move", 0, 400, 165), .init("move", 0, 400, 180),
                .init("move", 0, 400, 195), .init("move", 0, 400, 210), .init("move", 0, 400, 225), .init("up", 0, 400, 225),
                .init("down", 0, 400, 180), .init("down", 1, 400, 300), .init("up", 1, 400, 300), .init("up", 0, 400, 180),
            ])
            // Turned, the 700 ms press lands on grid 0, which routes no long press: a tap on release.
            #expect(run.classedTaps == [
                "tap 1 audit from Fake Touchscreen", "tap 0 audit from Fake Touchscreen",
                "tap 1 audit from Fake Touchscreen", "tap 1 audit from Fake Touchscreen",
            ])
        }

        /// `"seat": "seat0"`: libinput's udev backend finds the fake touchscreen on the seat.
        @Test func udevBackendFindsTheSeatsTouchscreen() throws {
            let run = try TouchRuns.shared.get(\.seat)
            let lines = try run.finish()
            #expect(lines.contains(#"tapgridd: touchscreen "Fake Touchscreen" (/dev/input/event20) added: 255.9x127.9 mm, 10 touches"#))
            #expect(observedContacts(lines) == Self.unrotated)
            #expect(warnings(lines) == [])
        }

        /// Opening for writing is refused (as under `DeviceAllow=char-input r`), so the device is
        /// read through a read-only descriptor; it is unplugged from 4.5 s to 6 s into the replay
        /// (reads fail with ENODEV, opens with ENOENT) and the daemon opens it again on its 2 s retry.
        @Test func unpluggedDeviceIsFollowedAndReadOnlyIsEnough() throws {
            let run = try TouchRuns.shared.get(\.replug)
            let lines = try run.finish(checkingWhileRunning: { pid in
                // The libinput descriptor of the device (a umockdev pty) is open read-only.
                let modes = try deviceDescriptorModes(pid: pid)
                #expect(modes == [O_RDONLY], "access modes of the daemon's device descriptors: \(modes)")
            })
            let added = #"tapgridd: touchscreen "Fake Touchscreen" (/dev/input/event20) added: 255.9x127.9 mm, 10 touches"#
            #expect(lines.filter { $0.hasPrefix("tapgridd: touch") || warnings([$0]).count == 1 } == [
                added,
                #"tapgridd: touch down slot 0 (200, 120) from "Fake Touchscreen""#,
                #"tapgridd: touch up slot 0 (200, 120) from "Fake Touchscreen""#,
                #"tapgridd: warning: touchscreen "Fake Touchscreen" (/dev/input/event20) removed; waiting for it to return"#,
                added,
                #"tapgridd: touch down slot 0 (600, 360) from "Fake Touchscreen""#,
                #"tapgridd: touch up slot 0 (600, 360) from "Fake Touchscreen""#,
            ])
        }

        /// Unplugged while a finger is down on the long-press grid (`longPressMs` 2500 here, so a
        /// loaded machine still reads the down before the unplug): the contact ends as cancelled
        /// (a cancel record, no tap, no long press when its time comes), the warning names the
        /// device and the contact, and the socket keeps answering taps.
        @Test func unpluggedMidContactCancelsTheContactAndTheSocketServes() throws {
            let run = try TouchRuns.shared.get(\.unplugMidContact)
            let lines = try run.finish(checkingWhileRunning: { _ in
                // Past the 2.5 s a long press would have taken (the finger went down 5.5 s into the replay).
                let start = try run.replayStart()
                while monotonicSeconds() < start + 8.5 { usleep(50_000) }
                let reply = try LineClient(run.dir + "/d.sock").request(#"{"x": 100, "y": 100}"#)
                #expect(reply.int("seq") == 1 && reply.string("outcome") == "dispatched", "\(reply)")
            })
            // It stays unplugged: the 2 s retry, if it came before the stop, found it missing (said once).
            let missing = #"tapgridd: warning: touchscreen /dev/input/event20 is missing: No such file or directory (errno 2); waiting for it to appear (checked every 2 s)"#
            #expect(lines.filter { $0 == missing }.count <= 1)
            #expect(lines.filter { $0 != missing && ($0.hasPrefix("tapgridd: touch") || warnings([$0]).count == 1) } == [
                #"tapgridd: touchscreen "Fake Touchscreen" (/dev/input/event20) added: 255.9x127.9 mm, 10 touches"#,
                #"tapgridd: touch down slot 0 (600, 240) from "Fake Touchscreen""#,
                #"tapgridd: touch cancel slot 0 (600, 240) from "Fake Touchscreen""#,
                #"tapgridd: warning: touchscreen "Fake Touchscreen" (/dev/input/event20) removed with 1 contact down, cancelled; waiting for it to return"#,
            ])
            let records = try run.eventRecords.map { try parseObject($0) }
            let touches = records.filter { $0["event"] as? String == "touch" }
            #expect(touches.map { "\($0["phase"] ?? "?") \($0["source"] ?? "?") x \($0["x"] ?? "none")" } == [
                "down Fake Touchscreen x 600", "cancel Fake Touchscreen x none",
            ])
            // The one tap: the socket's (its record has no source). None from the touchscreen, at
            // release or by timer.
            let taps = records.filter { $0["seq"] != nil }
            #expect(taps.map { "\($0["seq"] ?? "?") \($0["source"] ?? "no source")" } == ["1 no source"], "\(taps)")
            #expect(run.classedTaps == [])
        }

        /// The same through the udev backend (`touch.seat`): the contact cancelled, the device named.
        @Test func unpluggedMidContactOnASeat() throws {
            let run = try TouchRuns.shared.get(\.unplugMidContactSeat)
            let lines = try run.finish()
            #expect(lines.filter { $0.hasPrefix("tapgridd: touch") || warnings([$0]).count == 1 } == [
                #"tapgridd: touchscreen "Fake Touchscreen" (/dev/input/event20) added: 255.9x127.9 mm, 10 touches"#,
                #"tapgridd: touch down slot 0 (600, 240) from "Fake Touchscreen""#,
                #"tapgridd: touch cancel slot 0 (600, 240) from "Fake Touchscreen""#,
                #"tapgridd: warning: touchscreen "Fake Touchscreen" (/dev/input/event20) removed with 1 contact down, cancelled"#,
            ])
            #expect(try run.eventRecords.map { try parseObject($0) }.filter { $0["seq"] != nil }.isEmpty)
        }

        /// A device it may not open and one that is missing: one warning each (not one per retry),
        /// and the socket keeps serving taps.
        @Test func permissionAndMissingDevicesWarnOnceAndTheSocketServes() throws {
            let run = try TouchRuns.shared.get(\.denied)
            let lines = try run.finish(checkingWhileRunning: { _ in
                let connection = try LineClient(run.dir + "/d.sock")
                let reply = try connection.request(#"{"x": 100, "y": 100}"#)
                #expect(reply.int("seq") == 1 && reply.string("outcome") == "dispatched", "\(reply)")
            })
            #expect(warnings(lines) == [
                #"tapgridd: warning: touchscreen /dev/input/event20: cannot open it: Permission denied (errno 13); the daemon's user needs to be in the "input" group (under systemd: enable the drop-in tapgridd.service.d/touch.conf); trying again every 2 s"#,
                #"tapgridd: warning: touchscreen /dev/input/by-path/platform-missing-event is missing: No such file or directory (errno 2); waiting for it to appear (checked every 2 s)"#,
            ])
            #expect(observedContacts(lines) == [])
        }

        /// A device udev has not set up (no udevd, as in some containers): the daemon says so and
        /// does not hand it to libinput, which would block the loop 2 s on every try.
        @Test func deviceUdevHasNotSetUp() throws {
            let run = try TouchRuns.shared.get(\.uninitialized)
            let lines = try run.finish()
            #expect(warnings(lines) == [
                #"tapgridd: warning: touchscreen /dev/input/event20: udev has not set it up yet (is systemd-udevd running?); trying again every 2 s"#,
            ])
        }

        /// The udev backend names a touchscreen of the seat it may not open (and only
        /// touchscreens: the seat's keyboards are none of its business), then says the seat has none.
        @Test func seatWithATouchscreenItMayNotOpen() throws {
            let run = try TouchRuns.shared.get(\.seatDenied)
            let lines = try run.finish()
            #expect(warnings(lines) == [
                #"tapgridd: warning: touchscreen /dev/input/event20: cannot open it: Permission denied (errno 13); the daemon's user needs to be in the "input" group (under systemd: enable the drop-in tapgridd.service.d/touch.conf)"#,
                #"tapgridd: warning: no touchscreen on seat "seat0" yet; waiting for one to be plugged in"#,
            ])
        }

        /// `touch.seat` where netlink sockets are not allowed (the service's sandbox without the
        /// drop-in's additions): a warning that says what to allow, and the socket serves. No
        /// umockdev here: the seat is the machine's own.
        @Test func seatWithoutNetlinkSaysWhatToAllow() throws {
            let daemon = try DaemonProcess(
                config: """
                    { "socket": { "path": "d.sock" }, "eventLog": false,
                      "layouts": { "home": { "width": 800, "height": 480, "grid": { "cols": [ { "tag": 1 } ] } } },
                      "touch": { "seat": "seat0" } }
                    """,
                environment: ["LD_PRELOAD": try TouchRun.buildShim(), "TAPGRID_SHIM_NO_NETLINK": "1"])
            let reply = try daemon.connect().request(#"{"x": 10, "y": 10}"#)
            #expect(reply.string("outcome") == "dispatched")
            #expect(try daemon.stop() == 0)
            #expect(warnings(daemon.stderr.split(separator: "\n").map(String.init)) == [
                #"tapgridd: warning: touchscreens cannot be read: libinput_udev_assign_seat: cannot follow seat "seat0": udev's monitor needs a netlink socket, which is not allowed here; under systemd add RestrictAddressFamilies=AF_UNIX AF_NETLINK and PrivateNetwork=no, or list the devices"#,
            ])
        }

        // MARK: - The converter

        /// The committed fake device is what the converter makes of the committed recording.
        @Test func converterTurnsTheRecordingIntoTheFakeDevice() throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            let result = try runProgram("/usr/bin/python3", [TouchRun.fixtures + "/record-to-umockdev.py", TouchRun.fixtures + "/fake-touchscreen.yml", "--output", dir + "/fake"])
            #expect(result.code == 0, "\(result.err)")
            #expect(result.out == """
                /dev/input/event20: "Fake Touchscreen", 67 events -> \(dir)/fake.umockdev, \(dir)/fake.ioctl, \(dir)/fake.events
                play them (build the shim once: cc -shared -fPIC -o umockdev-shim.so Tests/touch/umockdev-shim.c -ldl):
                LD_PRELOAD=$PWD/umockdev-shim.so umockdev-run -d \(dir)/fake.umockdev -i /dev/input/event20=\(dir)/fake.ioctl -e /dev/input/event20=\(dir)/fake.events -- PROGRAM

                """)
            for suffix in ["umockdev", "ioctl", "events"] {
                let made = try String(contentsOfFile: "\(dir)/fake.\(suffix)", encoding: .utf8)
                let committed = try String(contentsOfFile: "\(TouchRun.fixtures)/fake-touchscreen.\(suffix)", encoding: .utf8)
                #expect(made == committed, "fake.\(suffix) differs from Tests/touch/fake-touchscreen.\(suffix)")
            }
        }

        /// `--base` and `--lead` place the events; microseconds are written without zero padding.
        @Test func converterShiftsTimes() throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            let result = try runProgram("/usr/bin/python3", [
                TouchRun.fixtures + "/record-to-umockdev.py", TouchRun.fixtures + "/fake-touchscreen.yml", "--output", dir + "/f",
                "--base", "100.25", "--lead", "1", "--node", "/dev/input/event7",
            ])
            #expect(result.code == 0, "\(result.err)")
            let events = try String(contentsOfFile: dir + "/f.events", encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("E:") }
            #expect(Array(events.prefix(3)) == ["E: 100.250000 0000 0000 0", "E: 101.250000 0000 0000 0", "E: 101.250000 0003 002f 0"])
            // The tap's lift, 80 ms after it went down.
            #expect(events.contains("E: 101.330000 0003 0039 -1"))
            // The long press's lift, 1.2 s after the first contact: 1.45 s past the base's 100.25 s + 1 s.
            #expect(events.contains("E: 102.450000 0003 0039 -1"))
            let device = try String(contentsOfFile: dir + "/f.umockdev", encoding: .utf8)
            #expect(device.hasPrefix("P: /devices/virtual/input/input7/event7\nN: input/event7\nE: DEVNAME=/dev/input/event7\nE: MAJOR=13\nE: MINOR=71\n"))
        }

        @Test(arguments: [
            ("version: 1\nndevices: 0\ndevices: []\n", "no devices in this recording (is it a `libinput record` file?)"),
            ("just text\n", "line 1: expected `key: value`, found 'just text'"),
            ("devices:\n- node: /dev/input/event3\n  evdev:\n    name: \"Pad\"\n    id: [1, 2]\n", "evdev id: expected [bus, vendor, product, version], found [1, 2]"),
            ("devices:\n- node: /dev/input/event3\n  evdev:\n    name: \"Pad\"\n  events:\n  - evdev:\n    - [0, 0, 0, 0]\n",
             "evdev event: expected [sec, usec, type, code, value], found [0, 0, 0, 0]"),
        ])
        func converterNamesWhatIsWrong(recording: String, message: String) throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            try recording.write(toFile: dir + "/r.yml", atomically: true, encoding: .utf8)
            let result = try runProgram("/usr/bin/python3", [TouchRun.fixtures + "/record-to-umockdev.py", dir + "/r.yml"])
            #expect(result.code == 1)
            #expect(result.err == "record-to-umockdev.py: \(dir)/r.yml: \(message)\n")
            #expect(!FileManager.default.fileExists(atPath: dir + "/r.events"))
        }
    }
}

/// One contact as a test expects it: phase, seat slot, layout position (the source is always
/// "Fake Touchscreen").
struct Contact: Equatable, CustomStringConvertible {
    var phase: String
    var slot: Int
    var x: Double
    var y: Double
    init(_ phase: String, _ slot: Int, _ x: Double, _ y: Double) {
        (self.phase, self.slot, self.x, self.y) = (phase, slot, x, y)
    }
    var description: String { "\(phase) \(slot) (\(x), \(y))" }
}

/// The contacts a run's daemon reported, from its `--verbose` lines
/// `tapgridd: touch down slot 0 (200, 120) from "Fake Touchscreen"` (other sources are not ours).
func observedContacts(_ lines: [String]) -> [Contact] {
    lines.compactMap { line in
        let pattern = #/^tapgridd: touch (down|move|up|cancel) slot (\d+) \((-?[\d.e+-]+), (-?[\d.e+-]+)\) from "Fake Touchscreen"$/#
        guard let match = line.wholeMatch(of: pattern), let slot = Int(match.2), let x = Double(match.3), let y = Double(match.4) else {
            return nil
        }
        return Contact(String(match.1), slot, x, y)
    }
}

/// The warnings among `lines`, but libinput's "event processing lagging behind by 26ms, your
/// system is too slow": umockdev writes each event a little after the timestamp it carries (it
/// sleeps the recorded gaps), which libinput takes for a slow reader once it is over 20 ms.
func warnings(_ lines: [String]) -> [String] {
    lines.filter { $0.contains("warning:") && !$0.contains("event processing lagging behind") }
}

/// The access modes (`O_RDONLY`, `O_RDWR`) of the descriptors `pid` has open on ptys (umockdev's
/// fake device nodes), from /proc/PID/fdinfo.
func deviceDescriptorModes(pid: pid_t) throws -> [Int32] {
    let fds = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd")
    return fds.compactMap { fd in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\(fd)"),
            target.hasPrefix("/dev/pts/"),
            let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(fd)", encoding: .utf8),
            let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags:") }),
            let value = Int32(flags.dropFirst("flags:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        else { return nil }
        return value & O_ACCMODE
    }
}

/// The scenarios, started together the first time one is asked for.
final class TouchRuns: @unchecked Sendable {  // built once, then only read
    static let shared = TouchRuns()

    private let result: Result<Runs, Error>

    struct Runs {
        var plain: TouchRun
        var rotated: TouchRun
        var seat: TouchRun
        var replug: TouchRun
        var denied: TouchRun
        var seatDenied: TouchRun
        var uninitialized: TouchRun
        var unplugMidContact: TouchRun
        var unplugMidContactSeat: TouchRun
        var screen: TouchRun
        var slider: TouchRun
    }

    private init() {
        // A test filtered out never finishes its run: stop what is left when the process exits.
        atexit { TouchRuns.shared.stopAll() }
        result = Result(catching: {
            let shim = try TouchRun.buildShim()
            let events = TouchRun.fixtures + "/fake-touchscreen.events"
            return Runs(
                plain: try TouchRun(shim: shim, touch: #"{"devices": ["/dev/input/event20"]}"#, events: events, contacts: 15),
                rotated: try TouchRun(
                    shim: shim, touch: #"{"devices": ["/dev/input/event20"], "rotation": 90, "calibration": [0.5, 0, 0.25, 0, 1, 0]}"#,
                    events: events, contacts: 15),
                seat: try TouchRun(shim: shim, touch: #"{"seat": "seat0"}"#, events: events, contacts: 15),
                replug: try TouchRun(
                    shim: shim, touch: #"{"devices": ["/dev/input/event20"]}"#, events: TouchRun.fixtures + "/replug.events",
                    contacts: 4, environment: ["TAPGRID_SHIM_DENY": "write:/dev/input/event20", "TAPGRID_SHIM_UNPLUG": "/dev/input/event20:4.5:6"]),
                denied: try TouchRun(
                    shim: shim, touch: #"{"devices": ["/dev/input/event20", "/dev/input/by-path/platform-missing-event"]}"#,
                    events: nil, contacts: 0, playSeconds: 5, environment: ["TAPGRID_SHIM_DENY": "all:/dev/input/event20"]),
                seatDenied: try TouchRun(
                    shim: shim, touch: #"{"seat": "seat0"}"#, events: nil, contacts: 0, playSeconds: 3,
                    environment: ["TAPGRID_SHIM_DENY": "all:/dev/input/event20"]),
                uninitialized: try TouchRun(
                    shim: shim, touch: #"{"devices": ["/dev/input/event20"]}"#, events: nil, contacts: 0, playSeconds: 4.5,
                    environment: ["TAPGRID_SHIM_UNINITIALIZED": "1"]),
                unplugMidContact: try TouchRun(
                    shim: shim, touch: #"{"devices": ["/dev/input/event20"]}"#, events: TouchRun.fixtures + "/unplug-mid-contact.events",
                    contacts: 2, longPressMs: 2500,
                    environment: ["TAPGRID_SHIM_UNPLUG": "/dev/input/event20:6.5:600"]),
                unplugMidContactSeat: try TouchRun(
                    shim: shim, touch: #"{"seat": "seat0"}"#, events: TouchRun.fixtures + "/unplug-mid-contact.events",
                    contacts: 2, longPressMs: 2500,
                    environment: ["TAPGRID_SHIM_UNPLUG": "/dev/input/event20:6.5:600"]),
                // The screen goes off 2.5 s after the start, before the contacts come (4 s after
                // the replay's first event): the first one wakes it and is used up.
                screen: try TouchRun(
                    shim: shim, touch: #"{"devices": ["/dev/input/event20"]}"#, events: events, contacts: 15,
                    screen: #"{"dimSeconds": 1, "offSeconds": 2.5, "backlight": {"path": "DIR/backlight"}}"#),
                // A band across y 200-280: "level" (x 0-400, its value x) and a tag 2 grid. The
                // swipe and the two fingers' contacts land on it (docs/touch.md "Sliders").
                slider: try TouchRun(
                    shim: shim, touch: #"{"devices": ["/dev/input/event20"]}"#, events: events, contacts: 15,
                    grid: #"{"rows": [ {"size": 200, "cols": [ {"tag": 1}, {"tag": 2} ]}, {"size": 80, "cols": [ {"size": 400, "name": "level", "tag": 3, "slider": {"min": 0, "max": 400, "step": 1, "changeMs": 50}}, {"tag": 2} ]}, {"size": "fill", "cols": [ {"tag": 1}, {"tag": 2} ]} ]}"#,
                    extraHandlers: #""level": { "type": "log" }, "#, extraRoutes: #"{ "tags": [3], "handler": "level", "on": ["change", "release"] }, "#))
        })
    }

    func get(_ run: KeyPath<Runs, TouchRun>) throws -> TouchRun { try result.get()[keyPath: run] }

    private func stopAll() {
        guard let runs = try? result.get() else { return }
        // Every run `Runs` holds, found by reflection: a list written out by hand missed `slider`,
        // whose daemon outlived each test run.
        let all = Mirror(reflecting: runs).children.compactMap { $0.value as? TouchRun }
        // Every daemon first, so the umockdev-runs end (and clean up) together.
        for run in all where run.process.isRunning {
            if let pid = run.daemonPID { kill(pid, SIGKILL) }
        }
        for run in all { run.stopAndRemove() }
    }
}

/// `tapgridd --verbose` with a `touch` config, run by `umockdev-run` with the fake touchscreen.
final class TouchRun: @unchecked Sendable {  // finished by one test
    static let fixtures = packageRoot.appendingPathComponent("Tests/touch").path

    /// Why these tests cannot run here, or nil.
    static let toolsMissing: String? = {
        for tool in ["/usr/bin/umockdev-run", "/usr/bin/cc", "/usr/bin/python3"] where access(tool, X_OK) != 0 {
            return tool
        }
        return nil
    }()

    /// The shim, compiled into .build once per test process: under a temporary name, then
    /// renamed, so a daemon that has the previous one loaded never sees it rewritten.
    static func buildShim() throws -> String { try builtShim.get() }

    private static let builtShim = Result { () throws -> String in
        let output = packageRoot.appendingPathComponent(".build/umockdev-shim.so").path
        let temporary = output + ".\(getpid())"
        let result = try runProgram("/usr/bin/cc", ["-shared", "-fPIC", "-O2", "-Wall", "-o", temporary, fixtures + "/umockdev-shim.c", "-ldl"])
        guard result.code == 0, rename(temporary, output) == 0 else {
            unlink(temporary)
            throw TestFailure("cc umockdev-shim.c failed: \(result.err)")
        }
        return output
    }

    let dir: String
    let process = Process()
    /// When the recorded contacts would all be played had umockdev started at once (runs
    /// without events: when to stop), in CLOCK_MONOTONIC seconds.
    let playedBy: Double
    let expectedContacts: Int
    /// How many events umockdev is to write (the events file's `E:` lines), nil for none.
    let expectedEvents: Int?
    /// `TAPGRID_SHIM_REPLAY`: the shim's log of every event umockdev wrote, when and with what stamp.
    let replayLog: String

    /// How long after `playedBy` a replay may take before the run gives up on it (umockdev's
    /// writes only ever come late: its start, then every recorded gap slept on a loaded machine).
    static let replaySlack = 60.0

    /// - Parameters:
    ///   - events: an events file whose times count from 0, played by umockdev at their recorded
    ///     gaps; the shim stamps each with the time it is written (so the kernel timestamps
    ///     libinput reports are the daemon's clock, and true however late umockdev runs); nil for none.
    ///   - contacts: how many contact lines to wait for.
    ///   - environment: more variables for the daemon.
    ///   - longPressMs: the layout's `longPressMs` (500 when nil).
    ///   - screen: a `screen` block, `DIR` in it the run's folder, where a fake backlight
    ///     (`backlight/brightness`, `max_brightness` 255) is made.
    ///   - grid: the layout's grid (two columns, tags 1 and 2, when nil); `extraHandlers` and
    ///     `extraRoutes` are members and elements put before the others.
    init(shim: String, touch: String, events: String?, contacts: Int, playSeconds: Double? = nil, longPressMs: Int? = nil,
         screen: String? = nil, grid: String? = nil, extraHandlers: String = "", extraRoutes: String = "",
         environment: [String: String] = [:]) throws {
        dir = try makeTempDir()
        replayLog = dir + "/replay.txt"
        expectedContacts = contacts
        let folder = dir
        let screenBlock = screen.map { #", "screen": "# + $0.replacingOccurrences(of: "DIR", with: folder) } ?? ""
        let config = """
            { "socket": { "path": "d.sock" }, "eventLog": { "path": "events.jsonl" },
              "layouts": { "home": { "width": 800, "height": 480, \(longPressMs.map { "\"longPressMs\": \($0), " } ?? "")"grid": \(grid ?? #"{ "cols": [ { "tag": 1 }, { "tag": 2 } ] }"#) } },
              "handlers": { \(extraHandlers)"audit": { "type": "log" }, "menu": { "type": "log" } },
              "routes": [ \(extraRoutes){ "tags": [2], "handler": "menu", "on": "long" }, { "handler": "audit" } ],
              "touch": \(touch)\(screenBlock) }
            """
        if screen != nil {
            try FileManager.default.createDirectory(atPath: dir + "/backlight", withIntermediateDirectories: true)
            try "255\n".write(toFile: dir + "/backlight/max_brightness", atomically: true, encoding: .utf8)
            try "0\n".write(toFile: dir + "/backlight/brightness", atomically: true, encoding: .utf8)
        }
        try config.write(toFile: dir + "/tapgrid.json", atomically: true, encoding: .utf8)
        var arguments = ["-d", Self.fixtures + "/fake-touchscreen.umockdev", "-i", "/dev/input/event20=\(Self.fixtures)/fake-touchscreen.ioctl"]
        var last = 0.0
        if let events {
            let times = try Self.eventTimes(events)
            last = times.max() ?? 0
            expectedEvents = times.count
            arguments += ["-e", "/dev/input/event20=\(events)"]
        } else {
            expectedEvents = nil
        }
        arguments += ["--", daemonBinary, "--config", dir + "/tapgrid.json", "--verbose"]
        process.executableURL = URL(fileURLWithPath: "/usr/bin/umockdev-run")
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env["TAPGRID_SOCKET"] = nil
        env["TAPGRID_CONFIG"] = nil
        env["LD_PRELOAD"] = shim
        if events != nil { env["TAPGRID_SHIM_REPLAY"] = replayLog }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        _ = FileManager.default.createFile(atPath: dir + "/stderr.txt", contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: dir + "/stderr.txt")
        playedBy = monotonicSeconds() + (playSeconds ?? last)
        try process.run()
    }

    deinit { stopAndRemove() }

    /// The tap records with a class the daemon wrote (`class grid handler from source`), read by `finish`.
    private(set) var classedTaps: [String] = []
    /// Every line of the event log, read by `finish`.
    private(set) var eventRecords: [String] = []
    /// The fake backlight's `brightness` at the end (a run with a `screen` block), read by `finish`.
    private(set) var backlight: String?
    /// `cells.json` at the end (beside the event log), read by `finish`.
    private(set) var cellsFile: String?

    /// Kills what still runs and removes the run's folder: the daemon (it outlives a killed
    /// umockdev-run), then umockdev-run ends by itself and removes its testbed (a
    /// `/tmp/umockdev.*` folder, which a SIGKILL leaves behind); killed if still there after 5 s.
    func stopAndRemove() {
        if process.isRunning {
            if let pid = daemonPID { kill(pid, SIGKILL) }
            let killBy = monotonicSeconds() + 5
            while process.isRunning && monotonicSeconds() < killBy { usleep(10_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        removeTempDir(dir)
    }

    var stderrLines: [String] {
        ((try? String(contentsOfFile: dir + "/stderr.txt", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    /// The daemon: umockdev-run's child.
    var daemonPID: pid_t? {
        let pid = process.processIdentifier
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        for task in tasks {
            let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            if let first = children.split(separator: " ").first, let child = pid_t(first) { return child }
        }
        return nil
    }

    /// When umockdev wrote each event so far (CLOCK_MONOTONIC microseconds), in order: `replayLog`'s
    /// lines are `WRITTEN STAMP TYPE CODE VALUE`.
    var replayed: [Int64] {
        let text = (try? String(contentsOfFile: replayLog, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            let written = fields.first?.split(separator: ".") ?? []
            guard fields.count == 5, written.count == 2, let sec = Int64(written[0]), let usec = Int64(written[1]) else { return nil }
            return sec * 1_000_000 + usec
        }
    }

    /// When umockdev wrote the replay's first event (CLOCK_MONOTONIC seconds): the time the events
    /// file's times count from, and `TAPGRID_SHIM_UNPLUG`'s.
    func replayStart() throws -> Double {
        guard let first = replayed.first else { throw TestFailure("umockdev has written no event yet (\(replayLog))") }
        return Double(first) / 1e6
    }

    /// Waits until umockdev has written every event and the daemon has reported the contacts (at
    /// most 10 s after the last event was written; runs without events: until `playedBy`), runs
    /// `check` with the daemon's pid while it still runs, stops it (SIGTERM) and returns its
    /// stderr lines; the run's folder is removed.
    func finish(checkingWhileRunning check: (pid_t) throws -> Void = { _ in }) throws -> [String] {
        defer { stopAndRemove() }
        while process.isRunning {
            let now = monotonicSeconds()
            if let expectedEvents {
                let replay = replayed
                if replay.count >= expectedEvents {
                    if observedContacts(stderrLines).count >= expectedContacts || now > Double(replay[replay.count - 1]) / 1e6 + 10 { break }
                } else if now > playedBy + Self.replaySlack {
                    break
                }
            } else if now >= playedBy {
                break
            }
            usleep(50_000)
        }
        guard process.isRunning, let pid = daemonPID else {
            throw TestFailure("tapgridd under umockdev-run ended early: \(stderrLines.joined(separator: "\n"))")
        }
        try check(pid)
        // To the daemon itself: umockdev-run forwards SIGTERM, but not when it inherited it blocked.
        kill(pid, SIGTERM)
        let stopBy = monotonicSeconds() + 10
        while process.isRunning && monotonicSeconds() < stopBy { usleep(20_000) }
        let lines = stderrLines
        eventRecords = ((try? String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        backlight = try? String(contentsOfFile: dir + "/backlight/brightness", encoding: .utf8)
        cellsFile = try? String(contentsOfFile: dir + "/cells.json", encoding: .utf8)
        classedTaps = eventRecords.compactMap { line -> String? in
                guard let record = try? parseObject(line), let tapClass = record.string("class") else { return nil }
                return "\(tapClass) \(record.string("hit") ?? "miss") \(record.string("handler") ?? "none") from \(record.string("source") ?? "?")"
            }
        #expect(lines.last == "tapgridd: stopped cleanly", "\(lines)")
        let replay = replayed
        let seen = observedContacts(lines).count
        if seen < expectedContacts {
            // Contacts played before libinput had the device set up are dropped: on a very loaded
            // machine the daemon may need more than the 4 s lead.
            let added = lines.firstIndex { $0.contains(") added:") }
            let written = expectedEvents.map { "; umockdev wrote \(replay.count) of \($0) events" } ?? ""
            Issue.record("\(seen) of \(expectedContacts) contacts seen (device added at line \(added.map(String.init) ?? "never")\(written)): \(lines)")
        }
        if expectedEvents != nil {
            // Each contact carries the time its frame was written (a cancel, the daemon's own):
            // the daemon's timers and its contacts' times are one clock, as with a real panel.
            let stamps = Set(replay)
            let unstamped = eventRecords.compactMap { line -> String? in
                guard let record = try? parseObject(line), record.string("event") == "touch", record.string("phase") != "cancel",
                    let ms = (record["ms"] as? NSNumber)?.doubleValue, !stamps.contains(Int64((ms * 1000).rounded()))
                else { return nil }
                return line
            }
            #expect(unstamped.isEmpty, "contacts whose time is no time umockdev wrote at: \(unstamped)")
        }
        return lines
    }

    /// The times of an events file's `E: SEC.USEC ...` lines (USEC a plain integer, as umockdev
    /// 0.17 reads it), in seconds.
    static func eventTimes(_ path: String) throws -> [Double] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("E: ") }.map { line in
            let fields = line.dropFirst(3).split(separator: " ", maxSplits: 1)
            let time = fields[0].split(separator: ".")
            guard fields.count == 2, time.count == 2, let seconds = Int64(time[0]), let micros = Int64(time[1]) else {
                throw TestFailure("\(path): not an event line: \(line)")
            }
            return Double(seconds) + Double(micros) / 1e6
        }
    }
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
