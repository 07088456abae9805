/// An affine map of the plane in libinput's 6-float form `[a, b, c, d, e, f]`: the first two
/// rows of the 3x3 matrix that takes `(x, y, 1)` to `(a·x + b·y + c, d·x + e·y + f, 1)`.
///
/// The same form as libinput's `LIBINPUT_CALIBRATION_MATRIX` and
/// `libinput_device_config_calibration_set_matrix`: it works on positions normalized to the
/// device (0...1 across its width and height), so the translation terms `c` and `f` are in device
/// widths and heights (1 = the whole width).
public struct TouchMatrix: Sendable, Equatable, CustomStringConvertible {
    public var a: Double, b: Double, c: Double
    public var d: Double, e: Double, f: Double

    public init(_ a: Double, _ b: Double, _ c: Double, _ d: Double, _ e: Double, _ f: Double) {
        (self.a, self.b, self.c, self.d, self.e, self.f) = (a, b, c, d, e, f)
    }

    /// The six values in order; nil unless there are exactly six.
    public init?(_ values: [Double]) {
        guard values.count == 6 else { return nil }
        self.init(values[0], values[1], values[2], values[3], values[4], values[5])
    }

    /// `1 0 0 0 1 0`: leaves every point where it is.
    public static let identity = TouchMatrix(1, 0, 0, 0, 1, 0)

    public var values: [Double] { [a, b, c, d, e, f] }

    /// `a·e − b·d`: 0 when the matrix squeezes the whole screen onto a line or a point.
    public var determinant: Double { a * e - b * d }

    /// The point `(x, y)` mapped.
    @inlinable
    public func apply(x: Double, y: Double) -> (x: Double, y: Double) {
        (a * x + b * y + c, d * x + e * y + f)
    }

    /// This matrix applied after `first`: one matrix for `self.apply(first.apply(p))`.
    public func after(_ first: TouchMatrix) -> TouchMatrix {
        TouchMatrix(
            a * first.a + b * first.d, a * first.b + b * first.e, a * first.c + b * first.f + c,
            d * first.a + e * first.d, d * first.b + e * first.e, d * first.c + e * first.f + f)
    }

    /// `[1, 0, 0, 0, 1, 0]` (shortest decimals), as a config writes it.
    public var description: String { "[" + values.map(formatNumber).joined(separator: ", ") + "]" }
}

/// How far the touchscreen is turned relative to the layout, clockwise (`touch.rotation`).
public enum TouchRotation: Int, Sendable, CaseIterable {
    case none = 0
    case clockwise90 = 90
    case clockwise180 = 180
    case clockwise270 = 270

    /// The matrix libinput documents for this many degrees clockwise (its calibration-matrix
    /// page): 0° `1 0 0 0 1 0`, 90° `0 -1 1 1 0 0`, 180° `-1 0 1 0 -1 1`, 270° `0 1 0 -1 0 1`.
    public var matrix: TouchMatrix {
        switch self {
        case .none: return .identity
        case .clockwise90: return TouchMatrix(0, -1, 1, 1, 0, 0)
        case .clockwise180: return TouchMatrix(-1, 0, 1, 0, -1, 1)
        case .clockwise270: return TouchMatrix(0, 1, 0, -1, 0, 1)
        }
    }
}

/// From the position libinput reports for a touch to layout units: pure, so every rotation and
/// calibration is tested without a device.
///
/// The input is `libinput_event_touch_get_x_transformed(event, 1)` and `_y_transformed(event, 1)`:
/// the touch as a fraction of the device's width and height (0 ..< 1, after any calibration
/// matrix udev gave the device). tapgridd then applies `touch.calibration` (libinput's 6-float
/// form), then the rotation's matrix, then scales to the current layout's width and height. The
/// daemon does this itself instead of setting libinput's matrix at run time because libinput
/// 1.22 was seen to leave the very first touch after `_set_matrix()` untransformed.
///
/// Positions are not clamped: a calibration that pushes a touch beyond the layout gives a
/// position outside it, which hits no grid.
public struct TouchMapping: Sendable, Equatable {
    public let rotation: TouchRotation
    public let calibration: TouchMatrix
    /// The rotation's matrix after the calibration, computed once.
    public let combined: TouchMatrix

    public init(rotation: TouchRotation = .none, calibration: TouchMatrix = .identity) {
        self.rotation = rotation
        self.calibration = calibration
        combined = rotation.matrix.after(calibration)
    }

    /// The layout position of a touch at `(x, y)` (fractions of the device, as libinput reports
    /// them) on a layout `width` x `height` units large.
    @inlinable
    public func layoutPoint(x: Double, y: Double, width: Double, height: Double) -> (x: Double, y: Double) {
        let point = combined.apply(x: x, y: y)
        return (point.x * width, point.y * height)
    }
}
