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

    /// The wall-clock time as seconds since 1970 UTC and nanoseconds (event-log records).
    /// The corresponding C function is `clock_gettime(CLOCK_REALTIME)`.
    public static func realtime() -> (seconds: Int64, nanoseconds: Int64) {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return (Int64(ts.tv_sec), Int64(ts.tv_nsec))
    }

    /// How far the local time zone is ahead of UTC at a wall-clock time (seconds since 1970 UTC),
    /// in seconds, daylight saving included: `tm_gmtoff` of `localtime_r` (the zone is `$TZ`, else
    /// `/etc/localtime`). 0 when the time cannot be converted. For times shown to people (`tapgrid`).
    public static func utcOffsetSeconds(at seconds: Int64) -> Int {
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
    }

    /// Sleeps the calling thread (the CLI's pauses; never the daemon's loop).
    /// The corresponding C function is `nanosleep`.
    public static func sleep(nanoseconds: UInt64) {
        var request = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
        var remaining = timespec()
        // Each retry sleeps what the interrupted call left.
        _ = try? SystemCall.blocking { () -> CInt in
            let result = nanosleep(&request, &remaining)
            request = remaining
            return result
        }
    }
}
