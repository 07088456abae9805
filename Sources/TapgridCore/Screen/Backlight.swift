/// The backlight's value for a state, as sysfs takes it (docs/configuration.md, the `screen`
/// block): the number and a newline, written to `<path>/brightness` with the file truncated;
/// `"max"` is the number in `<path>/max_brightness`. Pure: the daemon reads `max_brightness`
/// and writes the bytes.
extension ScreenConfig.Backlight {
    /// `max_brightness`'s text (`"255\n"`) as a number; nil for anything but a decimal integer
    /// from 0 to 2147483647 (sysfs prints an `int`), surrounded by nothing but whitespace.
    public static func maxBrightness(from text: [UInt8]) -> Int? {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return nil }
        let digits = text[first...last]
        guard digits.count <= 10, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let value = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
        return value <= Int(Int32.max) ? value : nil
    }

    /// The value for `state`. A number above `maxBrightness` is `maxBrightness` (sysfs refuses
    /// more; `levelWarnings` says so at start).
    /// - Parameter maxBrightness: what `max_brightness` holds, nil when it could not be read.
    /// - Returns: nil when the level needs `max_brightness` (`"max"`, the default `dim`) and it
    ///   is unknown.
    public func value(for state: ScreenState, maxBrightness: Int?) -> Int? {
        switch self[state] {
        case .max:
            return maxBrightness
        case .value(let value):
            guard let maxBrightness else { return value }
            return min(value, maxBrightness)
        case .percentOfMax(let percent):
            guard let maxBrightness else { return nil }
            return maxBrightness > 0 ? max(1, maxBrightness * percent / 100) : 0
        }
    }

    /// The bytes to write to `brightnessFile` for `state` (`"20\n"`); nil as `value` says.
    public func brightness(for state: ScreenState, maxBrightness: Int?) -> [UInt8]? {
        value(for: state, maxBrightness: maxBrightness).map { Array("\($0)\n".utf8) }
    }

    /// A warning for each configured number above `max_brightness`, to log at start (and after a
    /// reload): what is written instead.
    /// - Parameter file: the config file, as diagnostics name it.
    public func levelWarnings(maxBrightness: Int, file: String?) -> [Diagnostic] {
        ScreenState.allCases.compactMap { state in
            guard case .value(let value) = self[state], value > maxBrightness else { return nil }
            return Diagnostic(.warning, file: file,
                "screen.backlight.\(state.name): \(value) is above max_brightness (\(maxBrightness) in \(maxBrightnessFile)); \(maxBrightness) is written instead")
        }
    }
}
