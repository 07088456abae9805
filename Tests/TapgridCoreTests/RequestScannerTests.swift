import Testing

@testable import TapgridCore

private func scan(_ text: String) -> Result<Request, RequestFailure> {
    RequestScanner.scan(Array(text.utf8))
}

private func idText(_ text: String, _ range: Range<Int>?) -> String? {
    guard let range else { return nil }
    return String(decoding: Array(text.utf8)[range], as: UTF8.self)
}

struct RequestScannerTests {
    // MARK: Valid requests

    static let validCases: [(String, Request.Op, Double?, Double?, String?, String?)] = [
        // (line, op, x, y, layout, id text)
        (#"{"x": 120, "y": 340}"#, .tap, 120, 340, nil, nil),
        (#"{"op":"tap","x":1.5,"y":2,"layout":"home","id":7}"#, .tap, 1.5, 2, "home", "7"),
        (#"  {"op": "hit", "x": -0.25, "y": 1e2}  "#, .hit, -0.25, 100, nil, nil),
        (#"{"op": "status"}"#, .status, nil, nil, nil, nil),
        (#"{"op": "reload", "id": "r-1"}"#, .reload, nil, nil, nil, #""r-1""#),
        (#"{"op": "use", "layout": "settings"}"#, .use, nil, nil, "settings", nil),
        (#"{"op": "layouts", "id": {"a": [1, {"b": null}]}}"#, .layouts, nil, nil, nil, #"{"a": [1, {"b": null}]}"#),
        (#"{"op": "dance"}"#, .unknown("dance"), nil, nil, nil, nil),
        (#"{"op": "t\u0061p"}"#, .tap, nil, nil, nil, nil),
        (#"{"op": "d\u00e9"}"#, .unknown("dé"), nil, nil, nil, nil),
        (#"{}"#, .tap, nil, nil, nil, nil),
        (#"{"layout": null, "x": 0}"#, .tap, 0, nil, nil, nil),
        (#"{"layout": "h\u00e9\ud83d\ude00\n"}"#, .tap, nil, nil, "hé😀\n", nil),
        (#"{"\u0078": 5, "\u0079": 6, "l\u0061yout": "a", "\u0069d": true}"#, .tap, 5, 6, "a", "true"),
        (#"{"id":   [ 1 , 2 ]   , "x": 1}"#, .tap, 1, nil, nil, "[ 1 , 2 ]"),
        (#"{"id": null}"#, .tap, nil, nil, nil, "null"),
        (#"{"extra": {"deep": [[[{}]]], "x": "not a number"}, "more": [true, false, null, -1.5e-3], "x": 3}"#, .tap, 3, nil, nil, nil),
        (#"{"X": "ignored", "xx": [], "": 0, "x": 9007199254740993}"#, .tap, 9007199254740992, nil, nil, nil),
        (#"{"x": 1e-400, "y": -0}"#, .tap, 0, -0.0, nil, nil),
        ("\t{\"x\":1}\t ", .tap, 1, nil, nil, nil),
        (#"{"x": 0.1, "y": 123456789.123456789}"#, .tap, 0.1, 123456789.123456789, nil, nil),
        // The short-number path (at most 15 digits, no exponent) and just past it.
        (#"{"x":123.5,"y":456}"#, .tap, 123.5, 456, nil, nil),
        (#"{"x": 999999999999999, "y": 99999999.9999999}"#, .tap, 999999999999999, 99999999.9999999, nil, nil),
        (#"{"x": 1234567890123456, "y": 0.1234567890123456}"#, .tap, 1234567890123456, 0.1234567890123456, nil, nil),
        (#"{"x": -0.0, "y": 0.000}"#, .tap, -0.0, 0, nil, nil),
        (#"{"x": 1.50, "y": -12.250}"#, .tap, 1.5, -12.25, nil, nil),
        (#"{"x":0,"y":-7,"op":"hit"}"#, .hit, 0, -7, nil, nil),
        (#"{"x": 0.000000000000001, "y": 2.5E1}"#, .tap, 0.000000000000001, 25, nil, nil),
    ]

    @Test(arguments: validCases)
    func valid(_ line: String, _ op: Request.Op, _ x: Double?, _ y: Double?, _ layout: String?, _ id: String?) {
        guard case .success(let request) = scan(line) else {
            Issue.record("refused: \(scan(line))")
            return
        }
        #expect(request.op == op)
        #expect(request.x == x)
        #expect(request.y == y)
        #expect(request.x?.sign == x?.sign)
        #expect(request.y?.sign == y?.sign)
        #expect(request.layout == layout)
        #expect(idText(line, request.id) == id)
    }

    // MARK: Bad requests

    static let badCases: [(String, String, String?)] = [
        // (line, message, id text)
        (#"[1]"#, "a request must be a JSON object", nil),
        (#"42"#, "a request must be a JSON object", nil),
        (#" "tap" "#, "a request must be a JSON object", nil),
        (#"null"#, "a request must be a JSON object", nil),
        (#"{"x": 1, "x": 2, "id": 3}"#, #"duplicate key "x""#, "3"),
        (#"{"x": 1, "\u0078": 2}"#, #"duplicate key "x""#, nil),
        (#"{"zz": 1, "id": 4, "zz": {}}"#, #"duplicate key "zz""#, "4"),
        (#"{"a\nb": 1, "a\u000ab": 1}"#, #"duplicate key "a\nb""#, nil),
        (#"{"id": 1, "id": 2}"#, #"duplicate key "id""#, "1"),
        (#"{"layout": "a", "l\u0061yout": "b"}"#, #"duplicate key "layout""#, nil),
        (#"{"op": "tap", "op": 1}"#, #"duplicate key "op""#, nil),
        (#"{"y": 1, "\u0079": "no", "y": []}"#, #"duplicate key "y""#, nil),
        (#"{"op": 3, "id": "q"}"#, #""op" must be a string"#, #""q""#),
        (#"{"op": null}"#, #""op" must be a string"#, nil),
        (#"{"x": "120", "y": 1}"#, #""x" must be a finite number"#, nil),
        (#"{"x": 1, "y": null, "id": 9}"#, #""y" must be a finite number"#, "9"),
        (#"{"id": 7, "x": 1e999, "y": 2}"#, #""x" must be a finite number"#, "7"),
        (#"{"x": 1, "y": -1e400}"#, #""y" must be a finite number"#, nil),
        (#"{"x": [1]}"#, #""x" must be a finite number"#, nil),
        (#"{"layout": 5, "id": {"k": 1}}"#, #""layout" must be a string"#, #"{"k": 1}"#),
        (#"{"layout": ["home"]}"#, #""layout" must be a string"#, nil),
        // The first problem is reported.
        (#"{"op": 1, "x": "a"}"#, #""op" must be a string"#, nil),
        (#"{"x": "a", "op": 1}"#, #""x" must be a finite number"#, nil),
        // Keys are compared after decoding; nested duplicate keys are not the scanner's business.
        (#"{"k": {"a": 1, "a": 2}, "x": "a"}"#, #""x" must be a finite number"#, nil),
    ]

    @Test(arguments: badCases)
    func badRequests(_ line: String, _ message: String, _ id: String?) {
        guard case .failure(let failure) = scan(line) else {
            Issue.record("accepted: \(line)")
            return
        }
        #expect(failure.error == .badRequest(message))
        #expect(failure.code == "bad_request")
        #expect(failure.message == message)
        #expect(idText(line, failure.id) == id)
    }

    // MARK: Parse errors

    static let parseCases: [(String, String)] = [
        (#"{"x": NaN}"#, "expected a value, found 'NaN' at column 7"),
        (#"{"x": Infinity}"#, "expected a value, found 'Infinity' at column 7"),
        (#"{"x": 0x10}"#, "invalid number: unexpected 'x10' after a number at column 8"),
        (#"{"x": 012}"#, "invalid number: leading zeros are not allowed at column 7"),
        (#"{"x": +1}"#, "expected a value, found '+' at column 7"),
        (#"{"x": .5}"#, "expected a value, found '.' at column 7"),
        (#"{"x": 1} x"#, "expected end of input after the JSON value, found 'x' at column 10"),
        (#"{"x": 1}{"#, "expected end of input after the JSON value, found '{' at column 9"),
        (#"[1] 2"#, "expected end of input after the JSON value, found '2' at column 5"),
        (#"{"x": 1,}"#, "trailing comma is not allowed at column 8"),
        (#"{"id": [1,]}"#, "trailing comma is not allowed at column 10"),
        (#"{"x": 1 "y": 2}"#, "expected ',' or '}' after an object member, found '\"' at column 9"),
        (#"{"x" 1}"#, "expected ':' after an object key, found '1' at column 6"),
        (#"{x: 1}"#, "expected a string key or '}', found 'x' at column 2"),
        (#"{"x": 1, y: 1}"#, "expected a string key, found 'y' at column 10"),
        (#"{"x": 1"#, "unexpected end of input at column 8"),
        (#"{"x":"#, "unexpected end of input at column 6"),
        (#"{"layout": "home}"#, "unterminated string at column 12"),
        (#"{"layout": "\ud800"}"#, #"unpaired surrogate \uD800 in a string at column 13"#),
        (#"{"layout": "\udc00\ud800"}"#, #"unpaired surrogate \uDC00 in a string at column 13"#),
        (#"{"other": "\ud800x"}"#, #"unpaired surrogate \uD800 in a string at column 12"#),
        (#"{"\ud800": 1}"#, #"unpaired surrogate \uD800 in a string at column 3"#),
        (#"{"layout": "\x"}"#, #"invalid escape '\x' in a string at column 13"#),
        ("{\"layout\": \"a\tb\"}", "control character U+0009 must be escaped in a string at column 14"),
        (#"{"é": tru}"#, "expected a value, found 'tru' at column 7"),
        (#"{"x": 1} // c"#, "expected end of input after the JSON value, found '/' at column 10"),
        (#"{"a": [1 2]}"#, "expected ',' or ']' after an array element, found '2' at column 10"),
        (#"[1,]"#, "trailing comma is not allowed at column 3"),
        (#"{"x": 1e}"#, "invalid number: expected a digit in the exponent, found '}' at column 9"),
        (#"{"x": -}"#, "invalid number: expected a digit after '-', found '}' at column 8"),
        (#"{"x": 1.}"#, "invalid number: expected a digit after '.', found '}' at column 9"),
        (#"{"x": -01}"#, "invalid number: leading zeros are not allowed at column 8"),
        (#"{"x": 1.5.2}"#, "invalid number: unexpected '.' after a number at column 10"),
        (#"{"y": 12a}"#, "invalid number: unexpected 'a' after a number at column 9"),
        (#"{"y": 1e+}"#, "invalid number: expected a digit in the exponent, found '}' at column 10"),
        // Not JSON beats a bad shape.
        (#"{"x": "a", "y": 1,}"#, "trailing comma is not allowed at column 18"),
        (#"{"x": 1, "x": 2} ]"#, "expected end of input after the JSON value, found ']' at column 18"),
    ]

    @Test(arguments: parseCases)
    func parseErrors(_ line: String, _ message: String) {
        guard case .failure(let failure) = scan(line) else {
            Issue.record("accepted: \(line)")
            return
        }
        #expect(failure.error == .parseError(message))
        #expect(failure.code == "parse_error")
        #expect(failure.id == nil)
    }

    static let invalidUTF8Cases: [[UInt8]] = [
        Array(#"{"layout": ""#.utf8) + [0xFF] + Array(#""}"#.utf8),
        Array(#"{"layout": "a"#.utf8) + [0xC3] + Array(#""}"#.utf8),
        Array(#"{"other": ""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
        Array(#"{""#.utf8) + [0xC0, 0x80] + Array(#"": 1}"#.utf8),
        Array(#"{"x": 1}"#.utf8) + [0x80],
        Array(#"{"id": ["#.utf8) + [0xF5, 0x80, 0x80, 0x80] + Array(#"]}"#.utf8),
    ]

    @Test(arguments: invalidUTF8Cases)
    func invalidUTF8IsAParseError(_ line: [UInt8]) {
        guard case .failure(let failure) = RequestScanner.scan(line) else {
            Issue.record("accepted")
            return
        }
        #expect(failure.code == "parse_error")
        #expect(failure.message.hasPrefix("invalid UTF-8 at column "))
    }

    /// Found by the `request` fuzz target (its input is kept in
    /// Fuzz/corpus/request/regression-overflow-in-unknown-key): a number overflowing to infinity
    /// under an unknown key (or in `id`) was accepted, though the JSON parser refuses it.
    @Test func overflowingNumberAnywhereIsAParseError() {
        #expect(scan(#"{"op": "move", "x;;;;;;;;;;;;;y": 2e1010}"#).failure == RequestFailure(.parseError("number out of range at column 35")))
        #expect(scan(#"{"x": 1, "y": 2, "id": -1e400}"#).failure?.code == "parse_error")
        #expect(scan(#"{"x": 1, "y": 2, "id": [1e309]}"#).failure?.code == "parse_error")
        #expect(scan(#"{"x": 1, "y": 2, "id": 1e308, "other": 123456789012345678901234567890}"#).isSuccess)
        #expect(scan(#"{"x": 1e999, "y": 2}"#).failure == RequestFailure(.badRequest(#""x" must be a finite number"#)))
    }

    /// Also from the `request` fuzz target (Fuzz/corpus/request/regression-nested-duplicate-key):
    /// the scanner refuses a key given twice at the top level, but does not look for duplicates
    /// inside a value it ignores or echoes (that would cost allocations on every request); the
    /// JSON parser refuses both. A choice, pinned here and written in docs/socket-protocol.md.
    @Test func duplicateKeysAreRefusedAtTheTopLevelOnly() {
        #expect(scan(#"{"x": 1, "y": 2, "x": 3}"#).failure?.code == "bad_request")
        #expect(scan(#"{"x": 1, "y": 2, "other": {"a": 1, "a": 2}}"#).isSuccess)
        #expect(scan(#"{"x": 1, "y": 2, "id": {"a": 1, "a": 2}}"#).isSuccess)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(#"{"x": 1, "y": 2, "id": {"a": 1, "a": 2}}"#, lenient: false) }
    }

    @Test func nestingLimitMatchesTheParser() {
        let ok = "{\"id\": " + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}"
        #expect(throws: Never.self) { try JSONParser.parse(ok, lenient: false) }
        #expect(scan(ok).isSuccess)
        let deep = "{\"id\": " + String(repeating: "[", count: 512) + String(repeating: "]", count: 512) + "}"
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep, lenient: false) }
        #expect(scan(deep).failure == RequestFailure(.parseError("nesting is deeper than 512 levels at column 519")))
        let huge = [UInt8](repeating: 0x5B, count: 65_536)
        #expect(RequestScanner.scan(huge).failure?.code == "parse_error")
    }

    @Test func manyTopLevelKeys() {
        // Past the inline key list, duplicates are still found.
        var members = (0..<40).map { "\"k\($0)\": \($0)" }
        #expect(scan("{" + members.joined(separator: ", ") + "}").isSuccess)
        members.append("\"k\\u0033\": 1")  // "k3"
        #expect(scan("{" + members.joined(separator: ", ") + "}").failure?.error == .badRequest(#"duplicate key "k3""#))
        members[members.count - 1] = "\"x\": 2"
        members.append("\"k39\": 1")
        #expect(scan("{" + members.joined(separator: ", ") + "}").failure?.error == .badRequest(#"duplicate key "k39""#))
    }

    @Test func errorCodes() {
        #expect(RequestError.parseError("m").code == "parse_error")
        #expect(RequestError.badRequest("m").code == "bad_request")
        #expect(RequestError.badRequest("m").message == "m")
        #expect(RequestFailure(.badRequest("m"), id: 3..<4).code == "bad_request")
    }

    @Test func bufferPointerEntryPoint() {
        let bytes = Array(#"xx{"x": 4, "id": 12}yy"#.utf8)
        let result = bytes.withUnsafeBufferPointer { RequestScanner.scan(UnsafeBufferPointer(rebasing: $0[2..<20])) }
        guard case .success(let request) = result else {
            Issue.record("refused")
            return
        }
        #expect(request.x == 4)
        #expect(request.id == 15..<17)  // relative to the line passed in
    }

    // MARK: Numbers

    @Test func numbersEqualTheStandardLibrary() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let literal = randomNumberLiteral(&rng)
            let expected = Double(literal)!
            let result = scan("{\"x\": \(literal)}")
            if expected.isFinite {
                #expect(result.success?.x == expected, "\(literal)")
                #expect(result.success?.x?.sign == expected.sign, "\(literal)")
            } else {
                #expect(result.failure?.error == .badRequest(#""x" must be a finite number"#), "\(literal)")
            }
        }
        for literal in ["120", "120.5", "0.1", "0.3", "2.2250738585072014e-308", "4.9e-324", "1.7976931348623157e308",
                        "9007199254740993", "9007199254740993.0", "123456789012345678", "0.000000000000000000001",
                        "1e22", "1e23", "8.98846567431158e307", "3.0000000000000004", "1448997445238699"] {
            #expect(scan("{\"x\": \(literal)}").success?.x == Double(literal)!, "\(literal)")
        }
    }

    @Test func shortNumbersEqualTheStandardLibrary() {
        // Around the short-number path's 15-digit limit, with and without a fraction and a sign.
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<5000 {
            let intCount = Int.random(in: 1...17, using: &rng)
            var literal = Bool.random(using: &rng) ? "-" : ""
            literal += String(Int.random(in: intCount == 1 ? 0...9 : 1...9, using: &rng))
            for _ in 1..<intCount { literal += String(Int.random(in: 0...9, using: &rng)) }
            if Bool.random(using: &rng) {
                literal += "."
                for _ in 0..<Int.random(in: 1...17, using: &rng) { literal += String(Int.random(in: 0...9, using: &rng)) }
            }
            let expected = Double(literal)!
            let x = scan("{\"x\":\(literal)}").success?.x
            #expect(x == expected, "\(literal)")
            #expect(x?.sign == expected.sign, "\(literal)")
        }
    }

    // MARK: Fuzz-ish

    @Test func randomBytesNeverCrash() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]:,"\ u0123456789abcdefxyE.-+ntrl"#.utf8) + [0x0A, 0x09, 0x00, 0x80, 0xC3, 0xA9, 0xED, 0xF0, 0xFF]
        for _ in 0..<20_000 {
            let length = Int.random(in: 0..<40, using: &rng)
            var bytes: [UInt8] = []
            for _ in 0..<length {
                if Bool.random(using: &rng) {
                    bytes.append(alphabet.randomElement(using: &rng)!)
                } else {
                    bytes.append(UInt8.random(in: 0...255, using: &rng))
                }
            }
            _ = RequestScanner.scan(bytes)
            _ = try? JSONParser.parse(bytes, lenient: true)
            // Truncations of a real request too.
            let request = Array(#"{"op":"tap","x":1.5e3,"y":"\u00e9\ud83d\ude00","id":[null,true,{"k":-0}]}"#.utf8)
            let cut = Int.random(in: 0...request.count, using: &rng)
            let result = RequestScanner.scan(Array(request[..<cut]))
            if cut < request.count { #expect(result.failure?.code == "parse_error") }
        }
    }

    @Test func agreesWithTheStrictParser() throws {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<3000 {
            let text = randomObject(&rng, depth: 0)
            let bytes = Array(text.utf8)
            // A valid object: both accept, and agree on the known fields.
            let value = try JSONParser.parse(bytes, lenient: false)
            let result = RequestScanner.scan(bytes)
            switch result {
            case .success(let request):
                if case .number(let n)? = value["x"] { #expect(request.x == n.double, "\(text)") }
                if case .string(let s)? = value["layout"] { #expect(request.layout == s, "\(text)") }
                if let id = value["id"] {
                    let echoed = request.id.flatMap { try? JSONParser.parse(Array(bytes[$0]), lenient: false) }
                    #expect(echoed == id, "\(text)")
                }
            case .failure(let failure):
                #expect(failure.code == "bad_request", "\(text) \(failure)")
            }
            // Mutated: the scanner reports parse_error exactly when the strict parser refuses.
            var mutated = bytes
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let k = Int.random(in: 0..<mutated.count, using: &rng)
                switch Int.random(in: 0..<3, using: &rng) {
                case 0: mutated.remove(at: k)
                case 1: mutated.insert(Array(#"{}[],:" \e-.1x"#.utf8).randomElement(using: &rng)!, at: k)
                default: mutated[k] = UInt8.random(in: 0...255, using: &rng)
                }
                if mutated.isEmpty { mutated = [0x7B] }
            }
            var parserError: JSONSyntaxError? = nil
            do { _ = try JSONParser.parse(mutated, lenient: false) } catch { parserError = error }
            if let parserError, parserError.message.hasPrefix("duplicate key") { continue }
            if parserError?.message == "number out of range" { continue }
            let scanned = RequestScanner.scan(mutated)
            let mutatedText = String(decoding: mutated, as: UTF8.self)
            #expect((scanned.failure?.code == "parse_error") == (parserError != nil), "\(mutatedText) \(scanned) \(String(describing: parserError))")
            if let parserError, case .failure(let f) = scanned {
                #expect(f.message.hasPrefix(parserError.message), "\(mutatedText)")
            }
        }
    }
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
    var success: Success? { if case .success(let s) = self { s } else { nil } }
    var failure: Failure? { if case .failure(let f) = self { f } else { nil } }
}

/// A random strict JSON object with unique keys, sometimes with the request's known keys.
private func randomObject<G: RandomNumberGenerator>(_ rng: inout G, depth: Int) -> String {
    let count = Int.random(in: 0...5, using: &rng)
    var keys: [String] = []
    var used = Set<String>()
    let candidates = ["x", "y", "op", "id", "layout", "a", "b", "é", "\\u0078q", "k\\n", ""]
    for _ in 0..<count {
        let key = candidates.randomElement(using: &rng)!
        if used.insert(key).inserted { keys.append(key) }
    }
    let members = keys.map { key -> String in
        let value: String
        switch key {
        case "x", "y": value = Int.random(in: 0..<5, using: &rng) == 0 ? randomValue(&rng, depth: depth + 1) : randomNumberLiteral(&rng).replacingOccurrences(ofLongExponent: ())
        case "layout": value = Bool.random(using: &rng) ? "\"home\\u00e9\"" : randomValue(&rng, depth: depth + 1)
        default: value = randomValue(&rng, depth: depth + 1)
        }
        let ws = [" ", "", "\t", "\n  "].randomElement(using: &rng)!
        return "\"\(key)\"\(ws):\(ws)\(value)"
    }
    return "{" + members.joined(separator: ", ") + "}"
}

private func randomValue<G: RandomNumberGenerator>(_ rng: inout G, depth: Int) -> String {
    let pick = depth > 3 ? Int.random(in: 0..<5, using: &rng) : Int.random(in: 0..<7, using: &rng)
    switch pick {
    case 0: return "null"
    case 1: return Bool.random(using: &rng) ? "true" : "false"
    case 2: return randomNumberLiteral(&rng).replacingOccurrences(ofLongExponent: ())
    case 3: return ["\"\"", "\"a b\"", "\"\\\"q\\\\\"", "\"\\ud83d\\ude00é\"", "\"\\u0000\\t\""].randomElement(using: &rng)!
    case 4: return "\"s\(Int.random(in: 0..<100, using: &rng))\""
    case 5: return "[" + (0..<Int.random(in: 0...3, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) }.joined(separator: ",") + "]"
    default: return randomObject(&rng, depth: depth)
    }
}

extension String {
    /// Keeps random literals finite (exponents below 250), so generated documents stay valid.
    fileprivate func replacingOccurrences(ofLongExponent: ()) -> String {
        guard let e = firstIndex(where: { $0 == "e" || $0 == "E" }) else { return self }
        let tail = self[index(after: e)...].filter { $0.isNumber }
        guard let exponent = Int(tail), exponent >= 250 else { return self }
        return String(self[..<e])
    }
}

/// The plain-tap shortcut (`{"x":N,"y":N}`) must answer exactly as the full scan: the same
/// request for the lines it takes, and the full scan's answer (errors included) for the lines
/// next to that shape it must leave alone.
struct PlainTapShortcutTests {
    static let lines: [String] = [
        #"{"x":1,"y":2}"#, #"{"x":120.5,"y":340}"#, #"{"x":-0.25,"y":-7}"#, #"{"x":0,"y":0}"#,
        "{\"x\":1,\"y\":2}\r", "{\"x\":1,\"y\":2} \t", #"{"x":999999999999999,"y":0.000000000000001}"#,
        // Left to the full scan: another shape, a number quickNumber declines, or not JSON.
        #"{"x":1,"y":2,"layout":"home"}"#, #"{"x":1 ,"y":2}"#, #"{"y":2,"x":1}"#, #"{"x":1e2,"y":2}"#,
        #"{"x":01,"y":2}"#, #"{"x":1.,"y":2}"#, #"{"x":1,"y":2}}"#, #"{"x":1,"y":2} x"#, #"{"x":1,"y":"2"}"#,
        #"{"x":1,"y":2"#, #"{"x":1,"y":}"#, #"{"x":1,"x":2}"#, #"{"x":1,"y":2,}"#, #"{"x":-,"y":2}"#,
        #"{"x":1234567890123456,"y":2}"#, #"{"x":1,"y":2.5e}"#, #"{"x":1,"y":-}"#, #"{"x":1,"y":2.}"#,
    ]

    @Test(arguments: lines) func answersAsTheFullScan(_ line: String) {
        let bytes = Array(line.utf8)
        var quick = Request(), full = Request()
        let (quickFailure, fullFailure) = bytes.withUnsafeBufferPointer {
            (RequestScanner.scan($0, into: &quick), RequestScanner.scanFully($0, into: &full))
        }
        #expect(quickFailure == fullFailure)
        #expect(quick == full)
    }

    /// A coordinate's text is handed on (and copied into the event-log record) only when it is
    /// exactly what `JSONWriter.writeNumber` writes for the value read: checked on 20,000 random
    /// numbers of the plain shape, and on the texts it must decline.
    @Test func coordinateTextIsHandedOnOnlyWhenWriteNumberWritesTheSame() {
        var rng = SystemRandomNumberGenerator()
        var canonical = 0
        for _ in 0..<20_000 {
            var text = Bool.random(using: &rng) ? "-" : ""
            let intDigits = Int.random(in: 1...12, using: &rng)
            text += Int.random(in: 0...3, using: &rng) == 0 ? "0" : String(Int.random(in: 1...9, using: &rng))
            if !text.hasSuffix("0") { for _ in 1..<intDigits { text += String(Int.random(in: 0...9, using: &rng)) } }
            let places = Int.random(in: 0...5, using: &rng)
            if places > 0 {
                text += "."
                for _ in 0..<places { text += String(Int.random(in: 0...9, using: &rng)) }
            }
            let line = #"{"x":"# + text + #","y":1}"#
            let bytes = Array(line.utf8)
            guard let tap = bytes.withUnsafeBufferPointer({ RequestScanner.plainTap($0) }) else { continue }  // over 15 digits
            var written = [UInt8](repeating: 0, count: JSONWriter.maxNumberBytes)
            let n = written.withUnsafeMutableBufferPointer { JSONWriter.writeNumber(tap.x, to: $0.baseAddress!) }
            let formatted = String(decoding: written[..<n], as: UTF8.self)
            if tap.xText != nil {
                canonical += 1
                #expect(formatted == text, "\(text) was handed on, but writeNumber writes \(formatted)")
            }
        }
        #expect(canonical > 5_000)
        for declined in ["-0", "120.50", "5.0", "1.2345", "1234567890.5", "0.000"] {
            let bytes = Array((#"{"x":"# + declined + #","y":1}"#).utf8)
            let tap = bytes.withUnsafeBufferPointer { RequestScanner.plainTap($0) }
            #expect(tap != nil && tap?.xText == nil, "\(declined) must be formatted afresh")
        }
        for kept in ["0", "-7", "120", "-0.5", "123.25", "999999999.999", "100000000000000"] {
            let bytes = Array((#"{"x":1,"y":"# + kept + "}").utf8)
            let text = bytes.withUnsafeBufferPointer { RequestScanner.plainTap($0)?.yText.map { String(decoding: $0, as: UTF8.self) } }
            #expect(text == kept)
        }
    }

    @Test func readsThePlainShape() {
        var request = Request()
        let failure = Array(#"{"x":120.5,"y":-340}"#.utf8).withUnsafeBufferPointer { RequestScanner.scan($0, into: &request) }
        #expect(failure == nil)
        #expect(request == Request(op: .tap, x: 120.5, y: -340))
    }
}
