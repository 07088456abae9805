/// A slider's fill (docs/touch.md "Sliders"): the part of the cell's fill rect its value covers,
/// from the edge the value grows from. The page (from `/layout`'s `slider` and each grid's
/// `value`) and `tapgrid show --format svg` both draw it from here.
public struct SliderFill: Sendable, Equatable {
    /// The edge the value grows from: `left` (horizontal), `right` (horizontal in an `rtl`
    /// layout), `bottom` (vertical). What `/layout`'s `slider.from` says.
    public enum Origin: String, Sendable {
        case left, right, bottom
    }

    public var origin: Origin
    /// How much of the scale the value covers, 0 to 1.
    public var fraction: Double

    /// The fill of a slider at `place` whose state `value` is `valueJSON`: a value that is no
    /// number (none set yet, or another JSON value) counts as `min`, an empty fill.
    public init(_ place: SliderPlace, valueJSON: String?) {
        origin = Self.origin(place)
        let span = place.spec.max - place.spec.min
        let value = valueJSON.flatMap(Double.init) ?? place.spec.min
        fraction = span > 0 ? Swift.min(1, Swift.max(0, (value - place.spec.min) / span)) : 0
    }

    /// The edge a slider at `place` grows from.
    public static func origin(_ place: SliderPlace) -> Origin {
        if place.spec.isVertical(in: place.rect) { return .bottom }
        return place.direction == .rtl ? .right : .left
    }

    /// The covered part of `cell` (a normalized rect): `fraction` of the cell's fill rect
    /// (`CellLook.fillRect`), along the axis, from `origin`'s edge.
    public func rect(in cell: Rect) -> Rect {
        let whole = CellLook.fillRect(cell)
        switch origin {
        case .left:
            return Rect(x: whole.x, y: whole.y, width: whole.width * fraction, height: whole.height)
        case .right:
            let width = whole.width * fraction
            return Rect(x: whole.x + whole.width - width, y: whole.y, width: width, height: whole.height)
        case .bottom:
            let height = whole.height * fraction
            return Rect(x: whole.x, y: whole.y + whole.height - height, width: whole.width, height: height)
        }
    }

    /// `,"slider":{"min":0,"max":100,"step":1,"from":"left"}`: what the page needs to draw a
    /// slider and to follow a finger on it before the daemon's value comes back (a grid's member
    /// in `/layout` and in `layouts` with state).
    public static func appendMember(_ place: SliderPlace, to out: inout [UInt8]) {
        JSONWriter.appendStatic(#","slider":{"min":"#, to: &out)
        JSONWriter.appendNumber(place.spec.min, to: &out)
        JSONWriter.appendStatic(#","max":"#, to: &out)
        JSONWriter.appendNumber(place.spec.max, to: &out)
        JSONWriter.appendStatic(#","step":"#, to: &out)
        JSONWriter.appendNumber(place.spec.step, to: &out)
        JSONWriter.appendStatic(#","from":""#, to: &out)
        out += origin(place).rawValue.utf8
        JSONWriter.appendStatic(#""}"#, to: &out)
    }
}
