/// What a `status` reply says: the daemon gathers it, `ReplyWriter.status` writes it.
public struct DaemonStatus {
    public var uptimeMilliseconds: UInt64
    public var generation: UInt64
    public var layout: String
    public var taps: UInt64
    public var outcomes: OutcomeCounts
    public var children: Int
    public var queued: Int
    public var clients: Int
    public var eventLogPath: String?
    public var eventLogOK: Bool
    public var eventLogError: String?

    public init(
        uptimeMilliseconds: UInt64, generation: UInt64, layout: String, taps: UInt64, outcomes: OutcomeCounts,
        children: Int, queued: Int, clients: Int, eventLogPath: String?, eventLogOK: Bool, eventLogError: String?
    ) {
        self.uptimeMilliseconds = uptimeMilliseconds
        self.generation = generation
        self.layout = layout
        self.taps = taps
        self.outcomes = outcomes
        self.children = children
        self.queued = queued
        self.clients = clients
        self.eventLogPath = eventLogPath
        self.eventLogOK = eventLogOK
        self.eventLogError = eventLogError
    }
}

/// The replies of the control ops (`status`, `layouts`, `use`, `reload`): each a whole line, so
/// the daemon writes no JSON of its own.
extension ReplyWriter {
    /// `{"id":..,"uptime":1.5,"generation":1,"layout":"home","taps":3,"outcomes":{"dispatched":3},
    /// "children":0,"queued":0,"clients":1,"eventLog":{"path":"..","ok":true}}\n` (outcomes
    /// counted at least once only; `error` in `eventLog` after a failure).
    public static func status(_ status: DaemonStatus, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""uptime":"#)
        out.append(number: Double(status.uptimeMilliseconds) / 1000)
        out.append(#","generation":"#)
        out.append(uint: status.generation)
        out.append(#","layout":"#)
        out.append(jsonString: status.layout)
        out.append(#","taps":"#)
        out.append(uint: status.taps)
        out.append(#","outcomes":{"#)
        var first = true
        for outcome in Outcome.allCases where status.outcomes[outcome] > 0 {
            if !first { out.append(0x2C) }
            first = false
            out.append(0x22)
            out.append(outcome.name)
            out.append(#"":"#)
            out.append(uint: status.outcomes[outcome])
        }
        out.append(#"},"children":"#)
        out.append(int: Int64(status.children))
        out.append(#","queued":"#)
        out.append(int: Int64(status.queued))
        out.append(#","clients":"#)
        out.append(int: Int64(status.clients))
        out.append(#","eventLog":{"path":"#)
        if let path = status.eventLogPath { out.append(jsonString: path) } else { out.append("null") }
        out.append(#","ok":"#)
        out.append(status.eventLogOK ? "true" : "false")
        if let error = status.eventLogError {
            out.append(#","error":"#)
            out.append(jsonString: error)
        }
        out.append("}}\n")
    }

    /// Every layout of `active` with its size, whether it is `current`, and every grid's path and
    /// rect in pre-order (name and tag when set).
    public static func layouts(_ active: ActiveConfig, current: Int, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""layouts":["#)
        for (index, layout) in active.layouts.enumerated() {
            if index > 0 { out.append(0x2C) }
            out.append(#"{"name":"#)
            out.append(jsonString: layout.name)
            out.append(#","width":"#)
            out.append(number: layout.frame.width)
            out.append(#","height":"#)
            out.append(number: layout.frame.height)
            out.append(#","current":"#)
            out.append(index == current ? "true" : "false")
            out.append(#","grids":["#)
            for (k, grid) in layout.tree.preorder().enumerated() {
                if k > 0 { out.append(0x2C) }
                out.append(#"{"path":"#)
                gridPath(layout.tree, grid, out)
                out.append(#","rect":"#)
                rect(layout.resolved.rects[grid], out)
                if let info = layout.tree.info(of: grid) {
                    if let name = info.name {
                        out.append(#","name":"#)
                        out.append(jsonString: name)
                    }
                    if info.tag != 0 {
                        out.append(#","tag":"#)
                        out.append(int: info.tag)
                    }
                }
                out.append(0x7D)
            }
            out.append("]}")
        }
        out.append("]}\n")
    }

    /// `{"id":..,"ok":true,"layout":"home"}\n`: `use` made `layout` current.
    public static func used(layout: String, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""ok":true,"layout":"#)
        out.append(jsonString: layout)
        out.append("}\n")
    }

    /// `{"id":..,"ok":true,"generation":4}\n`: a `reload` swapped in `generation`.
    public static func reloaded(generation: UInt64, id: UnsafeBufferPointer<UInt8>?, _ out: ByteBuffer) {
        out.append(0x7B)
        self.id(id, out)
        out.append(#""ok":true,"generation":"#)
        out.append(uint: generation)
        out.append("}\n")
    }
}
