/// What to do with one command message (`P/<scope>/command/<op>`).
public enum FleetCommandDecision: Sendable, Equatable {
    /// Feed `line` to the request router exactly as a socket line: one JSON object, `"op"`
    /// first then the payload's members in order, compact, no newline. `id` is the payload's
    /// `id` (the router echoes it in its reply).
    case request(line: [UInt8], id: JSONValue?)
    /// Never run: publish `FleetResult.refusal(code:message:id:topic:)` on `P/N/result`. `id`
    /// is the payload's `id` whenever the payload could be read as an object.
    case refuse(code: ErrorCode, message: String, id: JSONValue?)
}

/// Turns a command message into a socket request line, or refuses it (docs/fleet.md "What a
/// panel publishes and takes (P = prefix, N = node)", commands). Pure, so every rule is tested
/// without a broker. The checks run in this order, so a message gets the one answer that
/// matters most:
///
/// 1. over 1 MiB: `bad_request` (not parsed at all, so no `id`);
/// 2. retained: `bad_request`, never run (a retained tap would fire again on every reconnect);
/// 3. an op that is no command: `unknown_op`;
/// 4. an op not in `mqtt.accept`: `forbidden`;
/// 5. the payload: empty means `{}`; else strict JSON (`parse_error` with the parser's message
///    and where, as the socket's read; a key given twice is `bad_request`, as on the socket),
///    an object (`bad_request`), and without `"op"` (`bad_request`: the topic names the op).
///
/// The line is written by `JSONObjectWriter`, never spliced from the payload's text, so what
/// the router reads is exactly what was checked here. It is compact: numbers are rewritten
/// as the core writes them (`1.0` becomes `1`, integers beyond 64 bits lose precision), which
/// changes no value the router reads. It may pass the socket's 65,536-byte line limit (a `load`
/// definition of up to 1 MiB): the router takes it directly, not through a `LineFramer`.
public enum FleetCommand {
    /// The largest payload taken (1 MiB), as for a pushed layout's definition.
    public static let maxPayloadBytes = 1 << 20

    public static func decide(op: String, payload: [UInt8], retained: Bool, accept: [String]) -> FleetCommandDecision {
        guard payload.count <= maxPayloadBytes else {
            return .refuse(code: .badRequest, message: "the payload is \(payload.count) bytes; at most \(maxPayloadBytes) (1 MiB)", id: nil)
        }
        let parsed = parse(payload)
        var id: JSONValue? { if case .success(let object) = parsed { object["id"] } else { nil } }
        if retained {
            return .refuse(code: .badRequest,
                message: "a retained command is ignored, never run (an old command must not run again when the node reconnects); publish commands without the retain flag",
                id: id)
        }
        guard MQTTConfig.commandOps.contains(op) else {
            return .refuse(code: .unknownOp,
                message: "unknown op \(jsonEscaped(op)); expected " + listed(MQTTConfig.commandOps, last: "or"), id: id)
        }
        guard accept.contains(op) else {
            let accepted = accept.isEmpty ? "mqtt.accept is empty: this node only publishes" : "mqtt.accept: " + listed(accept, last: "and")
            return .refuse(code: .forbidden, message: "op \(jsonEscaped(op)) is not accepted over MQTT (\(accepted))", id: id)
        }
        switch parsed {
        case .failure(let refusal):
            return .refuse(code: refusal.code, message: refusal.message, id: nil)
        case .success(let object):
            guard case .object(let members) = object else {
                return .refuse(code: .badRequest,
                    message: "the payload must be a JSON object (the request without \"op\") or empty, not \(object.typeDescription)", id: nil)
            }
            if object["op"] != nil {
                return .refuse(code: .badRequest,
                    message: "the payload must not hold \"op\": the topic's last level names it (\(jsonEscaped(op)))", id: id)
            }
            var line = JSONObjectWriter(.compact)
            line.string("op", op)
            for member in members { line.value(member.key, member.value) }
            return .request(line: line.bytes, id: id)
        }
    }

    /// Why a payload could not be read.
    struct Refusal: Error {
        var code: ErrorCode
        var message: String
    }

    /// The payload as strict JSON (`{}` when empty), nested no deeper than the socket's scanner
    /// takes (`RequestScanner.maxDepth`), so the line it becomes is one the router reads.
    static func parse(_ payload: [UInt8]) -> Result<JSONValue, Refusal> {
        guard !payload.isEmpty else { return .success(.object([])) }
        do throws(JSONSyntaxError) {
            return .success(try JSONParser.parse(payload, lenient: false, maxDepth: RequestScanner.maxDepth))
        } catch {
            let position = error.line == 1 ? "at column \(error.column)" : "at line \(error.line), column \(error.column)"
            let code: ErrorCode = error.kind == .duplicateKey ? .badRequest : .parseError
            return .failure(Refusal(code: code, message: error.message + " " + position))
        }
    }

    /// `a, b or c`.
    static func listed(_ words: [String], last: String) -> String {
        guard words.count > 1 else { return words.joined() }
        return words.dropLast().joined(separator: ", ") + " \(last) " + words[words.count - 1]
    }
}
