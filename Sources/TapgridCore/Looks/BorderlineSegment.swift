/// A MyGridLayout borderline as drawn (docs/panel.md "What a cell shows"): the page (through
/// `/layout`'s `borderlines`) and `tapgrid show --format svg` draw these same segments, so the
/// lines sit at the same place in layout units.
public struct BorderlineSegment: Sendable, Equatable {
    /// The line's box, layout units: filled when solid; a dashed line is a stroke of `thick`
    /// along its long axis, through its middle.
    public var box: Rect
    /// `#rrggbb` or a colour name SVG and CSS both know.
    public var color: String
    /// From MyLayout's `#AARRGGBB` alpha (1 otherwise; 0 for `clear`).
    public var opacity: Double
    /// The thickness, layout units (`thick` is in pixels, divided by the layout's scale).
    public var thick: Double
    /// The dash and gap length; 0: solid.
    public var dash: Double

    /// The segments of a grid's borderlines, at its `rect` (normalized here), with MyLayout's
    /// geometry: head and tail indent along the edge, offset inward; left and right stay physical
    /// in RTL. A line with no length or thickness left is dropped.
    public static func segments(_ lines: [Borderline], rect: Rect, scale: Double) -> [BorderlineSegment] {
        let r = Rect(x: rect.width < 0 ? rect.x + rect.width : rect.x, y: rect.height < 0 ? rect.y + rect.height : rect.y,
                     width: abs(rect.width), height: abs(rect.height))
        var out: [BorderlineSegment] = []
        for line in lines {
            let t = line.thick / scale
            let box: Rect
            switch line.edge {
            case .left: box = Rect(x: r.x + line.offset, y: r.y + line.head, width: t, height: r.height - line.head - line.tail)
            case .right: box = Rect(x: r.x + r.width - t - line.offset, y: r.y + line.head, width: t, height: r.height - line.head - line.tail)
            case .top: box = Rect(x: r.x + line.head, y: r.y + line.offset, width: r.width - line.head - line.tail, height: t)
            case .bottom: box = Rect(x: r.x + line.head, y: r.y + r.height - t - line.offset, width: r.width - line.head - line.tail, height: t)
            }
            guard box.width > 0, box.height > 0 else { continue }
            let (color, opacity) = paint(line.color)
            out.append(BorderlineSegment(box: box, color: color, opacity: opacity, thick: t, dash: line.dash > 0 ? line.dash : 0))
        }
        return out
    }

    /// MyLayout colours: `#RRGGBB`, `#AARRGGBB` (9 characters) or a name SVG also knows; anything
    /// else is black (never text that could break out of an attribute or a style).
    public static func paint(_ color: String) -> (color: String, opacity: Double) {
        let hex = Array(color.utf8.dropFirst())
        if color.hasPrefix("#"), hex.count == 8, let alpha = UInt8(String(decoding: hex[0..<2], as: UTF8.self), radix: 16) {
            return ("#" + String(decoding: hex[2...], as: UTF8.self), Double(alpha) / 255)
        }
        let safe = color.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) || $0 == 35 }
        if color.lowercased() == "clear" { return ("#000000", 0) }
        return (safe && !color.isEmpty ? color : "#000000", 1)
    }
}
