import Testing

@testable import TapgridCore

/// The panel's sessions: a page's id gets one connection number, at most `limit` of them, and a
/// session without an open event stream for exactly 10 s is forgotten (its number comes out, so
/// its contacts are cancelled); one with a stream open never is.
@Suite struct PanelSessionsTests {
    static let s: UInt64 = 1_000_000_000

    /// Numbers 101, 102, ... as the daemon's connection counter hands them out.
    final class Counter {
        var next = 100
        var taken = 0
        func take() -> Int {
            next += 1
            taken += 1
            return next
        }
    }

    @Test func anIdKeepsItsNumber() {
        var sessions = PanelSessions(limit: 4)
        let counter = Counter()
        #expect(sessions.number(for: "a", now: 0, nextNumber: counter.take) == 101)
        #expect(sessions.number(for: "b", now: 0, nextNumber: counter.take) == 102)
        #expect(sessions.number(for: "a", now: 5 * Self.s, nextNumber: counter.take) == 101)
        #expect(sessions.streamOpened("b", now: 6 * Self.s, nextNumber: counter.take) == 102)
        // Only new sessions take a number.
        #expect(counter.taken == 2)
        #expect(sessions.count == 2)
        // A page that streams before it touches is one session too.
        #expect(sessions.streamOpened("c", now: 7 * Self.s, nextNumber: counter.take) == 103)
        #expect(sessions.number(for: "c", now: 8 * Self.s, nextNumber: counter.take) == 103)
        #expect(sessions.count == 3)
    }

    @Test func pastTheLimitNewSessionsAreRefused() {
        var sessions = PanelSessions(limit: 2)
        let counter = Counter()
        #expect(sessions.number(for: "a", now: 0, nextNumber: counter.take) == 101)
        #expect(sessions.streamOpened("b", now: 0, nextNumber: counter.take) == 102)
        #expect(sessions.number(for: "c", now: 0, nextNumber: counter.take) == nil)
        #expect(sessions.streamOpened("c", now: 0, nextNumber: counter.take) == nil)
        #expect(counter.taken == 2)
        #expect(sessions.count == 2)
        #expect(sessions.sessions["c"] == nil)
        // Known sessions still get theirs, and open more streams.
        #expect(sessions.number(for: "a", now: 1, nextNumber: counter.take) == 101)
        #expect(sessions.streamOpened("a", now: 1, nextNumber: counter.take) == 101)
        // Once one ends, there is room again.
        sessions.streamClosed("b", now: 0)
        #expect(sessions.expire(now: PanelSessions.orphanNanos) == [102])
        #expect(sessions.number(for: "c", now: PanelSessions.orphanNanos, nextNumber: counter.take) == 103)
    }

    @Test func streamsOpenAndClose() {
        var sessions = PanelSessions(limit: 8)
        let counter = Counter()
        _ = sessions.number(for: "a", now: 3, nextNumber: counter.take)
        #expect(sessions.sessions["a"] == PanelSessions.Session(number: 101, streams: 0, streamlessSince: 3))
        _ = sessions.streamOpened("a", now: 4, nextNumber: counter.take)
        _ = sessions.streamOpened("a", now: 5, nextNumber: counter.take)
        #expect(sessions.sessions["a"] == PanelSessions.Session(number: 101, streams: 2, streamlessSince: nil))
        // One of two closing leaves it streaming.
        sessions.streamClosed("a", now: 6)
        #expect(sessions.sessions["a"] == PanelSessions.Session(number: 101, streams: 1, streamlessSince: nil))
        sessions.streamClosed("a", now: 7)
        #expect(sessions.sessions["a"] == PanelSessions.Session(number: 101, streams: 0, streamlessSince: 7))
        // Closing a stream of an unknown session changes nothing.
        sessions.streamClosed("nobody", now: 8)
        #expect(sessions.count == 1)
        #expect(sessions.sessions["nobody"] == nil)
    }

    @Test func aStreamlessSessionExpiresAfterExactlyTenSeconds() {
        var sessions = PanelSessions(limit: 8)
        let counter = Counter()
        #expect(PanelSessions.orphanNanos == 10 * Self.s)
        let start: UInt64 = 1_000 * Self.s
        _ = sessions.number(for: "a", now: start, nextNumber: counter.take)
        #expect(sessions.nextExpiry == start + 10 * Self.s)
        #expect(sessions.expire(now: start + 10 * Self.s - 1) == [])
        #expect(sessions.count == 1)
        #expect(sessions.expire(now: start + 10 * Self.s) == [101])
        #expect(sessions.count == 0)
        #expect(sessions.nextExpiry == nil)
        // Expired: the id is a new session with a new number.
        #expect(sessions.number(for: "a", now: start + 11 * Self.s, nextNumber: counter.take) == 102)
    }

    @Test func aSessionWithAStreamNeverExpires() {
        var sessions = PanelSessions(limit: 8)
        let counter = Counter()
        _ = sessions.streamOpened("a", now: 0, nextNumber: counter.take)
        _ = sessions.number(for: "a", now: 1, nextNumber: counter.take)
        #expect(sessions.nextExpiry == nil)
        #expect(sessions.expire(now: 1_000_000 * Self.s) == [])
        #expect(sessions.count == 1)
        // Its 10 s start when its last stream closes, not when it was made.
        sessions.streamClosed("a", now: 50 * Self.s)
        #expect(sessions.nextExpiry == 60 * Self.s)
        #expect(sessions.expire(now: 60 * Self.s - 1) == [])
        // A stream reopened in time saves it.
        _ = sessions.streamOpened("a", now: 59 * Self.s, nextNumber: counter.take)
        #expect(sessions.expire(now: 100 * Self.s) == [])
        #expect(sessions.sessions["a"]?.number == 101)
        #expect(counter.taken == 1)
    }

    @Test func onlyTheStreamlessOnesExpireInNumberOrder() {
        var sessions = PanelSessions(limit: 8)
        let counter = Counter()
        _ = sessions.number(for: "x", now: 2 * Self.s, nextNumber: counter.take)  // 101, until 12 s
        _ = sessions.streamOpened("y", now: 0, nextNumber: counter.take)  // 102, streaming
        _ = sessions.number(for: "z", now: 0, nextNumber: counter.take)  // 103, until 10 s
        _ = sessions.number(for: "w", now: 1 * Self.s, nextNumber: counter.take)  // 104, until 11 s
        #expect(sessions.nextExpiry == 10 * Self.s)
        #expect(sessions.expire(now: 10 * Self.s) == [103])
        #expect(sessions.nextExpiry == 11 * Self.s)
        #expect(sessions.expire(now: 20 * Self.s) == [101, 104])
        #expect(Set(sessions.sessions.keys) == ["y"])
        #expect(sessions.nextExpiry == nil)
    }
}
