import TapgridCore
import TapgridSystem

/// Wall-clock times for people, in the local time zone: `12:03:04` on the day it is now, else
/// `2026-12-05 12:03:04` (a screen off since yesterday). The replies carry seconds since 1970
/// UTC (`ScreenStatus.since`); the clock and the zone are passed in, so tests fix both.
struct LocalTime {
    /// Now, seconds since 1970 UTC.
    var now: Double
    /// The zone's offset from UTC at a time (`Clock.utcOffsetSeconds`).
    var utcOffset: (Int64) -> Int

    /// This machine's clock and zone.
    static func system() -> LocalTime {
        let (seconds, nanoseconds) = Clock.realtime()
        return LocalTime(now: Double(seconds) + Double(nanoseconds) / 1e9, utcOffset: Clock.utcOffsetSeconds(at:))
    }

    func text(_ seconds: Double) -> String {
        let (day, secondOfDay) = local(seconds)
        let clock = [secondOfDay / 3600, secondOfDay / 60 % 60, secondOfDay % 60].map { Self.digits($0, 2) }.joined(separator: ":")
        guard day != local(now).day else { return clock }
        let (year, month, dayOfMonth) = EventRecordHead.civil(fromDays: day)
        return "\(Self.digits(Int(year), 4))-\(Self.digits(month, 2))-\(Self.digits(dayOfMonth, 2)) \(clock)"
    }

    /// The local day (days since 1970-01-01) and the second within it.
    private func local(_ seconds: Double) -> (day: Int64, secondOfDay: Int) {
        let whole = Int64(seconds.rounded(.down))
        let shifted = whole + Int64(utcOffset(whole))
        let day = shifted >= 0 ? shifted / 86_400 : (shifted - 86_399) / 86_400
        return (day, Int(shifted - day * 86_400))
    }

    private static func digits(_ value: Int, _ count: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, count - text.count)) + text
    }
}
