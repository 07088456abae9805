@preconcurrency import Glibc
import Testing

@testable import TapgridCore
@testable import TapgridDaemon
import TapgridInput
@testable import TapgridSystem

/// The daemon's touchscreen input without a device: what a contact becomes (the current layout's
/// size, the config's mapping, nanoseconds, the device's name) and what `configure` keeps,
/// replaces and closes. Devices through libinput are the end-to-end tests' (umockdev).
@Suite struct TouchscreenInputTests {
    /// What the sink sees: the layout size to map onto, the contacts received.
    final class Seen: TouchscreenSink {
        var size = (width: 800.0, height: 480.0)
        var contacts: [TouchscreenContact] = []

        func touchscreenContact(_ sample: TouchSample, mapping: TouchMapping) -> TouchscreenContact {
            let contact = TouchscreenContact(sample, mapping: mapping, width: size.width, height: size.height)
            contacts.append(contact)
            return contact
        }
    }

    struct Harness {
        let loop: EventLoop
        let input: TouchscreenInput
        let seen = Seen()
        var contacts: [TouchscreenContact] { seen.contacts }

        init() throws {
            loop = try EventLoop()
            // Warnings about the test's missing devices go to stderr: see `quietly`.
            let log = LogSink(verbose: false, journal: false, priorityPrefixes: false)
            input = TouchscreenInput(loop: loop, log: log, sink: seen)
        }
    }

    static let missing = "/dev/input/by-path/tapgrid-test-missing-event"

    /// Runs `body` with stderr on /dev/null (the warnings are the end-to-end tests' to check;
    /// here they would only be noise in `make test`).
    static func quietly(_ body: () throws -> Void) rethrows {
        let saved = dup(2)
        let null = open("/dev/null", O_WRONLY | O_CLOEXEC)
        dup2(null, 2)
        close(null)
        defer {
            dup2(saved, 2)
            close(saved)
        }
        try body()
    }

    @Test func contactsAreMappedOntoTheCurrentLayout() throws {
        let harness = try Harness()
        Self.quietly {
            harness.input.configure(TouchConfig(
                source: .devices([Self.missing]), rotation: .clockwise90, calibration: TouchMatrix(0.5, 0, 0.25, 0, 1, 0)))
        }
        // (0.25, 0.25): calibration -> (0.375, 0.25), 90° -> (0.75, 0.375), 800 x 480 -> (600, 180).
        harness.input.deliver(TouchSample(phase: .down, slot: 3, x: 0.25, y: 0.25, timeMicroseconds: 1_500_250, device: "Panel"))
        // The layout switched: the next contact uses the new size.
        harness.seen.size = (400, 100)
        harness.input.deliver(TouchSample(phase: .up, slot: 3, x: 0.25, y: 0.25, timeMicroseconds: 1_600_000, device: "Panel"))
        #expect(harness.contacts == [
            TouchscreenContact(phase: .down, slot: 3, x: 600, y: 180, timeNanos: 1_500_250_000, source: "Panel"),
            TouchscreenContact(phase: .up, slot: 3, x: 300, y: 37.5, timeNanos: 1_600_000_000, source: "Panel"),
        ])
    }

    @Test func configureKeepsReplacesAndCloses() throws {
        let harness = try Harness()
        let input = harness.input
        Self.quietly { input.configure(TouchConfig(source: .devices([Self.missing]))) }
        #expect(input.isReading)
        #expect(input.isRetrying)  // the missing path is looked for every 2 s
        // Same devices, another rotation: the mapping changes at once.
        input.configure(TouchConfig(source: .devices([Self.missing]), rotation: .clockwise180))
        input.deliver(TouchSample(phase: .down, slot: 0, x: 0.25, y: 0.25, timeMicroseconds: 0, device: "Panel"))
        #expect(harness.contacts.last.map { [$0.x, $0.y] } == [600, 360])
        #expect(input.config?.rotation == .clockwise180)
        // No touch any more: closed, the timer stopped.
        input.configure(nil)
        #expect(!input.isReading)
        #expect(!input.isRetrying)
        #expect(input.config == nil)
        // Back, as a seat (none here): reading, nothing to retry (udev follows the seat).
        Self.quietly { input.configure(TouchConfig(source: .seat("seat-tapgrid-test"))) }
        #expect(input.isReading)
        #expect(!input.isRetrying)
    }
}
