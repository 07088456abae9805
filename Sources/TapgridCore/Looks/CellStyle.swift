/// One style of the config's `styles`, or a grid's inline `style` (docs/panel.md "What a cell
/// shows"): every key optional, so a style can be laid over another key by key.
public struct CellStyle: Sendable, Equatable {
    public var background: CellColor?
    /// The label's and the icon's colour.
    public var color: CellColor?
    public var activeBackground: CellColor?
    public var activeColor: CellColor?
    public var border = Border()
    /// Corner radius, layout units.
    public var radius: Double?
    /// The label's size, layout units; nil: fitted to the cell.
    public var fontSize: Double?
    /// The icon's size (its em square), layout units; nil: fitted to the cell.
    public var iconSize: Double?

    /// `border`: `{"color", "thick"}`, each laid over the one below on its own.
    public struct Border: Sendable, Equatable {
        public var color: CellColor?
        /// Layout units.
        public var thick: Double?
        public init(color: CellColor? = nil, thick: Double? = nil) {
            self.color = color
            self.thick = thick
        }
    }

    public init(background: CellColor? = nil, color: CellColor? = nil, activeBackground: CellColor? = nil,
                activeColor: CellColor? = nil, border: Border = Border(), radius: Double? = nil,
                fontSize: Double? = nil, iconSize: Double? = nil) {
        self.background = background
        self.color = color
        self.activeBackground = activeBackground
        self.activeColor = activeColor
        self.border = border
        self.radius = radius
        self.fontSize = fontSize
        self.iconSize = iconSize
    }

    /// This style laid over `below`: each key this style sets wins, the others come from `below`
    /// (the border's `color` and `thick` each on their own).
    public func laid(over below: CellStyle) -> CellStyle {
        CellStyle(
            background: background ?? below.background, color: color ?? below.color,
            activeBackground: activeBackground ?? below.activeBackground, activeColor: activeColor ?? below.activeColor,
            border: Border(color: border.color ?? below.border.color, thick: border.thick ?? below.border.thick),
            radius: radius ?? below.radius, fontSize: fontSize ?? below.fontSize, iconSize: iconSize ?? below.iconSize)
    }

    /// A style's keys, in the order messages list them.
    public static let keys = ["background", "color", "activeBackground", "activeColor", "border", "radius", "fontSize", "iconSize"]
    static let borderKeys = ["color", "thick"]

    /// One problem in a style object: `key` is where in it (`"background"`, `"border.color"`, or
    /// `""` for the object itself), `message` what is wrong. Every problem is an error.
    public struct Problem: Sendable, Equatable {
        public var key: String
        public var message: String
    }

    /// Reads a style object. - Returns: the style (nil when there are problems) and every problem.
    public static func read(_ value: JSONValue) -> (style: CellStyle?, problems: [Problem]) {
        var problems: [Problem] = []
        guard case .object(let members) = value else {
            problems.append(Problem(key: "", message: ##"expected a style object such as {"background": "#1f6feb", "color": "#fff"}, found "## + shown(value)))
            return (nil, problems)
        }
        var style = CellStyle()
        func colour(_ key: String, _ value: JSONValue) -> CellColor? {
            if case .string(let text) = value, let color = CellColor(text) { return color }
            problems.append(Problem(key: key, message: "expected a colour #RGB, #RRGGBB or #RRGGBBAA, found " + shown(value)))
            return nil
        }
        func number(_ key: String, _ value: JSONValue, allowZero: Bool) -> Double? {
            if case .number(let n) = value, n.double.isFinite, allowZero ? n.double >= 0 : n.double > 0 { return n.double }
            problems.append(Problem(key: key, message: "expected a number \(allowZero ? ">=" : ">") 0 (layout units), found " + shown(value)))
            return nil
        }
        for member in members {
            let key = member.key, value = member.value
            switch key {
            case "background": style.background = colour(key, value)
            case "color": style.color = colour(key, value)
            case "activeBackground": style.activeBackground = colour(key, value)
            case "activeColor": style.activeColor = colour(key, value)
            case "radius": style.radius = number(key, value, allowZero: true)
            case "fontSize": style.fontSize = number(key, value, allowZero: false)
            case "iconSize": style.iconSize = number(key, value, allowZero: false)
            case "border":
                guard case .object(let parts) = value else {
                    problems.append(Problem(key: key, message: ##"expected an object such as {"color": "#888", "thick": 1}, found "## + shown(value)))
                    continue
                }
                for part in parts {
                    switch part.key {
                    case "color": style.border.color = colour("border.color", part.value)
                    case "thick": style.border.thick = number("border.thick", part.value, allowZero: true)
                    default:
                        problems.append(Problem(key: "border.\(part.key)", message: "unknown border key"
                            + hintOrList(didYouMean(part.key, among: borderKeys), "a border has color and thick")))
                    }
                }
            default:
                problems.append(Problem(key: key, message: "unknown style key"
                    + hintOrList(didYouMean(key, among: keys), "a style has " + keys.dropLast().joined(separator: ", ") + " and iconSize")))
            }
        }
        return (problems.isEmpty ? style : nil, problems)
    }
}

/// What a grid's `style` key names: a style of the config's `styles`, or a style object of its own.
public enum StyleReference: Sendable, Equatable {
    case named(String)
    case inline(CellStyle)
}

/// A grid's own `text`, `icon` and `style` keys (docs/panel.md "What a cell shows"), kept in a
/// side table (`GridTree.looks`) for the grids that set any, so other grids carry none of it.
public struct GridLook: Sendable, Equatable {
    /// A fixed label: the state's `text` overrides it.
    public var text: String?
    /// `mdi:NAME` as written.
    public var icon: String?
    public var style: StyleReference?

    public init(text: String? = nil, icon: String? = nil, style: StyleReference? = nil) {
        self.text = text
        self.icon = icon
        self.style = style
    }

    /// Whether `text` is an icon name as a grid or `set` writes one: `mdi:` and a name.
    public static func isIconName(_ text: String) -> Bool {
        text.hasPrefix("mdi:") && text.utf8.count > 4
    }
}
