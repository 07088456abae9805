import Testing

@testable import TapgridCore

private func parse(_ text: String, lenient: Bool = false) throws(JSONSyntaxError) -> JSONValue {
    try JSONParser.parse(text, lenient: lenient)
}

private func errorText(_ bytes: [UInt8], lenient: Bool) -> String? {
    do {
        _ = try JSONParser.parse(bytes, lenient: lenient)
        return nil
    } catch {
        return error.description
    }
}

private func num(_ d: Double, _ i: Int64?) -> JSONValue {
    var n = JSONNumber(d)
    n.int64 = i
    return .number(n)
}

struct JSONParserTests {
    // MARK: Values

    static let validCases: [(String, JSONValue)] = [
        ("null", .null),
        ("true", .bool(true)),
        (" false ", .bool(false)),
        ("\"\"", .string("")),
        ("\"héllo 😀\"", .string("héllo 😀")),
        (#""a\"b\\c\/d\b\f\n\r\t""#, .string("a\"b\\c/d\u{08}\u{0C}\n\r\t")),
        (#""\u0041\u00e9\u20AC\ud83d\ude00""#, .string("Aé€😀")),
        ("[]", .array([])),
        ("{}", .object([])),
        ("[1, [2, []], {\"a\": null}]", .array([.number(JSONNumber(1)), .array([.number(JSONNumber(2)), .array([])]), .object([JSONMember(key: "a", value: .null)])])),
        ("{\"b\": 1, \"a\": 2}", .object([JSONMember(key: "b", value: .number(JSONNumber(1))), JSONMember(key: "a", value: .number(JSONNumber(2)))])),
        ("\t\r\n 7 \n", .number(JSONNumber(7))),
    ]

    @Test(arguments: validCases)
    func parsesValidJSON(_ text: String, _ expected: JSONValue) throws {
        #expect(try parse(text) == expected)
        #expect(try parse(text, lenient: true) == expected)
    }

    @Test func membersKeepOrderAndKeyLines() throws {
        let value = try parse("{\n  \"b\": 1,\n\n  \"a\": {\"c\":\n true}\n}")
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["b", "a"])
        #expect(members.map(\.line) == [2, 4])
        guard case .object(let inner) = members[1].value else {
            Issue.record("not an object")
            return
        }
        #expect(inner[0].line == 4)
    }

    @Test func keyLinesCountNewlinesInComments() throws {
        let value = try parse("/* one\n two */ {\n // three\n \"k\": 1}", lenient: true)
        guard case .object(let members) = value else {
            Issue.record("not an object")
            return
        }
        #expect(members[0].line == 4)
    }

    // MARK: Numbers

    static let numberCases: [(String, Double, Int64?)] = [
        ("0", 0, 0),
        ("-0", -0.0, 0),
        ("120", 120, 120),
        ("-7", -7, -7),
        ("120.5", 120.5, nil),
        ("-0.25", -0.25, nil),
        ("1.0", 1, 1),
        ("1.000000000000000000000000", 1, 1),
        ("2e3", 2000, 2000),
        ("2E+3", 2000, 2000),
        ("150e-2", 1.5, nil),
        ("1500e-2", 15, 15),
        ("0.5e1", 5, 5),
        ("9007199254740993", 9007199254740992, 9_007_199_254_740_993),
        ("9223372036854775807", 9_223_372_036_854_775_808.0, Int64.max),
        ("-9223372036854775808", -9223372036854775808, Int64.min),
        ("9223372036854775808", 9223372036854775808, nil),
        ("9007199254740993.5", 9007199254740994, nil),
        ("1e30", 1e30, nil),
        ("1e-400", 0, nil),
        ("0.1", 0.1, nil),
        ("1.7976931348623157e308", 1.7976931348623157e308, nil),
        ("5e-324", .leastNonzeroMagnitude, nil),
        ("123456789012345678901234567890", 123_456_789_012_345_677_877_719_597_056.0, nil),
    ]

    @Test(arguments: numberCases)
    func numbers(_ text: String, _ double: Double, _ int64: Int64?) throws {
        guard case .number(let n) = try parse(text) else {
            Issue.record("not a number")
            return
        }
        #expect(n.double == double)
        #expect(n.double.sign == double.sign)
        #expect(n.int64 == int64)
    }

    @Test func numbersAreCorrectlyRounded() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = randomNumberLiteral(&rng)
            let expected = Double(text)!
            guard expected.isFinite else {
                #expect(errorText(Array(text.utf8), lenient: false) == "1:1: number out of range", "\(text)")
                continue
            }
            guard case .number(let n) = try parse(text) else {
                Issue.record("not a number: \(text)")
                continue
            }
            #expect(n.double == expected || (n.double.isZero && expected.isZero), "\(text)")
        }
    }

    // MARK: Lenient mode

    @Test func lenientAcceptsCommentsTrailingCommasAndBOM() throws {
        let text = "\u{FEFF}// head\n{ /* a */ \"a\": [1, 2, ], // tail\n \"b\": {\"c\": 3,}, }"
        let value = try parse(text, lenient: true)
        #expect(value.compactJSON == #"{"a":[1,2],"b":{"c":3}}"#)
    }

    @Test func commentsContainingSyntax() throws {
        #expect(try parse("[1 /* ] */, 2 // ]\n]", lenient: true).compactJSON == "[1,2]")
        #expect(try parse("[1,/**/2]", lenient: true).compactJSON == "[1,2]")
        #expect(try parse("\"// not a comment\"", lenient: true) == .string("// not a comment"))
    }

    // MARK: Errors (snapshots)

    static let errorCases: [(String, Bool, String)] = [
        // (input, lenient, error)
        ("", false, "1:1: unexpected end of input"),
        ("   \n  ", true, "2:3: unexpected end of input"),
        ("{\"a\": 1]", false, "1:8: expected ',' or '}' after an object member, found ']'"),
        ("[1 2]", false, "1:4: expected ',' or ']' after an array element, found '2'"),
        ("{\"a\" 1}", false, "1:6: expected ':' after an object key, found '1'"),
        ("{1: 2}", false, "1:2: expected a string key or '}', found '1'"),
        ("{\"a\": 1, 2}", false, "1:10: expected a string key, found '2'"),
        ("{\"a\": 1, 2}", true, "1:10: expected a string key or '}', found '2'"),
        ("[1,]", false, "1:3: trailing comma is not allowed"),
        ("{\"a\": 1 ,\n}", false, "1:9: trailing comma is not allowed"),
        ("[,]", true, "1:2: expected a value, found ','"),
        ("[1,,]", true, "1:4: expected a value, found ','"),
        ("[1] // c", false, "1:5: expected end of input after the JSON value, found '/'"),
        ("[1] /* c */", true, "1:1: ok"),
        ("/* open", true, "1:1: unterminated comment"),
        ("[1 / 2]", true, "1:5: expected '/' or '*' after '/' to start a comment, found ' '"),
        ("\"abc", false, "1:1: unterminated string"),
        ("[\"ab\ncd\"]", false, "1:2: unterminated string"),
        ("\"a\tb\"", false, "1:3: control character U+0009 must be escaped in a string"),
        ("\"\\q\"", false, "1:2: invalid escape '\\q' in a string"),
        ("\"\\u12G4\"", false, "1:6: invalid \\u escape: expected a hex digit, found 'G4'"),
        ("\"\\uD800\"", false, "1:2: unpaired surrogate \\uD800 in a string"),
        ("\"\\uD800\\u0041\"", false, "1:2: unpaired surrogate \\uD800 in a string"),
        ("\"x\\uDC00\"", false, "1:3: unpaired surrogate \\uDC00 in a string"),
        ("NaN", false, "1:1: expected a value, found 'NaN'"),
        ("[Infinity]", true, "1:2: expected a value, found 'Infinity'"),
        ("-Infinity", false, "1:2: invalid number: expected a digit after '-', found 'Infinity'"),
        ("0x10", false, "1:2: invalid number: unexpected 'x10' after a number"),
        ("012", false, "1:1: invalid number: leading zeros are not allowed"),
        ("-01", false, "1:2: invalid number: leading zeros are not allowed"),
        ("+1", false, "1:1: expected a value, found '+'"),
        (".5", false, "1:1: expected a value, found '.'"),
        ("1.", false, "1:3: unexpected end of input"),
        ("1.e5", false, "1:3: invalid number: expected a digit after '.', found 'e5'"),
        ("1e", false, "1:3: unexpected end of input"),
        ("1e+", false, "1:4: unexpected end of input"),
        ("[1.5.2]", false, "1:5: invalid number: unexpected '.' after a number"),
        ("1e400", false, "1:1: number out of range"),
        ("[-1e400]", true, "1:2: number out of range"),
        ("tru", false, "1:1: expected a value, found 'tru'"),
        ("truex", false, "1:1: expected a value, found 'truex'"),
        ("nul", false, "1:1: expected a value, found 'nul'"),
        ("[1] x", false, "1:5: expected end of input after the JSON value, found 'x'"),
        ("{} {}", false, "1:4: expected end of input after the JSON value, found '{'"),
        ("{\"x\": 1, \"x\": 2}", false, "1:10: duplicate key \"x\""),
        ("{\"x\": 1, \"\\u0078\": 2}", true, "1:10: duplicate key \"x\""),
        ("[{\"a\": {}, \"b\": 0,\n \"a\": 1}]", false, "2:2: duplicate key \"a\""),
        ("{\"é\": 1, \"é\": 1}", false, "1:10: duplicate key \"é\""),
        ("[\"é\", é]", false, "1:7: expected a value, found 'é'"),
        ("\u{FEFF}1", false, "1:1: expected a value, found '\u{FEFF}'"),
        ("{\"a\":", false, "1:6: unexpected end of input"),
        ("[1", false, "1:3: unexpected end of input"),
        ("{\"a\"", false, "1:5: unexpected end of input"),
        ("[\"é\", 1 x]", false, "1:9: expected ',' or ']' after an array element, found 'x'"),
        ("[\u{01}]", false, "1:2: expected a value, found U+0001"),
    ]

    @Test(arguments: errorCases)
    func errorSnapshots(_ text: String, _ lenient: Bool, _ expected: String) {
        let got = errorText(Array(text.utf8), lenient: lenient)
        if expected == "1:1: ok" {
            #expect(got == nil)
        } else {
            #expect(got == expected)
        }
    }

    static let invalidUTF8Cases: [([UInt8], String)] = [
        ([0x22, 0xFF, 0x22], "1:2: invalid UTF-8"),
        ([0x22, 0x61, 0xC3, 0x22], "1:3: invalid UTF-8"),  // truncated 2-byte sequence
        ([0x22, 0xC0, 0xAF, 0x22], "1:2: invalid UTF-8"),  // overlong '/'
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], "1:2: invalid UTF-8"),  // overlong
        ([0x22, 0xED, 0xA0, 0x80, 0x22], "1:2: invalid UTF-8"),  // encoded surrogate
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], "1:2: invalid UTF-8"),  // above U+10FFFF
        ([0x22, 0xF0, 0x9F, 0x98, 0x22], "1:2: invalid UTF-8"),  // truncated 4-byte
        ([0x22, 0x80, 0x22], "1:2: invalid UTF-8"),  // lone continuation
        ([0x5B, 0x31, 0x2C, 0xFF, 0x5D], "1:4: invalid UTF-8"),  // outside strings
        ([0x22, 0x5C, 0xFF, 0x22], "1:3: invalid UTF-8"),  // after a backslash
        ([0x31, 0x20, 0xFE], "1:3: invalid UTF-8"),
        ([0x5B, 0x0A, 0x22, 0xC3, 0xA9, 0xFF, 0x22], "2:3: invalid UTF-8"),  // column counts scalars
    ]

    @Test(arguments: invalidUTF8Cases)
    func invalidUTF8(_ bytes: [UInt8], _ expected: String) {
        #expect(errorText(bytes, lenient: false) == expected)
        #expect(errorText(bytes, lenient: true) == expected)
    }

    @Test func invalidUTF8InComments() {
        #expect(errorText(Array("// a".utf8) + [0xFF] + Array("\n1".utf8), lenient: true) == "1:5: invalid UTF-8")
        #expect(errorText(Array("/* ".utf8) + [0xC3] + Array(" */1".utf8), lenient: true) == "1:4: invalid UTF-8")
        #expect(errorText(Array("/* é */1".utf8), lenient: true) == nil)
    }

    @Test func errorPositionCountsScalarsOnTheLine() {
        #expect(errorText(Array("{\"a\": 1,\n \"é😀\": x}".utf8), lenient: false) == "2:8: expected a value, found 'x'")
    }

    /// Callers tell some errors apart by their kind, never by their message's text.
    @Test(arguments: [
        ("{\"a\": 1", JSONSyntaxError.Kind.endOfInput),
        ("[1,", .endOfInput),
        ("\"abc", .unterminatedString),
        ("[\"a\nb\"]", .unterminatedString),
        ("\"\\u00", .unterminatedString),
        ("{\"a\": 1, \"a\": 2}", .duplicateKey),
        (String(repeating: "[", count: 513) + String(repeating: "]", count: 513), .tooDeep),
        ("[1, x]", .invalid),
        ("1e400", .invalid),
    ])
    func errorKinds(text: String, kind: JSONSyntaxError.Kind) {
        #expect(throws: JSONSyntaxError.self) { try parse(text) }
        do { _ = try parse(text) } catch { #expect(error.kind == kind, "\(error)") }
    }

    @Test func errorDescriptionFormat() {
        let e = JSONSyntaxError(line: 3, column: 14, message: "unexpected end of input")
        #expect(e.description == "3:14: unexpected end of input")
        #expect("\(e)" == "3:14: unexpected end of input")
    }

    // MARK: Depth

    @Test func depthLimit() throws {
        let ok = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try parse(ok) }
        let deep = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(errorText(Array(deep.utf8), lenient: false) == "1:513: nesting is deeper than 512 levels")
        let objects = String(repeating: "{\"a\":", count: 4) + "1" + String(repeating: "}", count: 4)
        #expect(errorText(Array(objects.utf8), lenient: true, maxDepth: 3) == "1:16: nesting is deeper than 3 levels")
    }

    @Test func veryDeepInputIsAnErrorNotACrash() {
        let deep = [UInt8](repeating: 0x5B, count: 1_000_000)
        #expect(errorText(deep, lenient: false) == "1:513: nesting is deeper than 512 levels")
        // A higher limit is honoured by the explicit stack (the depth is kept modest here only because
        // releasing a JSONValue tree is itself recursive).
        let text = String(repeating: "[", count: 2_000) + String(repeating: "]", count: 2_000)
        #expect(throws: Never.self) { try JSONParser.parse(text, lenient: false, maxDepth: .max) }
    }

    // MARK: Big documents

    @Test func parsesAOneMegabyteDocument() throws {
        var text = "{\"grids\": [\n"
        var k = 0
        while text.utf8.count < 1_000_000 {
            if k > 0 { text += ", // c\(k)\n" }
            text += "  {\"name\": \"cell \(k) é\\n\", \"tag\": \(k), \"size\": \(Double(k) / 8), \"on\": \(k % 2 == 0), "
            text += "\"rect\": [\(k), -\(k), 1e3, 0.125], \"extra\": null}"
            k += 1
        }
        text += "\n]}"
        let value = try parse(text, lenient: true)
        guard case .array(let grids)? = value["grids"] else {
            Issue.record("no grids")
            return
        }
        #expect(grids.count == k)
        #expect(grids[k - 1]["tag"] == .number(JSONNumber(Int64(k - 1))))
        #expect(grids[7]["name"] == .string("cell 7 é\n"))
        #expect(grids[9]["size"] == .number(JSONNumber(9.0 / 8)))
        guard case .object(let members) = grids[k - 1] else { return }
        #expect(members[0].line == k + 1)
    }

    @Test func writerOutputParsesBack() throws {
        let value: JSONValue = .object([
            JSONMember(key: "s", value: .string("a\"\\\n\u{01}é😀")),
            JSONMember(key: "n", value: .array([.number(JSONNumber(-0.25)), .number(JSONNumber(Int64.min)), .number(JSONNumber(1e300))])),
            JSONMember(key: "o", value: .object([JSONMember(key: "", value: .null)])),
        ])
        #expect(try parse(value.compactJSON) == value)
    }
}

private func errorText(_ bytes: [UInt8], lenient: Bool, maxDepth: Int) -> String? {
    do {
        _ = try JSONParser.parse(bytes, lenient: lenient, maxDepth: maxDepth)
        return nil
    } catch {
        return error.description
    }
}

/// A random JSON number literal: integers, decimals, exponents, long mantissas, edge magnitudes.
func randomNumberLiteral<G: RandomNumberGenerator>(_ rng: inout G) -> String {
    func digits(_ n: Int, leadingNonZero: Bool) -> String {
        var s = ""
        for k in 0..<n {
            let d = (k == 0 && leadingNonZero) ? Int.random(in: 1...9, using: &rng) : Int.random(in: 0...9, using: &rng)
            s += String(d)
        }
        return s
    }
    var s = Bool.random(using: &rng) ? "-" : ""
    let intLength = [1, 1, 2, 3, 4, 8, 15, 16, 17, 19, 20, 25].randomElement(using: &rng)!
    s += Int.random(in: 0..<6, using: &rng) == 0 ? "0" : digits(intLength, leadingNonZero: true)
    if Bool.random(using: &rng) {
        s += "." + digits([1, 1, 2, 3, 6, 10, 17, 25].randomElement(using: &rng)!, leadingNonZero: false)
    }
    if Int.random(in: 0..<3, using: &rng) == 0 {
        s += ["e", "E", "e+", "e-", "E-"].randomElement(using: &rng)!
        s += String(Int.random(in: 0...[5, 22, 30, 310].randomElement(using: &rng)!, using: &rng))
    }
    return s
}
