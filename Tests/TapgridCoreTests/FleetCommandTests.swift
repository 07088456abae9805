import Testing

@testable import TapgridCore

/// Command messages (`P/<scope>/command/<op>`): each refusal with its exact code and message, in
/// the order the checks run, and accepted payloads turned into the socket line the router reads.
@Suite struct FleetCommandTests {
    static let all = MQTTConfig.commandOps

    func decide(_ op: String, _ payload: String, retained: Bool = false, accept: [String] = all) -> FleetCommandDecision {
        FleetCommand.decide(op: op, payload: Array(payload.utf8), retained: retained, accept: accept)
    }

    /// The line an accepted command becomes, as text.
    func line(_ decision: FleetCommandDecision) -> String? {
        guard case .request(let line, _) = decision else { return nil }
        return String(decoding: line, as: UTF8.self)
    }

    // MARK: Refusals

    @Test func payloadsOverOneMiBAreRefusedUnread() {
        let big = [UInt8](repeating: 0x20, count: 2 << 20)
        #expect(FleetCommand.decide(op: "tap", payload: big, retained: false, accept: Self.all)
            == .refuse(code: .badRequest, message: "the payload is 2097152 bytes; at most 1048576 (1 MiB)", id: nil))
        // Exactly 1 MiB is taken; one byte more is not.
        let prefix = Array(#"{"layout":"home","grid":"g","text":""#.utf8), suffix = Array(#""}"#.utf8)
        let padding = [UInt8](repeating: 0x61, count: (1 << 20) - prefix.count - suffix.count)
        let exact = prefix + padding + suffix
        #expect(exact.count == 1_048_576)
        guard case .request(let accepted, nil) = FleetCommand.decide(op: "set", payload: exact, retained: false, accept: Self.all) else {
            Issue.record("a payload of exactly 1 MiB was refused")
            return
        }
        #expect(accepted == Array(#"{"op":"set","#.utf8) + exact.dropFirst())
        #expect(FleetCommand.decide(op: "set", payload: exact + [0x20], retained: false, accept: Self.all)
            == .refuse(code: .badRequest, message: "the payload is 1048577 bytes; at most 1048576 (1 MiB)", id: nil))
    }

    @Test func aRetainedCommandIsNeverRun() {
        let message = "a retained command is ignored, never run (an old command must not run again when the node reconnects); publish commands without the retain flag"
        #expect(decide("tap", #"{"x": 10, "y": 20, "id": 7}"#, retained: true) == .refuse(code: .badRequest, message: message, id: .number(JSONNumber(7))))
        #expect(decide("tap", "", retained: true) == .refuse(code: .badRequest, message: message, id: nil))
        // Retained comes before every other check: it is never run, whatever else is wrong.
        #expect(decide("tap", "{", retained: true, accept: []) == .refuse(code: .badRequest, message: message, id: nil))
    }

    @Test func unknownOps() {
        let expected = "; expected tap, hit, use, reload, status, layouts, set, load, unload, wake or screen"
        #expect(decide("explode", #"{"id": "a"}"#) == .refuse(code: .unknownOp, message: #"unknown op "explode""# + expected, id: .string("a")))
        // Ops the socket has but commands do not: touch contacts are not taken over MQTT.
        #expect(decide("down", #"{"slot": 0}"#) == .refuse(code: .unknownOp, message: #"unknown op "down""# + expected, id: nil))
        #expect(decide("", "") == .refuse(code: .unknownOp, message: #"unknown op """# + expected, id: nil))
        // The op is checked before the payload: a broken payload leaves no id to echo.
        #expect(decide("explode", "{") == .refuse(code: .unknownOp, message: #"unknown op "explode""# + expected, id: nil))
    }

    @Test func opsNotAcceptedAreForbidden() {
        #expect(decide("reload", #"{"id": 3}"#, accept: ["tap", "use"])
            == .refuse(code: .forbidden, message: #"op "reload" is not accepted over MQTT (mqtt.accept: tap and use)"#, id: .number(JSONNumber(3))))
        #expect(decide("load", "", accept: ["tap", "use", "set"])
            == .refuse(code: .forbidden, message: #"op "load" is not accepted over MQTT (mqtt.accept: tap, use and set)"#, id: nil))
        #expect(decide("status", "", accept: ["tap"])
            == .refuse(code: .forbidden, message: #"op "status" is not accepted over MQTT (mqtt.accept: tap)"#, id: nil))
        // The default, `[]`: publish only.
        #expect(decide("tap", #"{"x": 1, "y": 1}"#, accept: [])
            == .refuse(code: .forbidden, message: #"op "tap" is not accepted over MQTT (mqtt.accept is empty: this node only publishes)"#, id: nil))
    }

    @Test(arguments: [
        (#"{"x": 1,}"#, "trailing comma is not allowed at column 8"),
        (#"{"x": NaN}"#, "expected a value, found 'NaN' at column 7"),
        (#"{"x": 0x10}"#, "invalid number: unexpected 'x10' after a number at column 8"),
        (#"{"x": 1} {"y": 2}"#, "expected end of input after the JSON value, found '{' at column 10"),
        ("{\n  \"x\": 1,\n}", "trailing comma is not allowed at line 2, column 9"),
        (#"{"x": 1e999}"#, "number out of range at column 7"),
        (#"{"text": "\ud800"}"#, #"unpaired surrogate \uD800 in a string at column 11"#),
        (" ", "unexpected end of input at column 2"),
    ])
    func payloadsThatAreNotStrictJSON(payload: String, message: String) {
        #expect(decide("set", payload) == .refuse(code: .parseError, message: message, id: nil))
    }

    @Test func invalidUTF8() {
        let payload = Array(#"{"text": ""#.utf8) + [0xFF, 0x22, 0x7D]
        #expect(FleetCommand.decide(op: "set", payload: payload, retained: false, accept: Self.all)
            == .refuse(code: .parseError, message: "invalid UTF-8 at column 11", id: nil))
    }

    @Test func deepNesting() {
        let payload = [UInt8](repeating: 0x5B, count: 10_000)
        #expect(FleetCommand.decide(op: "tap", payload: payload, retained: false, accept: Self.all)
            == .refuse(code: .parseError, message: "nesting is deeper than 512 levels at column 513", id: nil))
        // 512 levels, as the socket's scanner takes, is fine: the object and 511 arrays in `id`.
        let deepest = #"{"id": "# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}"
        #expect(line(decide("status", deepest)) == #"{"op":"status","id":"# + String(repeating: "[", count: 511) + String(repeating: "]", count: 511) + "}")
    }

    @Test func aKeyGivenTwiceIsABadRequest() {
        // As on the socket: strict JSON, but a request that cannot mean one thing.
        #expect(decide("tap", #"{"x": 1, "x": 2}"#) == .refuse(code: .badRequest, message: #"duplicate key "x" at column 10"#, id: nil))
    }

    @Test(arguments: [
        ("[1, 2]", "an array"), (#""tap""#, "a string"), ("null", "null"), ("7", "a number"), ("true", "a boolean"),
    ])
    func payloadsThatAreNotObjects(payload: String, found: String) {
        #expect(decide("tap", payload) == .refuse(code: .badRequest,
            message: #"the payload must be a JSON object (the request without "op") or empty, not "# + found, id: nil))
    }

    @Test func thePayloadMustNotNameTheOp() {
        #expect(decide("tap", #"{"op": "tap", "x": 1, "y": 2, "id": [1]}"#) == .refuse(code: .badRequest,
            message: #"the payload must not hold "op": the topic's last level names it ("tap")"#, id: .array([.number(JSONNumber(1))])))
        #expect(decide("use", #"{"op": "reload"}"#) == .refuse(code: .badRequest,
            message: #"the payload must not hold "op": the topic's last level names it ("use")"#, id: nil))
    }

    // MARK: Accepted

    @Test func aTapBecomesTheSocketsTapLine() throws {
        let decision = decide("tap", #"{ "x": 120, "y": 340.5, "layout": "home", "id": {"n": 7} }"#)
        let text = try #require(line(decision))
        #expect(text == #"{"op":"tap","x":120,"y":340.5,"layout":"home","id":{"n":7}}"#)
        guard case .request(let bytes, let id) = decision else { return }
        #expect(id == .object([JSONMember(key: "n", value: .number(JSONNumber(7)))]))
        // The router's own scanner reads it as the tap it was.
        let request = try RequestScanner.scan(bytes).get()
        #expect(request.op == .tap)
        #expect(request.x == 120)
        #expect(request.y == 340.5)
        #expect(request.layout == "home")
        #expect(request.id.map { String(decoding: bytes[$0], as: UTF8.self) } == #"{"n":7}"#)
    }

    @Test func useSetAndLoadKeepEveryMemberInOrder() throws {
        let payloads: [(op: String, payload: String)] = [
            ("use", #"{"layout": "settings"}"#),
            ("set", #"{"layout": "home", "grid": "volume", "text": "42 % \"loud\" é", "active": true, "value": {"db": -3.5, "l": [1, null]}, "enabled": null}"#),
            ("load", #"{"layout": "promo", "definition": {"width": 800, "height": 480, "grid": {"cols": [{"tag": 1}, {"tag": 2}]}}, "id": "p1"}"#),
        ]
        for (op, payload) in payloads {
            let text = try #require(line(decide(op, payload)), "\(op) was refused")
            let sent = try JSONParser.parse(payload, lenient: false)
            guard case .object(let members) = try JSONParser.parse(text, lenient: false), case .object(let expected) = sent else {
                Issue.record("\(op): not an object")
                continue
            }
            #expect(members.first == JSONMember(key: "op", value: .string(op)))
            #expect(Array(members.dropFirst()) == expected)
            #expect(!text.contains(" \""), "compact: \(text)")
            let ops: [String: Request.Op] = ["use": .use, "set": .set, "load": .load]
            #expect(try RequestScanner.scan(Array(text.utf8)).get().op == ops[op])
        }
    }

    @Test func anEmptyPayloadIsAnEmptyObject() {
        #expect(decide("status", "") == .request(line: Array(#"{"op":"status"}"#.utf8), id: nil))
        #expect(decide("reload", "{}") == .request(line: Array(#"{"op":"reload"}"#.utf8), id: nil))
        #expect(decide("layouts", #"{"state": true, "id": null}"#) == .request(line: Array(#"{"op":"layouts","state":true,"id":null}"#.utf8), id: .null))
    }

    // MARK: Results

    @Test func aRefusalIsTheSocketsErrorReplyWithTheTopic() {
        let topic = "tapgrid/plates/command/tap"
        let withID = FleetResult.refusal(code: .forbidden, message: #"op "tap" is "not" accepted"#, id: .number(JSONNumber(7)), topic: topic)
        #expect(String(decoding: withID, as: UTF8.self)
            == #"{"id":7,"error":{"code":"forbidden","message":"op \"tap\" is \"not\" accepted"},"topic":"tapgrid/plates/command/tap"}"#)
        // The same fields in the same order as the socket's error reply.
        let socket = ByteBuffer(capacity: 256)
        Array("7".utf8).withUnsafeBufferPointer { ReplyWriter.error(.forbidden, #"op "tap" is "not" accepted"#, id: $0, socket) }
        let socketText = String(decoding: socket.bytes, as: UTF8.self)
        #expect(socketText.hasSuffix("}}\n"))
        #expect(String(decoding: withID, as: UTF8.self).hasPrefix(String(socketText.dropLast(2))))
        let withoutID = FleetResult.refusal(code: .parseError, message: "invalid UTF-8 at column 10", id: nil, topic: topic)
        #expect(String(decoding: withoutID, as: UTF8.self)
            == #"{"error":{"code":"parse_error","message":"invalid UTF-8 at column 10"},"topic":"tapgrid/plates/command/tap"}"#)
    }

    @Test func aReplyGetsTheTopicLast() throws {
        let reply = Array("{\"id\":\"a\",\"ok\":true,\"layout\":\"settings\"}\n".utf8)
        let text = try #require(FleetResult.reply(reply, topic: "tapgrid/broadcast/command/use").map { String(decoding: $0, as: UTF8.self) })
        #expect(text == #"{"id":"a","ok":true,"layout":"settings","topic":"tapgrid/broadcast/command/use"}"#)
        #expect(FleetResult.reply(Array("[1]\n".utf8), topic: "t") == nil)
    }
}
