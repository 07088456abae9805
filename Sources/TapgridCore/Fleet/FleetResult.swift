/// The payloads of `P/N/result`: the answer to each command and pushed layout, with `"topic"`
/// naming the message it answers (a node takes commands from its own, its groups' and
/// broadcast's topics, so the id alone may not say which).
public enum FleetResult {
    /// A refusal: the socket's error reply (`ReplyWriter.error`: `id` when there is one, then
    /// `error` with `code` and `message`), then `"topic"`.
    /// `{"id":7,"error":{"code":"forbidden","message":"..."},"topic":"tapgrid/kitchen/command/tap"}`
    public static func refusal(code: ErrorCode, message: String, id: JSONValue?, topic: String) -> [UInt8] {
        var out = JSONObjectWriter(.compact)
        if let id { out.value("id", id) }
        out.object("error") { error in
            error.string("code", code.name.description)
            error.string("message", message)
        }
        out.string("topic", topic)
        return out.bytes
    }

    /// A reply line the router wrote (one JSON object, a trailing `\n` allowed) with `"topic"`
    /// added last, rewritten by the core's writer. Nil when `reply` is not one JSON object
    /// (the router never writes such a line; the caller then publishes the reply as it is).
    public static func reply(_ reply: [UInt8], topic: String) -> [UInt8]? {
        var line = reply[...]
        while let last = line.last, last == 0x0A || last == 0x0D { line = line.dropLast() }
        guard case .object(let members)? = try? JSONParser.parse(Array(line), lenient: false, maxDepth: RequestScanner.maxDepth + 8)
        else { return nil }
        var out = JSONObjectWriter(.compact)
        for member in members where member.key != "topic" { out.value(member.key, member.value) }
        out.string("topic", topic)
        return out.bytes
    }
}
