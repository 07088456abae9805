/// A pushed layout's message and effect as socket requests (docs/fleet.md "What a panel publishes
/// and takes (P = prefix, N = node)", pushed layouts): the daemon checks a
/// `P/<scope>/layouts/<name>` message with `refusal` before `FleetLayoutSources.receive`, then
/// feeds the line `request(for:)` makes of the effect to its request router, as a `load` or
/// `unload` command, so a pushed layout is checked, counted and answered exactly as one pushed
/// through the socket (its reply goes to `P/N/result` with the topic, `FleetResult.reply`).
/// Retained messages are the convention here, not refused.
public enum FleetLayoutRequest {
    /// Why the message must not be taken at all (publish `FleetResult.refusal` with the topic),
    /// or nil: `load` not in `mqtt.accept` (`forbidden`), a payload over 1 MiB (`bad_request`).
    public static func refusal(payload: [UInt8], accept: [String]) -> (code: ErrorCode, message: String)? {
        guard accept.contains("load") else {
            let accepted = accept.isEmpty ? "mqtt.accept is empty: this node only publishes" : "mqtt.accept: " + FleetCommand.listed(accept, last: "and")
            return (.forbidden, "pushed layouts need op \"load\", which is not accepted over MQTT (\(accepted))")
        }
        guard payload.count <= FleetCommand.maxPayloadBytes else {
            return (.badRequest, "the payload is \(payload.count) bytes; at most \(FleetCommand.maxPayloadBytes) (1 MiB)")
        }
        return nil
    }

    /// The request line for an effect: `{"op":"load","layout":NAME,"definition":{...}}` or
    /// `{"op":"unload","layout":NAME}` (written by the core's writer, no newline); nil for
    /// `.none`. A definition that is not strict JSON (`parse_error`) or not an object
    /// (`bad_request`) is refused here with the parser's words, and the layout in place stays.
    /// A definition is read only once it wins, so a broken one under a winner is reported when
    /// the winner is taken back.
    public static func request(for effect: FleetLayoutEffect) -> FleetCommandDecision? {
        var line = JSONObjectWriter(.compact)
        switch effect {
        case .none:
            return nil
        case .unload(let name):
            line.string("op", "unload")
            line.string("layout", name)
        case .load(let name, let definition, _):
            switch FleetCommand.parse(definition) {
            case .failure(let refusal):
                return .refuse(code: refusal.code, message: "the definition: " + refusal.message, id: nil)
            case .success(let value):
                guard case .object = value else {
                    return .refuse(code: .badRequest, message: "the definition must be a JSON object (a config's \"layouts\" entry with \"grid\" inline), not \(value.typeDescription)", id: nil)
                }
                line.string("op", "load")
                line.string("layout", name)
                line.value("definition", value)
            }
        }
        return .request(line: line.bytes, id: nil)
    }
}
