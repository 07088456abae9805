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

    /// Writes `{"path": ..., "name": ..., "tag": ..., "actionData": ...}` for a hit grid, with
    /// `null` for a missing name, tag or actionData (the tap reply, README "Socket protocol").
    public func appendHitObject(of index: Int, to out: inout [UInt8]) {
        out.append(contentsOf: #"{"path": ""#.utf8)
        appendPath(of: index, to: &out)
        out.append(contentsOf: #"", "name": "#.utf8)
        let info = self.info(of: index)
        if let name = info?.name { JSONWriter.appendString(name, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #", "tag": "#.utf8)
        if let tag = info?.tag, tag != 0 { JSONWriter.appendInt(tag, to: &out) } else { out.append(contentsOf: "null".utf8) }
        out.append(contentsOf: #", "actionData": "#.utf8)
        out.append(contentsOf: (info?.actionDataJSON ?? "null").utf8)
        out.append(UInt8(ascii: "}"))
    }
}
