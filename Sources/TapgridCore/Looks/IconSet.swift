/// The icons cells may show (docs/panel.md "What a cell shows"): the glyphs of an SVG font, by
/// name, each an outline (`d`, SVG path data) in font units, y up from the baseline. Debian's
/// `fonts-materialdesignicons-webfont` (Material Design Icons 1.6.50) is the default; a config's
/// `iconFont` names another font of the same form. Icons are written `mdi:NAME` either way.
///
/// Pure: `parse` takes the file's bytes (`ConfigLoader.readIcons` reads them).
public struct IconSet: Sendable, Equatable {
    /// Where Debian's package puts its SVG font.
    public static let debianFont = "/usr/share/fonts/svg/materialdesignicons-webfont/materialdesignicons-webfont.svg"
    /// The Debian package that holds it, for messages.
    public static let debianPackage = "fonts-materialdesignicons-webfont"

    /// Outlines by glyph name (without `mdi:`).
    public var glyphs: [String: String]
    /// `units-per-em` of the font's `<font-face>` (512 for Material Design Icons).
    public var unitsPerEm: Double
    /// `ascent` of the font's `<font-face>` (448): the top of the em square above the baseline.
    public var ascent: Double

    public init(glyphs: [String: String], unitsPerEm: Double = 512, ascent: Double = 448) {
        self.glyphs = glyphs
        self.unitsPerEm = unitsPerEm
        self.ascent = ascent
    }

    /// The outline of `icon` (`mdi:NAME`), or nil when the set has no such glyph.
    public func outline(_ icon: String) -> String? {
        guard GridLook.isIconName(icon) else { return nil }
        return glyphs[String(icon.dropFirst(4))]
    }

    /// Why bytes are no SVG font.
    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    /// Reads an SVG font: every `<glyph>` with a `glyph-name` and a `d` (others, such as
    /// `<missing-glyph>`, are skipped), and `units-per-em` and `ascent` from `<font-face>`
    /// (512 and 448 when absent). The first glyph of a name wins.
    /// - Throws: `Problem` when the bytes hold no named glyph.
    public static func parse(_ bytes: [UInt8]) throws(Problem) -> IconSet {
        var set = IconSet(glyphs: [:])
        var index = 0
        let count = bytes.count
        while index < count {
            guard bytes[index] == UInt8(ascii: "<") else {
                index += 1
                continue
            }
            let nameStart = index + 1
            var nameEnd = nameStart
            while nameEnd < count, !isSpace(bytes[nameEnd]), bytes[nameEnd] != UInt8(ascii: ">"), bytes[nameEnd] != UInt8(ascii: "/") { nameEnd += 1 }
            let element = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            var end = nameEnd
            var quote: UInt8 = 0
            while end < count {
                let byte = bytes[end]
                if quote != 0 {
                    if byte == quote { quote = 0 }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    break
                }
                end += 1
            }
            if element == "glyph" || element == "font-face" {
                let attributes = Self.attributes(bytes[nameEnd..<min(end, count)])
                if element == "glyph" {
                    if let name = attributes["glyph-name"], !name.isEmpty, let d = attributes["d"], set.glyphs[name] == nil {
                        set.glyphs[name] = d.trimmingSpaces()
                    }
                } else {
                    if let units = attributes["units-per-em"].flatMap(Double.init), units > 0, units.isFinite { set.unitsPerEm = units }
                    if let ascent = attributes["ascent"].flatMap(Double.init), ascent.isFinite { set.ascent = ascent }
                }
            }
            index = end + 1
        }
        guard !set.glyphs.isEmpty else { throw Problem("no <glyph> with a glyph-name and a d: not an SVG font") }
        return set
    }

    static func isSpace(_ byte: UInt8) -> Bool { byte == 32 || byte == 9 || byte == 10 || byte == 13 }

    /// `name="value"` pairs of one tag (single or double quotes; no entity decoding: glyph names
    /// and path data have none).
    static func attributes(_ bytes: ArraySlice<UInt8>) -> [String: String] {
        var result: [String: String] = [:]
        var i = bytes.startIndex
        let end = bytes.endIndex
        while i < end {
            while i < end, isSpace(bytes[i]) || bytes[i] == UInt8(ascii: "/") { i += 1 }
            let nameStart = i
            while i < end, bytes[i] != UInt8(ascii: "="), !isSpace(bytes[i]) { i += 1 }
            let name = String(decoding: bytes[nameStart..<i], as: UTF8.self)
            while i < end, isSpace(bytes[i]) { i += 1 }
            guard i < end, bytes[i] == UInt8(ascii: "=") else {
                if i == nameStart { i += 1 }
                continue
            }
            i += 1
            while i < end, isSpace(bytes[i]) { i += 1 }
            guard i < end, bytes[i] == UInt8(ascii: "\"") || bytes[i] == UInt8(ascii: "'") else { continue }
            let quote = bytes[i]
            i += 1
            let valueStart = i
            while i < end, bytes[i] != quote { i += 1 }
            result[name] = String(decoding: bytes[valueStart..<i], as: UTF8.self)
            i += 1
        }
        return result
    }

    /// How a glyph is drawn into `box` (its em square, y down as the page and SVG draw): scaled
    /// by `scale` and flipped, the baseline at `ascent` font units below the box's top.
    /// SVG: `transform="translate(x y) scale(scale -scale)"`.
    public func placement(in box: Rect) -> (x: Double, y: Double, scale: Double) {
        let scale = box.width / unitsPerEm
        return (box.x, box.y + ascent * scale, scale)
    }

    /// Warnings for each icon the config's layouts name that this set lacks, named by the config
    /// file, layout, grid and key, with the closest name the set has.
    /// - Parameter source: the font's path, for the message.
    public func warnings(for config: Config, source: String) -> [Diagnostic] {
        var found: [Diagnostic] = []
        for layout in config.layouts {
            let tree = layout.tree
            for grid in tree.preorder() {
                guard let icon = tree.look(of: grid)?.icon, outline(icon) == nil else { continue }
                let hint = closest(String(icon.dropFirst(4))).map { "; did you mean \(jsonEscaped("mdi:" + $0))?" } ?? ""
                found.append(Diagnostic(
                    .warning, file: config.file, layout: layout.name, gridPath: tree.path(of: grid),
                    "\"icon\": no icon \(jsonEscaped(icon)) in \(source); the cell shows its label alone" + hint))
            }
        }
        return found
    }

    /// The glyph name nearest `name` (an edit distance of 2 at most), for a "did you mean".
    func closest(_ name: String) -> String? {
        let best = glyphs.keys.map { ($0, editDistance($0, name)) }.min { $0.1 < $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        guard let best, best.1 <= 2 else { return nil }
        return best.0
    }
}
