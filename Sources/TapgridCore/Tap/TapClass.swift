/// What kind of press a tap was (docs/touch.md "Touch contacts and tap classes").
public enum TapClass: Int, Sendable, NamedCase {
    /// A press released in place (a plain tap request is always one).
    case tap
    /// Held `longPressMs` on a grid that routes `long`: fires once while still down.
    case long
    /// Held on a grid that routes `hold`: fires at `longPressMs`, then every `repeatMs`.
    case hold
    /// Two taps within `doubleTapMs` on a grid that routes `double`.
    case double
    /// A slider's value moved under its contact: at most once per `changeMs`, only when it
    /// differs from the last change (docs/touch.md "Sliders").
    case change
    /// A slider's contact lifted (or a plain tap on a slider): the final value, always.
    case release

    /// The class's JSON name, as static bytes.
    public var name: StaticString {
        switch self {
        case .tap: return "tap"
        case .long: return "long"
        case .hold: return "hold"
        case .double: return "double"
        case .change: return "change"
        case .release: return "release"
        }
    }
}

/// A layout's timing for tap classes (each overridable per layout; docs/touch.md "Touch contacts and tap classes").
public struct TouchTiming: Sendable, Equatable {
    public var longPressMs: Int = 500
    public var repeatMs: Int = 200
    public var doubleTapMs: Int = 250
    /// How far (layout units) a contact may move from its `down` and still be a press.
    public var slop: Double = 10

    public init(longPressMs: Int = 500, repeatMs: Int = 200, doubleTapMs: Int = 250, slop: Double = 10) {
        self.longPressMs = longPressMs
        self.repeatMs = repeatMs
        self.doubleTapMs = doubleTapMs
        self.slop = slop
    }
}

/// The handlers of a grid's classes other than `tap` (-1: not routed), kept only for the grids
/// that route one, so layouts without tap classes cost nothing. A slider's `release` goes to its
/// `tap` handler (the grid's `action`, else the first route for `tap` or `release`), so it has
/// no slot here; a slider routes neither `long`, `hold` nor `double`.
public struct ClassHandlers: Sendable, Equatable {
    public var long: Int32 = -1
    public var hold: Int32 = -1
    public var double: Int32 = -1
    /// A slider's `change` handler (routes with `"on": "change"`).
    public var change: Int32 = -1

    public init(long: Int32 = -1, hold: Int32 = -1, double: Int32 = -1, change: Int32 = -1) {
        self.long = long
        self.hold = hold
        self.double = double
        self.change = change
    }

    public subscript(_ tapClass: TapClass) -> Int32 {
        get {
            switch tapClass {
            case .tap, .release: return -1
            case .long: return long
            case .hold: return hold
            case .double: return double
            case .change: return change
            }
        }
        set {
            switch tapClass {
            case .tap, .release: break
            case .long: long = newValue
            case .hold: hold = newValue
            case .double: double = newValue
            case .change: change = newValue
            }
        }
    }

    public var isEmpty: Bool { long < 0 && hold < 0 && double < 0 && change < 0 }
}
