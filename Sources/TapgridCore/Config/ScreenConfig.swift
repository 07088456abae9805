/// `screen` in the config: when the screen dims and goes off, what the waking touch does, the
/// backlight's levels and the commands run on each change (docs/configuration.md, the `screen`
/// block). `ScreenMachine` runs its timers; `ScreenConfig.Backlight.brightness` turns a level
/// into what sysfs takes.
public struct ScreenConfig: Sendable, Equatable {
    /// What a contact that goes down on a dark screen (`dim` or `off`) does besides waking it.
    public enum WakeTouch: String, Sendable, Equatable, CaseIterable {
        /// It is used up: no tap, no class, no touch records; a `wake` record instead.
        case consume
        /// It counts as any contact (its screen record's reason is `touch`).
        case pass
    }

    /// `dimSeconds`: how long after the last person's contact (or wake) the screen dims; nil: never.
    public var dimSeconds: Double?
    /// `offSeconds`: how long after the last person's contact (or wake) it goes off; nil: never.
    /// Above `dimSeconds` when both are given.
    public var offSeconds: Double?
    /// `wakeTouch`: `consume` unless the config says `pass`.
    public var wakeTouch: WakeTouch = .consume
    /// `backlight`: the sysfs folder written on each change; nil: none (the page still darkens).
    public var backlight: Backlight?
    /// `commands`: argv run as a supervised child on entering each state.
    public var commands = Commands()

    public init(dimSeconds: Double? = nil, offSeconds: Double? = nil, wakeTouch: WakeTouch = .consume,
                backlight: Backlight? = nil, commands: Commands = Commands()) {
        self.dimSeconds = dimSeconds
        self.offSeconds = offSeconds
        self.wakeTouch = wakeTouch
        self.backlight = backlight
        self.commands = commands
    }

    /// `backlight`: `{"path": "/sys/class/backlight/rpi_backlight", "on": "max", "dim": 20, "off": 0}`.
    public struct Backlight: Sendable, Equatable {
        /// The backlight's folder (absolute, or resolved against the config's folder): it holds
        /// `brightness` (written) and `max_brightness` (read for `"max"`).
        public var path: String
        /// `on`: `"max"` unless given.
        public var on: BacklightLevel = .max
        /// `dim`: a fifth of `max_brightness` unless given (`BacklightLevel.defaultDim`).
        public var dim: BacklightLevel = .defaultDim
        /// `off`: 0 unless given.
        public var off: BacklightLevel = .value(0)

        public init(path: String, on: BacklightLevel = .max, dim: BacklightLevel = .defaultDim, off: BacklightLevel = .value(0)) {
            self.path = path
            self.on = on
            self.dim = dim
            self.off = off
        }

        /// The file written on each change.
        public var brightnessFile: String { path + "/brightness" }
        /// The file read for `"max"` (and to check the levels against).
        public var maxBrightnessFile: String { path + "/max_brightness" }

        public subscript(_ state: ScreenState) -> BacklightLevel {
            switch state {
            case .on: return on
            case .dim: return dim
            case .off: return off
            }
        }
    }

    /// `commands`: `{"on": ["wlopm", "--on", "*"], "off": ["wlopm", "--off", "*"]}`; a state
    /// without one runs nothing.
    public struct Commands: Sendable, Equatable {
        public var on: [String]?
        public var dim: [String]?
        public var off: [String]?

        public init(on: [String]? = nil, dim: [String]? = nil, off: [String]? = nil) {
            self.on = on
            self.dim = dim
            self.off = off
        }

        /// The argv to run on entering `state`, nil for none.
        public subscript(_ state: ScreenState) -> [String]? {
            switch state {
            case .on: return on
            case .dim: return dim
            case .off: return off
            }
        }
    }
}

/// A backlight level as the config gives it.
public enum BacklightLevel: Sendable, Equatable {
    /// `"max"`: the value in `max_brightness`.
    case max
    /// A number written as it is (a number above `max_brightness` is written as `max_brightness`,
    /// with a warning: sysfs refuses it).
    case value(Int)
    /// `percent` of `max_brightness`, rounded down but at least 1 (a backlight that knows only
    /// on and off stays on): only as `dim`'s default, which the config cannot write.
    case percentOfMax(Int)

    /// `dim` when the config gives none: 20 % of `max_brightness`, readable in a dark room and a
    /// fifth of the power, whatever scale the panel's driver uses (7, 100, 255, 96000...).
    public static let defaultDim = BacklightLevel.percentOfMax(20)
}
