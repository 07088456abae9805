import Testing

@testable import TapgridCore

private func written(_ body: (inout [UInt8]) -> Void) -> String {
    var out: [UInt8] = []
    body(&out)
    return String(decoding: out, as: UTF8.self)
}

struct JSONWriterTests {
    static let stringCases: [(String, String)] = [
        ("", #""""#),
        ("plain", #""plain""#),
        ("a\"b", #""a\"b""#),
        ("back\\slash", #""back\\slash""#),
        ("/", #""/""#),
        ("\n\t\r\u{08}\u{0C}", #""\n\t\r\b\f""#),
        ("\u{00}\u{01}\u{1F}", #""\u0000\u0001\u001f""#),
        ("\u{7F}", "\"\u{7F}\""),
        ("héllo 😀 €", "\"héllo 😀 €\""),
        ("mixed \"é\"\n", #""mixed \"é\"\n""#),
    ]

    @Test(arguments: stringCases)
    func strings(_ input: String, _ expected: String) throws {
        #expect(written { JSONWriter.appendString(input, to: &$0) } == expected)
        #expect(jsonEscaped(input) == expected)
        #expect(try JSONParser.parse(expected, lenient: false) == .string(input))
    }

    @Test func appendsToExistingBuffer() {
        var out: [UInt8] = Array("{\"k\":".utf8)
        JSONWriter.appendString("v", to: &out)
        JSONWriter.appendInt(-3, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #"{"k":"v"-3"#)
    }

    static let intCases: [(Int64, String)] = [
        (0, "0"), (7, "7"), (-7, "-7"), (10, "10"), (120, "120"), (-1_000_000, "-1000000"),
        (Int64.max, "9223372036854775807"), (Int64.min, "-9223372036854775808"),
        (9_007_199_254_740_993, "9007199254740993"),
    ]

    @Test(arguments: intCases)
    func ints(_ value: Int64, _ expected: String) {
        #expect(written { JSONWriter.appendInt(value, to: &$0) } == expected)
    }

    @Test func intsEqualTheStandardLibrary() {
        // Every length, both signs, and each power of ten and its neighbours (digit pairs and
        // the single leading digit).
        var values: [Int64] = [Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var power: Int64 = 1
        for _ in 0..<19 {
            values += [power - 1, power, power + 1, -power, -(power - 1), -(power + 1)]
            if power <= Int64.max / 10 { power *= 10 }
        }
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let digits = Int.random(in: 0...62, using: &rng)
            values.append(Int64.random(in: -(1 << digits)...(1 << digits), using: &rng))
        }
        for value in values {
            #expect(written { JSONWriter.appendInt(value, to: &$0) } == String(value), "\(value)")
        }
    }

    static let numberCases: [(Double, String)] = [
        (0, "0"), (-0.0, "0"), (120, "120"), (120.5, "120.5"), (-0.25, "-0.25"), (0.1, "0.1"),
        (-3, "-3"), (999_999_999_999_999, "999999999999999"), (1e15, "1000000000000000"), (9_007_199_254_740_992, "9007199254740992"), (1e16, "1e+16"), (-1e17, "-1e+17"), (1.5e20, "1.5e+20"), (1e300, "1e+300"),
        (1.5e-7, "1.5e-07"), (.leastNonzeroMagnitude, "5e-324"), (1.7976931348623157e308, "1.7976931348623157e+308"),
        (123456.789, "123456.789"), (.nan, "null"), (.infinity, "null"), (-.infinity, "null"),
    ]

    @Test(arguments: numberCases)
    func numbers(_ value: Double, _ expected: String) {
        #expect(written { JSONWriter.appendNumber(value, to: &$0) } == expected)
    }

    @Test func numbersRoundTrip() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let value: Double
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: value = Double(bitPattern: rng.next())
            case 1: value = Double(Int.random(in: -100_000...100_000, using: &rng)) / 8
            default: value = Double.random(in: -1e6...1e6, using: &rng)
            }
            guard value.isFinite else { continue }
            let text = written { JSONWriter.appendNumber(value, to: &$0) }
            guard case .number(let n) = try JSONParser.parse(text, lenient: false) else {
                Issue.record("not a number: \(text)")
                continue
            }
            #expect(n.double == value, "\(text)")
            if value.rounded(.towardZero) == value && value.magnitude < 9e15 {
                #expect(!text.contains(".") && !text.contains("e"), "\(text)")
            }
        }
    }

    @Test func values() throws {
        let value: JSONValue = .object([
            JSONMember(key: "z", value: .null),
            JSONMember(key: "a", value: .array([.bool(true), .bool(false), .array([]), .object([])])),
            JSONMember(key: "tag", value: .number(JSONNumber(9_007_199_254_740_993))),
            JSONMember(key: "x", value: .number(JSONNumber(120.5))),
            JSONMember(key: "n", value: .number(JSONNumber(-0.0))),
            JSONMember(key: "s\n", value: .string("é\"")),
        ])
        let expected = #"{"z":null,"a":[true,false,[],{}],"tag":9007199254740993,"x":120.5,"n":0,"s\n":"é\""}"#
        #expect(value.compactJSON == expected)
        #expect(written { JSONWriter.appendValue(value, to: &$0) } == expected)
    }

    @Test func exactInt64SurvivesARoundTrip() throws {
        let text = #"{"tag":9007199254740993,"big":-9223372036854775808,"f":2e3}"#
        let value = try JSONParser.parse(text, lenient: false)
        #expect(value.compactJSON == #"{"tag":9007199254740993,"big":-9223372036854775808,"f":2000}"#)
    }
}

@Suite struct ShortDecimalTests {
    /// The fast path must print exactly what the general path (Swift's shortest description) prints.
    func general(_ value: Double) -> String {
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    func fast(_ value: Double) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: JSONWriter.maxNumberBytes) { buffer in
            JSONWriter.writeShortDecimal(value, to: buffer.baseAddress!).map {
                String(decoding: UnsafeBufferPointer(rebasing: buffer[..<$0]), as: UTF8.self)
            }
        }
    }

    @Test func matchesTheShortestDescription() {
        var generator = SystemRandomNumberGenerator()
        var checked = 0
        for _ in 0..<200_000 {
            let thousandths = Int64.random(in: -999_999_999_999...999_999_999_999, using: &generator)
            let value = Double(thousandths) / [1000.0, 100.0, 10.0].randomElement(using: &generator)!
            guard value.rounded(.towardZero) != value else { continue }
            if let text = fast(value) {
                #expect(text == general(value), "\(value)")
                #expect(Double(text) == value)
                checked += 1
            }
        }
        #expect(checked > 50_000)
        for value in [0.001, -0.001, 0.1, 0.2, 0.3, 120.5, -33.25, 999_999_999.999, 1.005, 2.675, 0.125] {
            #expect(fast(value) == general(value), "\(value)")
        }
        // Outside its range or with more decimals it declines.
        for value in [0.0005, 1e9 + 0.5, 0.1234, 1.0 / 3.0, .leastNonzeroMagnitude] { #expect(fast(value) == nil, "\(value)") }
    }
}
