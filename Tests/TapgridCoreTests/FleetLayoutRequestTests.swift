import Testing

@testable import TapgridCore

/// Pushed-layout messages checked before they are kept, and their effects turned into the
/// `load` and `unload` lines the router reads as socket requests.
@Suite struct FleetLayoutRequestTests {
    @Test func refusedBeforeTheyAreKept() {
        let small = Array(#"{"width":1,"height":1,"grid":{}}"#.utf8)
        #expect(FleetLayoutRequest.refusal(payload: small, accept: ["tap", "load"]) == nil)
        #expect(FleetLayoutRequest.refusal(payload: [], accept: ["load"]) == nil)
        let forbidden = FleetLayoutRequest.refusal(payload: small, accept: ["tap", "use"])
        #expect(forbidden?.code == .forbidden)
        #expect(forbidden?.message == #"pushed layouts need op "load", which is not accepted over MQTT (mqtt.accept: tap and use)"#)
        #expect(FleetLayoutRequest.refusal(payload: [], accept: [])?.message
            == #"pushed layouts need op "load", which is not accepted over MQTT (mqtt.accept is empty: this node only publishes)"#)
        let big = FleetLayoutRequest.refusal(payload: [UInt8](repeating: 0x20, count: (1 << 20) + 1), accept: ["load"])
        #expect(big?.code == .badRequest)
        #expect(big?.message == "the payload is 1048577 bytes; at most 1048576 (1 MiB)")
    }

    @Test func aLoadEffectIsTheLoadRequest() throws {
        let definition = Array("{\"width\": 800, \"height\": 480,\n \"grid\": {\"cols\": [{\"tag\": 1}]}}".utf8)
        let decision = FleetLayoutRequest.request(for: .load(name: "promo", definition: definition, scope: .group(index: 0)))
        guard case .request(let line, nil)? = decision else {
            Issue.record("\(String(describing: decision))")
            return
        }
        #expect(String(decoding: line, as: UTF8.self) == #"{"op":"load","layout":"promo","definition":{"width":800,"height":480,"grid":{"cols":[{"tag":1}]}}}"#)
        // Read back as the router reads a load line.
        let load = try ControlRequest.load(try JSONParser.parse(line, lenient: false)).get()
        #expect(load.layout == "promo")
        #expect(load.definition == (try JSONParser.parse(definition, lenient: false)))
    }

    @Test func anUnloadEffectIsTheUnloadRequest() throws {
        guard case .request(let line, nil)? = FleetLayoutRequest.request(for: .unload(name: "pro\"mo")) else {
            Issue.record("not a request")
            return
        }
        #expect(String(decoding: line, as: UTF8.self) == #"{"op":"unload","layout":"pro\"mo"}"#)
        #expect(try ControlRequest.unload(try JSONParser.parse(line, lenient: false)).get() == "pro\"mo")
        #expect(FleetLayoutRequest.request(for: .none) == nil)
    }

    @Test func definitionsThatCannotBeLoaded() {
        func refusal(_ text: String) -> FleetCommandDecision? {
            FleetLayoutRequest.request(for: .load(name: "p", definition: Array(text.utf8), scope: .broadcast))
        }
        #expect(refusal(#"{"width": 800,"#) == .refuse(code: .parseError, message: "the definition: unexpected end of input at column 15", id: nil))
        #expect(refusal("[1]") == .refuse(code: .badRequest,
            message: #"the definition must be a JSON object (a config's "layouts" entry with "grid" inline), not an array"#, id: nil))
        #expect(refusal(#"{"a": 1, "a": 2}"#) == .refuse(code: .badRequest, message: #"the definition: duplicate key "a" at column 10"#, id: nil))
    }
}
