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

    /// The class's JSON name, as static bytes.
    public var name: StaticString {
        switch self {
        case .tap: return "tap"
        case .long: return "long"
        case .hold: return "hold"
        case .double: return "double"
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
/// that route one, so layouts without tap classes cost nothing.
public struct ClassHandlers: Sendable, Equatable {
    public var long: Int32 = -1
    public var hold: Int32 = -1
    public var double: Int32 = -1

    public init(long: Int32 = -1, hold: Int32 = -1, double: Int32 = -1) {
        self.long = long
        self.hold = hold
        self.double = double
    }

    public subscript(_ tapClass: TapClass) -> Int32 {
        get {
            switch tapClass {
            case .tap: return -1
            case .long: return long
            case .hold: return hold
            case .double: return double
            }
        }
        set {
            switch tapClass {
            case .tap: break
            case .long: long = newValue
            case .hold: hold = newValue
            case .double: double = newValue
            }
        }
    }

    public var isEmpty: Bool { long < 0 && hold < 0 && double < 0 }
}
