@preconcurrency import Glibc

/// Monotonic and wall-clock time without Foundation.
public enum Clock {
    /// Nanoseconds on `CLOCK_MONOTONIC`: for durations and deadlines (never jumps with NTP or
    /// the admin's `date`). The corresponding C function is `clock_gettime`.
    public static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// The current UTC time as ISO 8601 with milliseconds, e.g. `2026-11-29T10:00:00.123Z`,
    /// for event-log records. The corresponding C functions are `clock_gettime(CLOCK_REALTIME)`
    /// and `gmtime_r`.
    public static func wallClockISO8601() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return iso8601(seconds: ts.tv_sec, milliseconds: Int(ts.tv_nsec / 1_000_000))
    }

    /// Formats seconds since the epoch plus milliseconds as `YYYY-MM-DDTHH:MM:SS.mmmZ` (UTC).
    public static func iso8601(seconds: time_t, milliseconds: Int) -> String {
        var t = seconds
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(Int(parts.tm_year) + 1900, 4) + "-" + pad(Int(parts.tm_mon) + 1, 2) + "-" + pad(Int(parts.tm_mday), 2)
            + "T" + pad(Int(parts.tm_hour), 2) + ":" + pad(Int(parts.tm_min), 2) + ":" + pad(Int(parts.tm_sec), 2)
            + "." + pad(milliseconds, 3) + "Z"
    }
}
