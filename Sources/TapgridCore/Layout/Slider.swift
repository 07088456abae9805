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

    /// Whether the value runs along y (from the bottom edge up) in a grid of this rect.
    public func isVertical(in rect: Rect) -> Bool { vertical ?? (abs(rect.height) > abs(rect.width)) }

    /// The largest number of steps above `min` that stays within `max` (a hair of tolerance, so
    /// `0.3 / 0.1 = 2.9999999999999996` counts as 3 steps).
    public var highestStep: Double { ((max - min) / step + 1e-9).rounded(.down) }

    /// The highest value a slider can take: `max`, or below it when `max - min` is not a whole
    /// number of steps.
    public var highestValue: Double { valueAt(steps: highestStep) }

    /// The value of the contact at (x, y) on a slider whose grid has `rect`: `min` + (`max` -
    /// `min`) x the position along the rect (from the left edge, from the right in an `rtl`
    /// layout, from the bottom edge when vertical), clamped to [`min`, `max`] and rounded to the
    /// nearest multiple of `step` counted from `min` (a tie rounds up; a multiple past `max`
    /// gives the one below it).
    public func value(atX x: Double, y: Double, in rect: Rect, direction: LayoutDirection) -> Double {
        let x0 = rect.width < 0 ? rect.x + rect.width : rect.x
        let y0 = rect.height < 0 ? rect.y + rect.height : rect.y
        let width = abs(rect.width), height = abs(rect.height)
        let fraction: Double
        if isVertical(in: rect) {
            fraction = height > 0 ? (y0 + height - y) / height : 0
        } else if direction == .rtl {
            fraction = width > 0 ? (x0 + width - x) / width : 0
        } else {
            fraction = width > 0 ? (x - x0) / width : 0
        }
        // NaN (a NaN coordinate) counts as the low end.
        let clamped = fraction.isNaN ? 0 : Swift.min(1, Swift.max(0, fraction))
        return rounded(min + (max - min) * clamped)
    }

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

/// A slider where it is drawn: its spec, its grid's rect and the layout's direction, all the
/// value of a point needs.
public struct SliderPlace: Sendable, Equatable {
    public var spec: SliderSpec
    public var rect: Rect
    public var direction: LayoutDirection

    public init(spec: SliderSpec, rect: Rect, direction: LayoutDirection) {
        self.spec = spec
        self.rect = rect
        self.direction = direction
    }

    /// The value at (x, y) (`SliderSpec.value(atX:y:in:direction:)`).
    public func value(atX x: Double, y: Double) -> Double { spec.value(atX: x, y: y, in: rect, direction: direction) }
}
