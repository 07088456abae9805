/// The `time` of an event-log record (`2026-11-29T10:00:00.123Z`, as `EventRecordHead` writes it)
/// read back as seconds since 1970, so that `replay --dispatch` can space the taps as they were
/// recorded. Only differences between records matter; a day boundary, a month's end or a leap
/// day in between must still give the right gap, hence a real calendar and not the clock fields.
enum RecordedTime {
    /// - Returns: seconds since 1970-01-01T00:00:00Z, or nil for anything but
    ///   `YYYY-MM-DDTHH:MM:SS[.fraction]Z` with fields in range (a hand-written log may carry
    ///   none or another format; its taps are then sent without waiting).
    static func seconds(_ text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[4] == UInt8(ascii: "-"),
            bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"),
            bytes[16] == UInt8(ascii: ":"),
            let year = number(bytes[0..<4]), let month = number(bytes[5..<7]), let day = number(bytes[8..<10]),
            let hour = number(bytes[11..<13]), let minute = number(bytes[14..<16]), let second = number(bytes[17..<19]),
            (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 61  // 60: a leap second
        else { return nil }
        var fraction = 0.0
        let rest = bytes[19..<(bytes.count - 1)]
        if !rest.isEmpty {
            guard rest.first == UInt8(ascii: "."), rest.count > 1 else { return nil }
            var scale = 0.1
            for byte in rest.dropFirst() {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                fraction += Double(byte - UInt8(ascii: "0")) * scale
                scale /= 10
            }
        }
        let days = daysSince1970(year: year, month: month, day: day)
        return Double(days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) + fraction
    }

    private static func number(_ digits: ArraySlice<UInt8>) -> Int? {
        var value = 0
        for byte in digits {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`, public domain; the inverse of what `EventRecordHead` uses to write it).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = Int64((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1)
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
