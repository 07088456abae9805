/// A grid's `"slider": {"min": 0, "max": 100, "step": 1, "vertical": true, "changeMs": 100}`: a
/// value control, as a dimmer or a fader (docs/touch.md "Sliders"). Kept in
/// `GridTree.sliders` by grid index, so grids without one carry nothing.
public struct SliderSpec: Sendable, Equatable {
    public var min: Double
    public var max: Double
    /// Above 0: values are `min` plus a whole number of steps.
    public var step: Double
    /// nil: vertical when the grid's rect is taller than wide (`isVertical(in:)`).
    public var vertical: Bool?
    /// `change` taps of one contact are at least this far apart (the last one waits for it).
    public var changeMs: Int

    public static let defaultChangeMs = 100

    public init(min: Double, max: Double, step: Double, vertical: Bool? = nil, changeMs: Int = SliderSpec.defaultChangeMs) {
        self.min = min
        self.max = max
        self.step = step
        self.vertical = vertical
        self.changeMs = changeMs
    }

    /// The largest number of steps above `min` that stays within `max` (a hair of tolerance, so
    /// `0.3 / 0.1 = 2.9999999999999996` counts as 3 steps).
    public var highestStep: Double { ((max - min) / step + 1e-9).rounded(.down) }

    /// The highest value a slider can take: `max`, or below it when `max - min` is not a whole
    /// number of steps.
    public var highestValue: Double { valueAt(steps: highestStep) }

    /// `value` clamped to [`min`, `max`] and rounded to the nearest multiple of `step` from `min`
    /// (a tie rounds up), as a slider's value and a `set` of one are.
    public func rounded(_ value: Double) -> Double {
        let clamped = value.isNaN ? min : Swift.min(max, Swift.max(min, value))
        let steps = ((clamped - min) / step + 0.5).rounded(.down)
        return valueAt(steps: Swift.min(steps, highestStep))
    }

    /// `min + steps x step`, rid of binary fractions' noise (`3 x 0.1` is 0.3, not
    /// 0.30000000000000004) by rounding to the decimals `min` and `step` are written with.
    func valueAt(steps: Double) -> Double {
        let raw = min + steps * step
        let places = Swift.max(Self.decimalPlaces(min), Self.decimalPlaces(step))
        guard places > 0, places <= 15 else { return Swift.min(max, Swift.max(min, raw)) }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let tidy = (raw * scale).rounded() / scale
        return Swift.min(max, Swift.max(min, tidy.isFinite ? tidy : raw))
    }

    /// How many decimals the shortest text of `value` has (`0.25` 2, `1e-05` 5, `100` 0).
    static func decimalPlaces(_ value: Double) -> Int {
        guard value.isFinite else { return 0 }
        let text = String(describing: abs(value))
        var mantissa = Substring(text)
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(text[text.index(after: e)...]) ?? 0
            mantissa = text[..<e]
        }
        var decimals = 0
        if let dot = mantissa.firstIndex(of: ".") {
            let digits = mantissa[mantissa.index(after: dot)...]
            decimals = digits == "0" ? 0 : digits.count
        }
        return Swift.max(0, decimals - exponent)
    }
}
