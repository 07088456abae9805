import Testing

@testable import TapgridDaemon

/// When the log sink tries the journal again after a failed send (given times, no I/O).
@Suite struct JournalRetryTests {
    static let second: UInt64 = 1_000_000_000

    @Test func aWorkingJournalIsAlwaysTriedAndNothingIsSaid() {
        var retry = JournalRetry()
        #expect(retry.shouldTry(now: 0) && retry.shouldTry(now: 1000 * Self.second))
        let said1 = retry.succeeded()
        #expect(!said1)
        #expect(retry.failedAt == nil)
    }

    /// The first failure is news (said once); until 30 s later nothing is sent; a retry that
    /// fails again is not news and waits another 30 s; one that works says the journal is back.
    @Test func afterAFailureTheJournalIsTriedEvery30Seconds() {
        var retry = JournalRetry()
        let said2 = retry.failed(now: 100 * Self.second)
        #expect(said2)
        #expect(!retry.shouldTry(now: 100 * Self.second + 1))
        #expect(!retry.shouldTry(now: 130 * Self.second - 1))
        #expect(retry.shouldTry(now: 130 * Self.second))
        let said3 = retry.failed(now: 130 * Self.second)
        #expect(!said3)
        #expect(!retry.shouldTry(now: 159 * Self.second))
        #expect(retry.shouldTry(now: 160 * Self.second))
        let said4 = retry.succeeded()
        #expect(said4)
        #expect(retry.shouldTry(now: 160 * Self.second + 1))
        let said5 = retry.succeeded()
        #expect(!said5)
        let said6 = retry.failed(now: 200 * Self.second)
        #expect(said6)
    }
}
