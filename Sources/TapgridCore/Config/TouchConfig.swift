/// `touch` in the config: which touchscreens the daemon reads through libinput, and how their
/// positions map onto the layout.
public struct TouchConfig: Sendable, Equatable {
    /// Where the touchscreens come from.
    public enum Source: Sendable, Equatable {
        /// `"devices"`: these device nodes, through libinput's path backend (absolute paths,
        /// preferably the stable `/dev/input/by-path/...` or `/dev/input/by-id/...` links).
        case devices([String])
        /// `"seat"`: every touchscreen of this udev seat (e.g. `seat0`), through libinput's udev
        /// backend, which follows hotplug.
        case seat(String)
    }

    public var source: Source
    /// `rotation`: degrees clockwise, default 0.
    public var rotation: TouchRotation = .none
    /// `calibration`: libinput's 6-float matrix, applied before the rotation; default identity.
    public var calibration: TouchMatrix = .identity

    public init(source: Source, rotation: TouchRotation = .none, calibration: TouchMatrix = .identity) {
        self.source = source
        self.rotation = rotation
        self.calibration = calibration
    }

    /// The position mapping these settings make.
    public var mapping: TouchMapping { TouchMapping(rotation: rotation, calibration: calibration) }
}
