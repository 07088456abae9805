/// A colour of a cell's style (docs/panel.md "What a cell shows"): `#RGB`, `#RRGGBB` or
/// `#RRGGBBAA`, in CSS's order (alpha last; a borderline's colour keeps MyLayout's `#AARRGGBB`).
public struct CellColor: Sendable, Equatable, Hashable {
    public var red: UInt8, green: UInt8, blue: UInt8
    /// 255 is opaque.
    public var alpha: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8 = 255) {
        self.red = red
        self.green = green
        self.blue = blue
        self.alpha = alpha
    }

    /// `#RGB` (each digit doubled, as CSS reads it), `#RRGGBB` or `#RRGGBBAA`, digits in either
    /// case; nil for anything else (names, `#RGBA`, spaces).
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.first == UInt8(ascii: "#"), [4, 7, 9].contains(bytes.count) else { return nil }
        var digits: [UInt8] = []
        for byte in bytes.dropFirst() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
        }
        if digits.count == 3 {
            self.init(red: digits[0] * 17, green: digits[1] * 17, blue: digits[2] * 17)
        } else {
            self.init(red: digits[0] << 4 | digits[1], green: digits[2] << 4 | digits[3], blue: digits[4] << 4 | digits[5],
                      alpha: digits.count == 8 ? digits[6] << 4 | digits[7] : 255)
        }
    }

    /// `#rrggbb`: the colour without its alpha (SVG 1.1 takes no `#RRGGBBAA`; the alpha goes into
    /// an opacity attribute).
    public var rgbHex: String {
        "#" + [red, green, blue].map(Self.hexByte).joined()
    }

    /// `#rrggbb` when opaque, else `#rrggbbaa`: the colour as `/layout`'s style object and CSS
    /// take it, lowercase whatever the config wrote.
    public var hex: String { alpha == 255 ? rgbHex : rgbHex + Self.hexByte(alpha) }

    /// The alpha from 0 to 1.
    public var opacity: Double { Double(alpha) / 255 }

    static func hexByte(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }
}
