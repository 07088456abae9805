import Testing

@testable import TapgridCore

/// The pacing the panel's batches, the fleet's rounds and the heap trims share, with a clock
/// passed in: at once after a quiet spell, at most once per interval in a burst.
@Suite struct PacingTests {
    @Test func atOnceAfterAQuietSpellThenOncePerInterval() {
        var pacing = Pacing(intervalNanos: 20)
        #expect(pacing.mayRun(now: 5) && pacing.due(now: 5) == 5, "never ran: at once")
        pacing.ran(at: 100)
        #expect(!pacing.mayRun(now: 101))
        #expect(pacing.due(now: 101) == 120, "in a burst: an interval after the last run")
        #expect(pacing.due(now: 119) == 120)
        #expect(pacing.mayRun(now: 120) && pacing.due(now: 120) == 120)
        #expect(pacing.due(now: 500) == 500, "after a quiet spell: at once")
        pacing.ran(at: 120)
        #expect(pacing.lastRun == 120 && pacing.due(now: 121) == 140)
    }
}
