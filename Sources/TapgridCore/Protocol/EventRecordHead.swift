/// The start every event-log record shares: `{"time":"2026-11-29T10:00:00.123Z","run":"5f0c...",`.
///
/// The part up to the second is cached (a record per tap would otherwise turn the clock into a
/// calendar date each time); the run id is escaped once. The caller reads the clock and passes
/// it in, so this stays pure. Loop-owned.
public final class EventRecordHead {
    /// `Z","run":"<run id>",`: what follows the milliseconds.
    private let tail: [UInt8]
    private var cachedSecond: Int64 = .min
    /// `{"time":"YYYY-MM-DDTHH:MM:SS.` of `cachedSecond`.
    private let cached = ByteBuffer(capacity: 40)

    public init(runID: String) {
        var tail = Array(#"Z","run":"#.utf8)
        JSONWriter.appendString(runID, to: &tail)
        tail.append(0x2C)
        self.tail = tail
    }

    /// Appends the head for a wall-clock time (seconds since 1970 UTC, and nanoseconds).
    public func write(seconds: Int64, nanoseconds: Int64, into record: ByteBuffer) {
        if seconds != cachedSecond { cache(seconds) }
        record.append(cached.bytes)
        let ms = Int(nanoseconds / 1_000_000)
        let tens = ms % 100
        let digits = record.tail(room: 3)  // one room check for the three digits
        digits[0] = 0x30 + UInt8(truncatingIfNeeded: ms / 100)
        digits[1] = 0x30 + UInt8(truncatingIfNeeded: tens / 10)
        digits[2] = 0x30 + UInt8(truncatingIfNeeded: tens % 10)
        record.advance(3)
        record.append(tail)
    }

    private func cache(_ seconds: Int64) {
        cachedSecond = seconds
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = Self.civil(fromDays: days)
        cached.removeAll()
        cached.append(#"{"time":""#)
        Self.digits(Int(year), 4, cached)
        cached.append(0x2D)
        Self.digits(month, 2, cached)
        cached.append(0x2D)
        Self.digits(day, 2, cached)
        cached.append(0x54)
        Self.digits(secondOfDay / 3600, 2, cached)
        cached.append(0x3A)
        Self.digits(secondOfDay / 60 % 60, 2, cached)
        cached.append(0x3A)
        Self.digits(secondOfDay % 60, 2, cached)
        cached.append(0x2E)
    }

    /// Year, month and day of a day count since 1970-01-01 in the proleptic Gregorian calendar
    /// (Howard Hinnant's `civil_from_days`, public domain: eras of 400 years of 146,097 days).
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        let month = Int(shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9)
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func digits(_ value: Int, _ width: Int, _ out: ByteBuffer) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var v = value
        while divisor > 0 {
            out.append(0x30 + UInt8((v / divisor) % 10))
            v %= divisor
            divisor /= 10
        }
    }
}
