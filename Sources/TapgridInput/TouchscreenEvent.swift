import TapgridSystem

/// One contact event of a touchscreen as libinput reported it, in plain Swift values: what the
/// daemon maps to layout units and hands to the recognizer.
public struct TouchSample: Sendable, Equatable {
    /// What the finger did.
    public enum Phase: UInt8, Sendable, CaseIterable {
        /// `LIBINPUT_EVENT_TOUCH_DOWN`: a finger touches.
        case down
        /// `LIBINPUT_EVENT_TOUCH_MOTION`: it moves.
        case move
        /// `LIBINPUT_EVENT_TOUCH_UP`: it lifts (at its last position: libinput gives none).
        case up
        /// `LIBINPUT_EVENT_TOUCH_CANCEL`, or its device vanished while it was down: the contact
        /// is void (at its last position).
        case cancel

        /// `down`, `move`, `up`, `cancel`: the socket protocol's and event log's words.
        public var name: String {
            switch self {
            case .down: return "down"
            case .move: return "move"
            case .up: return "up"
            case .cancel: return "cancel"
            }
        }
    }

    public var phase: Phase
    /// `libinput_event_touch_get_seat_slot`: unique across every device the reader has open, so
    /// it keys a contact even when several touchscreens are read at once.
    public var slot: Int32
    /// `libinput_event_touch_get_x_transformed(event, 1)`: the position as a fraction of the
    /// device's width (0 ..< 1, after a calibration matrix udev gave the device).
    public var x: Double
    /// `libinput_event_touch_get_y_transformed(event, 1)`: likewise for the height.
    public var y: Double
    /// `libinput_event_touch_get_time_usec`: the kernel's timestamp, `CLOCK_MONOTONIC`
    /// microseconds (libinput sets the device's clock to it).
    public var timeMicroseconds: UInt64
    /// `libinput_device_get_name` of the device, e.g. `Fake Touchscreen`.
    public var device: String

    public init(phase: Phase, slot: Int32, x: Double, y: Double, timeMicroseconds: UInt64, device: String) {
        self.phase = phase
        self.slot = slot
        self.x = x
        self.y = y
        self.timeMicroseconds = timeMicroseconds
        self.device = device
    }
}

/// A touchscreen the reader has open.
public struct TouchscreenDevice: Sendable, Equatable, CustomStringConvertible {
    /// `libinput_device_get_name`: what contacts carry as their source.
    public var name: String
    /// `/dev/input/` + `libinput_device_get_sysname`.
    public var node: String
    /// The path from `touch.devices` it was opened by (path backend), nil for the udev backend.
    public var configuredPath: String?
    /// `libinput_device_get_size`, when the device reports its resolution.
    public var widthMillimeters: Double?
    public var heightMillimeters: Double?
    /// `libinput_device_touch_get_touch_count`: how many fingers at once (0: unknown).
    public var touchCount: Int

    public init(name: String, node: String, configuredPath: String? = nil, widthMillimeters: Double? = nil,
                heightMillimeters: Double? = nil, touchCount: Int = 0) {
        self.name = name
        self.node = node
        self.configuredPath = configuredPath
        self.widthMillimeters = widthMillimeters
        self.heightMillimeters = heightMillimeters
        self.touchCount = touchCount
    }

    /// `"Fake Touchscreen" (/dev/input/by-path/x -> /dev/input/event20)`, without the configured
    /// path when it is the node itself or there is none.
    public var description: String {
        var text = "\"\(name)\" ("
        if let configuredPath, configuredPath != node { text += configuredPath + " -> " }
        return text + node + ")"
    }

    /// `200x120 mm, 10 touches`: what a log line says about it.
    public var summary: String {
        var parts: [String] = []
        if let width = widthMillimeters, let height = heightMillimeters {
            parts.append("\(Self.rounded(width))x\(Self.rounded(height)) mm")
        }
        if touchCount > 0 { parts.append(touchCount == 1 ? "1 touch" : "\(touchCount) touches") }
        return parts.isEmpty ? "size unknown" : parts.joined(separator: ", ")
    }

    private static func rounded(_ value: Double) -> String {
        let tenths = (value * 10).rounded() / 10
        return tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)
    }
}

/// Why a touchscreen cannot be read (yet). The reader reports each once per device and cause:
/// again only after the device worked in between or the cause changed.
public struct TouchscreenProblem: Sendable, Equatable, CustomStringConvertible {
    public enum Cause: Sendable, Equatable {
        /// `open` was refused (`EACCES`, `EPERM`): the daemon's user lacks the `input` group,
        /// or the service's device policy does not allow input devices.
        case permission(Errno)
        /// Nothing at that path (`ENOENT`), or the device is gone (`ENODEV`, `ENXIO`).
        case missing(Errno)
        /// `open` failed otherwise, or libinput refused the device (the words say which).
        case unusable(String)
        /// It opened, but libinput sees no touch capability (a keyboard, a mouse, a touchpad).
        case notATouchscreen(name: String)
        /// The same device is already open under another path.
        case duplicate(of: String)
        /// The udev backend found no touchscreen on the seat.
        case noTouchscreen
        /// A message libinput logged at error priority (kernel bugs, quirks problems).
        case libinput(String)
    }

    /// The device path (the configured one, or the node the udev backend tried), or for
    /// `.noTouchscreen` the seat's name.
    public var subject: String
    public var cause: Cause
    /// Whether the reader tries again by itself (a configured path, every
    /// `TouchscreenReader.retryInterval`).
    public var retrying: Bool

    public init(subject: String, cause: Cause, retrying: Bool) {
        self.subject = subject
        self.cause = cause
        self.retrying = retrying
    }

    /// The warning for people: which device, why, and what would fix it.
    public var description: String {
        let again = retrying ? "; trying again every \(TouchscreenReader.retryInterval.seconds) s" : ""
        switch cause {
        case .permission(let errno):
            return "touchscreen \(subject): cannot open it: \(errno); the daemon's user needs to be in the \"input\" group (under systemd: enable the drop-in tapgridd.service.d/touch.conf)" + again
        case .missing(let errno):
            return "touchscreen \(subject) is missing: \(errno)" + (retrying ? "; waiting for it to appear (checked every \(TouchscreenReader.retryInterval.seconds) s)" : "")
        case .unusable(let why):
            return "touchscreen \(subject): \(why)" + again
        case .notATouchscreen(let name):
            return "\(subject) (\"\(name)\") is not a touchscreen (libinput sees no touch capability); ignored"
        case .duplicate(let other):
            return "\(subject) is the same device as \(other); ignored"
        case .noTouchscreen:
            return "no touchscreen on seat \"\(subject)\" yet; waiting for one to be plugged in"
        case .libinput(let message):
            return "libinput: \(message)"
        }
    }
}

/// What `TouchscreenReader.read` hands out, in the order libinput reported it.
public enum TouchscreenEvent: Sendable, Equatable {
    /// A finger's contact, delivered when its frame (`LIBINPUT_EVENT_TOUCH_FRAME`) ends.
    case contact(TouchSample)
    /// `LIBINPUT_EVENT_DEVICE_ADDED` for a touchscreen.
    case added(TouchscreenDevice)
    /// `LIBINPUT_EVENT_DEVICE_REMOVED` for a touchscreen (unplugged, suspended); the path
    /// backend then waits for its path to return.
    case removed(TouchscreenDevice)
    /// A device that cannot be read (yet), or a libinput error message.
    case problem(TouchscreenProblem)
}

extension Duration {
    /// Whole seconds, for messages.
    var seconds: Int64 { components.seconds }
}
