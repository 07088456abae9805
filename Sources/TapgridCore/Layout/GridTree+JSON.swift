extension GridTree {
    /// Writes the grid's path (`0/1`, empty for the root) without building a String: the tap
    /// path writes it into every reply and log record.
    public func appendPath(of index: Int, to out: inout [UInt8]) {
        let parent = Int(nodes[index].parent)
        guard parent >= 0 else { return }
        if nodes[parent].parent >= 0 {
            appendPath(of: parent, to: &out)
            out.append(UInt8(ascii: "/"))
        }
        JSONWriter.appendInt(Int64(index - Int(nodes[parent].firstChild)), to: &out)
    }

    /// `{"path": ..., "name": ..., "tag": ..., "actionData": ...}` for a hit grid (spaced, as
    /// `tapgrid hit --json` prints it), with `null` for a missing name, tag or actionData.
    public func hitObject(of index: Int) -> JSONObjectWriter {
        let info = self.info(of: index)
        var object = JSONObjectWriter(.spaced)
        object.string("path", path(of: index))
        object.string("name", info?.name)
        object.int("tag", info.flatMap { $0.tag != 0 ? $0.tag : nil })
        object.json("actionData", info?.actionDataJSON ?? "null")
        return object
    }
}
