/// The bodies of `POST /contact` and `POST /tap`, turned into the socket request line of the
/// same op, so that the panel's contacts and taps take exactly the socket's path (its checks,
/// its replies, its records).
public enum PanelBody {
    /// A contact: `{"session", "phase", "slot", "x", "y", "layout", "n"}` → `{"op": phase, ...}`.
    /// `n`, when given, is the contact's number in its session (0, 1, 2, ...): the daemon takes a
    /// session's contacts in that order whatever order they arrive in (`PanelOrder`).
    /// - Returns: the page's session id, `n`, and the request line, or a 400 naming what was wrong.
    public static func contact(_ body: [UInt8]) -> Result<(session: String, line: [UInt8], number: Int?), PanelRefusal> {
        let members: [JSONMember]
        switch object(body) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let parsed): members = parsed
        }
        guard case .string(let session)? = members.first(where: { $0.key == "session" })?.value, isSessionID(session) else {
            return .failure(badSession)
        }
        guard case .string(let phase)? = members.first(where: { $0.key == "phase" })?.value,
              ["down", "move", "up", "cancel"].contains(phase) else {
            return .failure(PanelRefusal(400, "bad_request", "\"phase\" must be \"down\", \"move\", \"up\" or \"cancel\""))
        }
        var number: Int? = nil
        if let given = members.first(where: { $0.key == "n" })?.value {
            guard case .number(let n) = given, let value = n.int64, value >= 0, value < 1 << 53 else {
                return .failure(PanelRefusal(400, "bad_request", "\"n\" must be the contact's number in its session: an integer from 0"))
            }
            number = Int(value)
        }
        return .success((session, line(op: phase, members, keys: ["slot", "x", "y", "layout", "id"]), number))
    }

    /// A tap: `{"x", "y", "layout"}` → `{"op": "tap", ...}`.
    public static func tap(_ body: [UInt8]) -> Result<[UInt8], PanelRefusal> {
        object(body).map { line(op: "tap", $0, keys: ["x", "y", "layout", "id"]) }
    }

    /// A `session` that cannot be one (in a contact's body or an event stream's query).
    public static let badSession = PanelRefusal(
        400, "bad_request", "\"session\" must be the page's id: 1-64 characters of A-Z, a-z, 0-9, _ and -")

    /// Whether `text` can be a session id: it names a connection in logs, so nothing odd.
    public static func isSessionID(_ text: String) -> Bool { MQTTConfig.isTopicName(text) }

    private static func object(_ body: [UInt8]) -> Result<[JSONMember], PanelRefusal> {
        let value: JSONValue
        do throws(JSONSyntaxError) {
            value = try JSONParser.parse(body, lenient: false, maxDepth: 64)
        } catch {
            return .failure(PanelRefusal(400, "parse_error", "the body is not JSON: \(error)"))
        }
        guard case .object(let members) = value else {
            return .failure(PanelRefusal(400, "bad_request", "the body must be a JSON object, found \(value.typeDescription)"))
        }
        return .success(members)
    }

    /// `{"op":"<op>"` and the given keys' values as they came; the socket's scanner checks them.
    private static func line(op: String, _ members: [JSONMember], keys: [String]) -> [UInt8] {
        var out: [UInt8] = []
        JSONWriter.appendStatic(#"{"op":"#, to: &out)
        JSONWriter.appendString(op, to: &out)
        for member in members where keys.contains(member.key) {
            out.append(0x2C)
            JSONWriter.appendString(member.key, to: &out)
            out.append(0x3A)
            JSONWriter.appendValue(member.value, to: &out)
        }
        out.append(0x7D)
        return out
    }
}
