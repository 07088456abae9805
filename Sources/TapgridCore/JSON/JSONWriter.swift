// Temporary stand-in until the json branch lands.
public enum JSONWriter {
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(34)
        for b in s.utf8 {
            switch b {
            case 34: out += [92, 34]
            case 92: out += [92, 92]
            case 10: out += [92, 110]
            case 0..<32: out += Array("\\u00\(b < 16 ? "0" : "")\(String(b, radix: 16))".utf8)
            default: out.append(b)
            }
        }
        out.append(34)
    }
    public static func appendNumber(_ d: Double, to out: inout [UInt8]) {
        if let i = JSONNumber.exactInt64(d), abs(d) < 1e15 { out += Array(String(i).utf8) } else { out += Array(d.description.utf8) }
    }
    public static func appendValue(_ v: JSONValue, to out: inout [UInt8]) {
        switch v {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let n): if let i = n.int64 { out += Array(String(i).utf8) } else { appendNumber(n.double, to: &out) }
        case .string(let s): appendString(s, to: &out)
        case .array(let a):
            out.append(91)
            for (i, e) in a.enumerated() { if i > 0 { out.append(44) }; appendValue(e, to: &out) }
            out.append(93)
        case .object(let m):
            out.append(123)
            for (i, e) in m.enumerated() { if i > 0 { out.append(44) }; appendString(e.key, to: &out); out.append(58); appendValue(e.value, to: &out) }
            out.append(125)
        }
    }
}
