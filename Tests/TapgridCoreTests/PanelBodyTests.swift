import Testing

@testable import TapgridCore

/// The bodies of `POST /contact` and `POST /tap` turned into the socket's request lines: the
/// keys the socket op takes, passed through as they came; every other key dropped; and each
/// body that cannot be one refused with a 400 naming what was wrong.
@Suite struct PanelBodyTests {
    func contact(_ body: String) -> Result<(session: String, line: String), PanelRefusal> {
        PanelBody.contact(Array(body.utf8)).map { ($0.session, String(decoding: $0.line, as: UTF8.self)) }
    }

    func contactRefusal(_ body: String) -> PanelRefusal? {
        guard case .failure(let refusal) = PanelBody.contact(Array(body.utf8)) else { return nil }
        return refusal
    }

    func tap(_ body: String) -> Result<String, PanelRefusal> {
        PanelBody.tap(Array(body.utf8)).map { String(decoding: $0, as: UTF8.self) }
    }

    func tapRefusal(_ body: String) -> PanelRefusal? {
        guard case .failure(let refusal) = PanelBody.tap(Array(body.utf8)) else { return nil }
        return refusal
    }

    // MARK: Contacts

    @Test func aContactBecomesTheRequestLineOfItsPhase() throws {
        let result = try contact(#"{"session": "page-1_A", "phase": "down", "slot": 2, "x": 10.5, "y": 20, "layout": "home"}"#).get()
        #expect(result.session == "page-1_A")
        #expect(result.line == #"{"op":"down","slot":2,"x":10.5,"y":20,"layout":"home"}"#)
        for phase in ["move", "up", "cancel"] {
            let line = try contact(#"{"session": "s", "phase": "\#(phase)", "slot": 0}"#).get().line
            #expect(line == #"{"op":"\#(phase)","slot":0}"#)
        }
    }

    @Test func onlySlotXYLayoutAndIdAreKept() throws {
        // "session" and "phase" are the panel's own; "op", "conn", "source" and anything else would
        // change what the socket does, so they are dropped, not passed on.
        let line = try contact(#"""
            {"op": "tap", "session": "s", "conn": 99, "phase": "up", "id": "c1", "source": "socket",
             "slot": 1, "extra": [1, 2], "x": 3, "layout": "l", "y": 4, "__proto__": {}}
            """#).get().line
        #expect(line == #"{"op":"up","id":"c1","slot":1,"x":3,"layout":"l","y":4}"#)
        let tapLine = try tap(#"{"op": "use", "layout": "x", "session": "s", "slot": 3, "x": 1, "y": 2, "grid": "a", "id": 5}"#).get()
        #expect(tapLine == #"{"op":"tap","layout":"x","x":1,"y":2,"id":5}"#)
    }

    @Test func valuesArePassedThroughAsTheyCame() throws {
        // Whatever the values are, the socket's scanner checks them: strings, negatives, objects,
        // nulls and escapes reach it unchanged in meaning.
        let line = try contact(#"""
            {"session": "s", "phase": "move", "slot": -1, "x": "ten", "y": null, "layout": "caf\u00e9 \"q\" \\", "id": {"k": [true, 1.25e2]}}
            """#).get().line
        #expect(line == #"{"op":"move","slot":-1,"x":"ten","y":null,"layout":"café \"q\" \\","id":{"k":[true,125]}}"#)
        let numbers = try tap(#"{"x": 0.1, "y": 123456789012, "layout": ""}"#).get()
        #expect(numbers == #"{"op":"tap","x":0.1,"y":123456789012,"layout":""}"#)
        // Each line is one JSON object the socket can parse, and its values equal the body's.
        let body = #"{"x": 99.75, "y": -0.5, "layout": "a\nb", "id": [null]}"#
        let parsedLine = try JSONParser.parse(try tap(body).get(), lenient: false)
        let parsedBody = try JSONParser.parse(body, lenient: false)
        for key in ["x", "y", "layout", "id"] { #expect(parsedLine[key] == parsedBody[key], "\(key)") }
        #expect(parsedLine["op"] == .string("tap"))
    }

    @Test func aTapNeedsNoSessionAndAnEmptyObjectIsJustTheOp() throws {
        #expect(try tap("{}").get() == #"{"op":"tap"}"#)
        #expect(try tap(#"{"x": 5, "y": 6}"#).get() == #"{"op":"tap","x":5,"y":6}"#)
    }

    @Test(arguments: [
        #"{"phase": "down"}"#, #"{"session": "", "phase": "down"}"#, #"{"session": 7, "phase": "down"}"#,
        #"{"session": "a/b", "phase": "down"}"#, #"{"session": "a b", "phase": "down"}"#, #"{"session": "a.b", "phase": "down"}"#,
        ##"{"session": "#", "phase": "down"}"##, #"{"session": "é", "phase": "down"}"#, #"{"session": null, "phase": "down"}"#,
        #"{"session": "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "phase": "down"}"#,
    ])
    func badSessionIDsAreRefused(body: String) {
        #expect(contactRefusal(body)
            == PanelRefusal(400, "bad_request", #""session" must be the page's id: 1-64 characters of A-Z, a-z, 0-9, _ and -"#))
    }

    @Test func sessionIDs() {
        #expect(PanelBody.isSessionID("a"))
        #expect(PanelBody.isSessionID("Zz09_-"))
        #expect(PanelBody.isSessionID(String(repeating: "x", count: 64)))
        #expect(!PanelBody.isSessionID(String(repeating: "x", count: 65)))
        #expect(!PanelBody.isSessionID(""))
        #expect(!PanelBody.isSessionID("a+b"))
        #expect(!PanelBody.isSessionID("a\nb"))
    }

    @Test(arguments: [
        #"{"session": "s"}"#, #"{"session": "s", "phase": "tap"}"#, #"{"session": "s", "phase": "DOWN"}"#,
        #"{"session": "s", "phase": ""}"#, #"{"session": "s", "phase": 1}"#, #"{"session": "s", "phase": ["down"]}"#,
    ])
    func badPhasesAreRefused(body: String) {
        #expect(contactRefusal(body) == PanelRefusal(400, "bad_request", #""phase" must be "down", "move", "up" or "cancel""#))
    }

    // MARK: Not an object, not JSON

    @Test func aBodyThatIsNotAnObjectIsRefusedNamingWhatItIs() {
        let cases: [(String, String)] = [
            ("[]", "an array"), (#""down""#, "a string"), ("12", "a number"), ("null", "null"), ("true", "a boolean"),
        ]
        for (body, found) in cases {
            let expected = PanelRefusal(400, "bad_request", "the body must be a JSON object, found \(found)")
            #expect(contactRefusal(body) == expected, "\(body)")
            #expect(tapRefusal(body) == expected, "\(body)")
        }
    }

    @Test func invalidJSONIsAParseErrorSayingWhereAndWhy() {
        #expect(tapRefusal(#"{"x": 1,}"#) == PanelRefusal(400, "parse_error", "the body is not JSON: 1:8: trailing comma is not allowed"))
        #expect(contactRefusal("") == PanelRefusal(400, "parse_error", "the body is not JSON: 1:1: unexpected end of input"))
        for body in [#"{"x": 1"#, "{x: 1}", #"{"x": 1} x"#, #"{"x": 1, "x": 2}"#, "// c\n{}", #"{"x": NaN}"#] {
            let refusal = tapRefusal(body)
            #expect(refusal?.status == 400, "\(body)")
            #expect(refusal?.code == "parse_error", "\(body)")
            #expect(refusal?.message.hasPrefix("the body is not JSON: ") == true, "\(body)")
        }
        // Invalid UTF-8 and nesting past 64 levels are not JSON the panel takes either.
        if case .failure(let utf8) = PanelBody.tap([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]) {
            #expect(utf8.status == 400 && utf8.code == "parse_error")
        } else {
            Issue.record("invalid UTF-8 was taken")
        }
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(tapRefusal(#"{"id": \#(deep)}"#)?.code == "parse_error")
        // The checks run in order: not JSON, then not an object, then session, then phase.
        #expect(contactRefusal(#"{"phase": "bad"}"#)?.message.contains("\"session\"") == true)
        #expect(contactRefusal(#"{"session": "ok"}"#)?.message.contains("\"phase\"") == true)
    }
}
