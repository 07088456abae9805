import Foundation
import Testing

@testable import TapgridInput
import TapgridSystem

/// The reader against real libinput contexts, without a touchscreen (the end-to-end tests have a
/// fake one): what it says about paths it cannot use, and the words of every problem.
@Suite struct TouchscreenReaderTests {
    @Test func missingPathIsReportedOnceAndRetried() throws {
        let reader = try TouchscreenReader(backend: .paths(["/dev/input/by-path/tapgrid-test-missing-event"]))
        #expect(reader.fd >= 0)
        #expect(try reader.read() == [.problem(TouchscreenProblem(
            subject: "/dev/input/by-path/tapgrid-test-missing-event", cause: .missing(Errno(ENOENT)), retrying: true))])
        #expect(reader.isWaitingForDevices)
        #expect(reader.devices.isEmpty)
        // Still missing: nothing new to say.
        var again: [TouchscreenEvent] = []
        try reader.retry { again.append($0) }
        #expect(again.isEmpty)
        #expect(reader.isWaitingForDevices)
    }

    /// A file that is no device node: libinput refuses it (udev knows no device for it).
    @Test func aPlainFileIsRefused() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tapgrid-not-a-device-\(getpid())").path
        _ = FileManager.default.createFile(atPath: path, contents: Data())
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try TouchscreenReader(backend: .paths([path]))
        let events = try reader.read()
        #expect(events.first == .problem(TouchscreenProblem(
            subject: path, cause: .unusable("libinput cannot use it (libinput_path_add_device failed)"), retrying: true)))
        #expect(events.dropFirst().allSatisfy { if case .problem(let p) = $0, case .libinput = p.cause { true } else { false } })
        #expect(reader.isWaitingForDevices)
    }

    /// The udev backend on a seat without touchscreens (this machine has none): one warning,
    /// after the first read only.
    @Test func seatWithoutTouchscreens() throws {
        let reader = try TouchscreenReader(backend: .seat("seat-tapgrid-test"))
        #expect(try reader.read() == [.problem(TouchscreenProblem(subject: "seat-tapgrid-test", cause: .noTouchscreen, retrying: false))])
        #expect(try reader.read() == [])
        #expect(!reader.isWaitingForDevices)
    }

    @Test func problemsSayWhichDeviceWhyAndWhatHelps() {
        let path = "/dev/input/by-path/platform-x-event"
        #expect(TouchscreenProblem(subject: path, cause: .permission(Errno(EACCES)), retrying: true).description
            == #"touchscreen /dev/input/by-path/platform-x-event: cannot open it: Permission denied (errno 13); the daemon's user needs to be in the "input" group (under systemd: enable the drop-in tapgridd.service.d/touch.conf); trying again every 2 s"#)
        #expect(TouchscreenProblem(subject: "/dev/input/event3", cause: .permission(Errno(EPERM)), retrying: false).description
            == #"touchscreen /dev/input/event3: cannot open it: Operation not permitted (errno 1); the daemon's user needs to be in the "input" group (under systemd: enable the drop-in tapgridd.service.d/touch.conf)"#)
        #expect(TouchscreenProblem(subject: path, cause: .missing(Errno(ENOENT)), retrying: true).description
            == "touchscreen /dev/input/by-path/platform-x-event is missing: No such file or directory (errno 2); waiting for it to appear (checked every 2 s)")
        #expect(TouchscreenProblem(subject: path, cause: .unusable("cannot open /dev/input/event5: Input/output error (errno 5)"), retrying: true).description
            == "touchscreen /dev/input/by-path/platform-x-event: cannot open /dev/input/event5: Input/output error (errno 5); trying again every 2 s")
        #expect(TouchscreenProblem(subject: "/dev/input/event2", cause: .notATouchscreen(name: "AT Translated Set 2 keyboard"), retrying: false).description
            == #"/dev/input/event2 ("AT Translated Set 2 keyboard") is not a touchscreen (libinput sees no touch capability); ignored"#)
        #expect(TouchscreenProblem(subject: path, cause: .duplicate(of: #""Panel" (/dev/input/event5)"#), retrying: false).description
            == #"/dev/input/by-path/platform-x-event is the same device as "Panel" (/dev/input/event5); ignored"#)
        #expect(TouchscreenProblem(subject: "seat0", cause: .noTouchscreen, retrying: false).description
            == #"no touchscreen on seat "seat0" yet; waiting for one to be plugged in"#)
        #expect(TouchscreenProblem(subject: "libinput", cause: .libinput("event5 - Panel: kernel bug: Touch jump detected"), retrying: false).description
            == "libinput: event5 - Panel: kernel bug: Touch jump detected")
    }

    @Test func devicesDescribeThemselves() {
        let configured = TouchscreenDevice(
            name: "Fake Touchscreen", node: "/dev/input/event20", configuredPath: "/dev/input/by-path/fake-event",
            widthMillimeters: 255.9375, heightMillimeters: 127.9375, touchCount: 10)
        #expect(configured.description == #""Fake Touchscreen" (/dev/input/by-path/fake-event -> /dev/input/event20)"#)
        #expect(configured.summary == "255.9x127.9 mm, 10 touches")
        let plain = TouchscreenDevice(name: "Panel", node: "/dev/input/event5", configuredPath: "/dev/input/event5",
                                      widthMillimeters: 200, heightMillimeters: 120, touchCount: 1)
        #expect(plain.description == #""Panel" (/dev/input/event5)"#)
        #expect(plain.summary == "200x120 mm, 1 touch")
        #expect(TouchscreenDevice(name: "Old", node: "/dev/input/event9").summary == "size unknown")
    }

    @Test func errorsNameTheFunction() {
        #expect(InputError("libinput_dispatch", Errno(ENODEV)).description == "libinput_dispatch: No such device (errno 19)")
        #expect(InputError("libinput_udev_assign_seat", detail: #"cannot read the devices of seat "seat9""#).description
            == #"libinput_udev_assign_seat: cannot read the devices of seat "seat9""#)
    }

    @Test func libinputMessagesAreOneCauseWhateverTheirNumbers() {
        #expect(TouchscreenReader.withoutNumbers("event20 - Fake: client bug: event processing lagging behind by 26ms")
            == "eventN - Fake: client bug: event processing lagging behind by Nms")
    }
}
