import Testing
import TapgridSystem
@testable import TapgridDaemon

/// The lines of one read share one time (docs/event-log-and-replay.md), and
/// time never goes back for the engine across batches.
@Suite struct RequestClockTests {
    @Test func aBatchReadsTheClockOnceAndTimeNeverGoesBack() {
        let clock = RequestClock()
        let before = clock.monotonic
        let (first, second, nested, wallFirst, wallSecond) = clock.batch {
            let first = clock.monotonic
            let wallFirst = clock.realtime
            Clock.sleep(nanoseconds: 2_000_000)
            let nested = clock.batch { clock.monotonic }  // a batch inside one is part of it
            return (first, clock.monotonic, nested, wallFirst, clock.realtime)
        }
        #expect(first == second && nested == first)
        #expect(wallFirst == wallSecond)
        #expect(first >= before)
        let after = clock.monotonic
        #expect(after >= first + 2_000_000, "outside a batch the clock is read afresh")
        let next = clock.batch { clock.monotonic }
        #expect(next >= after, "a new batch reads the clock again")
    }
}
