/// The panel's sessions: each page is one (its random `session` id), owning its contacts'
/// slots as a socket connection does. A session without an open event stream for
/// `orphanNanos` has its contacts cancelled and is forgotten (the page was closed, or its
/// network went away mid-press). Pure: time comes in, the sessions to end come out.
public struct PanelSessions: Sendable {
    /// 10 s (docs/panel.md "Browser panel").
    public static let orphanNanos: UInt64 = 10_000_000_000

    public struct Session: Sendable, Equatable {
        /// The connection number its contacts and records carry (`conn`).
        public var number: Int
        public var streams = 0
        /// Since when it has had no stream (creation counts); nil while one is open.
        public var streamlessSince: UInt64?
    }

    public private(set) var sessions: [String: Session] = [:]
    /// At most this many sessions at once; past it new ones are refused (503).
    public let limit: Int

    public init(limit: Int) { self.limit = limit }

    public var count: Int { sessions.count }

    /// The session's connection number: known, or new with `nextNumber()` (nil when full).
    public mutating func number(for id: String, now: UInt64, nextNumber: () -> Int) -> Int? {
        if let known = sessions[id] { return known.number }
        guard sessions.count < limit else { return nil }
        let number = nextNumber()
        sessions[id] = Session(number: number, streamlessSince: now)
        return number
    }

    /// A stream opened for `id` (creating the session, so a page that streams before it touches
    /// is one session); nil when full.
    public mutating func streamOpened(_ id: String, now: UInt64, nextNumber: () -> Int) -> Int? {
        guard let number = number(for: id, now: now, nextNumber: nextNumber) else { return nil }
        sessions[id]!.streams += 1
        sessions[id]!.streamlessSince = nil
        return number
    }

    public mutating func streamClosed(_ id: String, now: UInt64) {
        guard var session = sessions[id] else { return }
        session.streams = max(0, session.streams - 1)
        if session.streams == 0 { session.streamlessSince = now }
        sessions[id] = session
    }

    /// Removes the sessions streamless for `orphanNanos` by `now`.
    /// - Returns: their connection numbers (their contacts are to be cancelled).
    public mutating func expire(now: UInt64) -> [Int] {
        var ended: [Int] = []
        for (id, session) in sessions {
            if let since = session.streamlessSince, now >= since &+ Self.orphanNanos {
                ended.append(session.number)
                sessions[id] = nil
            }
        }
        return ended.sorted()
    }

    /// When the next session would expire, if one can.
    public var nextExpiry: UInt64? {
        sessions.values.compactMap { $0.streamlessSince.map { $0 &+ Self.orphanNanos } }.min()
    }
}
