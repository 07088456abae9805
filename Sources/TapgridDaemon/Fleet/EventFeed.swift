import TapgridCore
import TapgridSystem

/// Feeds `P/N/events` from the event log file itself, so nothing is lost whatever the broker
/// does: it reads the log from the position the broker last acknowledged, publishes each tap,
/// exit and state record (touch contact records are skipped) with at most `window` in flight,
/// and moves the acknowledged position over the records whose PUBACK came, in order. The
/// position is kept in `<event log>.mqtt` (written at most once a second and at stop), so a
/// restarted daemon goes on where the broker stopped acknowledging: at least once, in log
/// order, with memory bounded by the window whatever the backlog.
///
/// Rotation: when the path names another file, the old one (still open here) is read to its
/// end and every record of it acknowledged first; then the new file is read from its start.
final class EventFeed {
    let logPath: String
    let positionPath: String
    private let log: LogSink
    private var reader: FileReader?
    /// The file being read (the position file names it).
    private var identity: FileIdentity?
    /// Bytes read and not yet published: `buffer[cursor..<filled]` starts at file offset
    /// `cursorOffset`. The buffer only grows (to a chunk past the longest partial line): reads go
    /// into its free end, with nothing zeroed or reallocated per read.
    @exclusivity(unchecked) private var buffer: [UInt8] = []
    private var filled = 0
    private var cursor = 0
    private var cursorOffset: Int64 = 0
    /// The end of the last record acknowledged with every record before it.
    private(set) var ackedOffset: Int64 = 0
    /// Records published (or skipped) and not yet acknowledged, in log order.
    /// (The loop's thread alone touches the feed: its hot arrays skip the run-time exclusivity
    /// check, a few hundred instructions a record.)
    @exclusivity(unchecked) private var inFlight: [(mid: Int32, end: Int64, acked: Bool)] = []
    private var inFlightHead = 0
    /// Whether the last read found the end of the file (a rotation may then move on).
    private var atEnd = false
    private var positionDirty = false
    private(set) var published: UInt64 = 0
    /// Records and their bytes read so far: the mean record length for `backlog()`.
    private var recordsRead: Int64 = 0
    private var bytesRead: Int64 = 0

    /// At most this many records unacknowledged (docs/fleet.md "When the broker is away": memory
    /// does not grow with the backlog).
    static let window = 100
    /// Bytes read per `pread`.
    static let chunk = 1 << 16
    /// A line longer than this is not an event-log record (skipped, not published).
    static let maxRecord = 4 << 20

    init(logPath: String, log: LogSink) {
        self.logPath = logPath
        positionPath = logPath + ".mqtt"
        self.log = log
        restorePosition()
    }

    deinit {
        if reader != nil { DescriptorAudit.droppedOpen("the MQTT feed's reader of \(logPath)") }
    }

    var inFlightCount: Int { inFlight.count - inFlightHead }

    /// Behind the log: the last read did not reach its end (more records wait in the file than
    /// the window holds), and a quarter of the window is free again to refill.
    var isCatchingUp: Bool { !atEnd && reader != nil && inFlightCount <= Self.window * 3 / 4 }

    /// Whether more records may wait to be published now: the last read did not reach the
    /// file's end, or there is room in the window (a drain goes on as PUBACKs come).
    var mayPublish: Bool { inFlightCount < Self.window && !(atEnd && cursor == filled) }

    // MARK: - The position file

    /// `{"device":D,"inode":I,"offset":O}`: which file and how far into it the broker has
    /// acknowledged. Missing: start at the log's end (docs/fleet.md "When the broker is away":
    /// nothing old is replayed to a broker seen for the first time). Another file than the log
    /// now: the log was rotated while the daemon was away; the new file is fed from its start.
    private func restorePosition() {
        let current = Files.identity(following: logPath)
        openReader()
        let size = reader?.size ?? 0
        guard let bytes = try? Files.readFile(positionPath, maxBytes: 4096) else {
            start(at: size, reason: nil)
            return
        }
        guard let value = try? JSONParser.parse(bytes, lenient: false),
              let device = value["device"]?.int64Value, let inode = value["inode"]?.int64Value,
              let offset = value["offset"]?.int64Value, offset >= 0
        else {
            start(at: size, reason: "\(positionPath) is not a position file; events start at the log's end")
            return
        }
        let saved = FileIdentity(device: UInt64(device), inode: UInt64(inode))
        if saved != current {
            start(at: 0, reason: "\(logPath) is another file than \(positionPath) names (rotated while stopped?): events start at its beginning")
        } else if offset > size {
            start(at: 0, reason: "\(logPath) is shorter than \(positionPath) says (truncated?): events start at its beginning")
        } else {
            start(at: offset, reason: nil)
        }
    }

    private func start(at offset: Int64, reason: String?) {
        if let reason { log.warning("mqtt: " + reason) }
        ackedOffset = offset
        cursorOffset = offset
        positionDirty = true
    }

    private func openReader() {
        guard reader == nil else { return }
        do throws(SystemError) {
            let opened = try FileReader(path: logPath)
            identity = opened.identity
            reader = opened
        } catch {
            identity = nil
        }
    }

    /// Writes the position file when it changed (called about once a second, and at stop).
    func savePosition() {
        guard positionDirty, let identity else { return }
        var object = JSONObjectWriter(.compact)
        object.int("device", Int64(bitPattern: identity.device))
        object.int("inode", Int64(bitPattern: identity.inode))
        object.int("offset", ackedOffset)
        do throws(SystemError) {
            try Files.writeAtomically(object.bytes + [0x0A], to: positionPath, temporaryPath: positionPath + ".tmp")
            positionDirty = false
        } catch {
            log.warning("mqtt: cannot keep the feed's position: \(error)")
        }
    }

    func close() {
        savePosition()
        reader = nil
    }

    // MARK: - Publishing

    /// Publishes records while the window has room. `publish` returns the message id, or nil
    /// when the client refused (then this stops and the record is tried again later).
    func pump(_ publish: (UnsafeBufferPointer<UInt8>) -> Int32?) {
        if reader == nil { openReader() }
        while inFlightCount < Self.window {
            guard let (start, end) = nextLine() else { return }
            let lineEnd = cursorOffset + Int64(end + 1 - cursor)
            let skip = end - start > Self.maxRecord || Self.isTouchRecord(buffer, start, end)
            if skip {
                inFlight.append((mid: -1, end: lineEnd, acked: true))
            } else {
                let mid = buffer.withUnsafeBufferPointer { publish(UnsafeBufferPointer(rebasing: $0[start..<end])) }
                guard let mid else { return }
                inFlight.append((mid: mid, end: lineEnd, acked: false))
            }
            recordsRead += 1
            bytesRead += Int64(end + 1 - start)
            cursorOffset = lineEnd
            cursor = end + 1
            advanceAcked()
        }
    }

    /// Whether `mid` is the oldest record in flight.
    func isOldest(_ mid: Int32) -> Bool { inFlightHead < inFlight.count && inFlight[inFlightHead].mid == mid }

    /// A PUBACK: true when `mid` was one of the feed's.
    func acknowledged(_ mid: Int32) -> Bool {
        // From the oldest: the usual PUBACK is for it, found at the first comparison.
        for index in inFlightHead..<inFlight.count where inFlight[index].mid == mid && !inFlight[index].acked {
            inFlight[index].acked = true
            published += 1
            advanceAcked()
            return true
        }
        return false
    }

    private func advanceAcked() {
        while inFlightHead < inFlight.count && inFlight[inFlightHead].acked {
            ackedOffset = inFlight[inFlightHead].end
            positionDirty = true
            inFlightHead += 1
        }
        if inFlightHead == inFlight.count {
            inFlight.removeAll(keepingCapacity: true)
            inFlightHead = 0
        }
    }

    /// The connection is gone: what was in flight is published again from the acknowledged
    /// position after the next connect.
    func rewind() {
        inFlight.removeAll(keepingCapacity: true)
        inFlightHead = 0
        filled = 0
        cursor = 0
        cursorOffset = ackedOffset
        atEnd = false
    }

    /// The next whole line in `buffer` (reading more as needed): its bounds without the `\n`.
    private func nextLine() -> (Int, Int)? {
        while true {
            let found = buffer.withUnsafeBytes { ByteSearch.firstIndex(of: 0x0A, in: UnsafeRawBufferPointer(rebasing: $0[cursor..<filled])) }
            if let found { return (cursor, cursor + found) }
            guard let reader else { return nil }
            // Keep the partial line at the front, drop what was consumed.
            if cursor > 0 {
                let partial = filled - cursor
                buffer.withUnsafeMutableBytes { raw in
                    if partial > 0 { raw.baseAddress!.copyMemory(from: raw.baseAddress! + cursor, byteCount: partial) }
                }
                filled = partial
                cursor = 0
            }
            if buffer.count - filled < Self.chunk {
                buffer.append(contentsOf: repeatElement(0, count: filled + Self.chunk - buffer.count))
            }
            let have = filled
            let count = buffer.withUnsafeMutableBytes { raw in
                (try? reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[have...]), at: cursorOffset + Int64(have))) ?? 0
            }
            filled += count
            if count == 0 {
                atEnd = true
                return nil
            }
            atEnd = false
        }
    }

    /// Whether `bytes[start..<end]` is a contact record (`"event": "touch"`), as the core's
    /// `EventRecord.kind` reads it. The daemon's own records say so in their third member
    /// (`EventRecord.isTouchAsWritten`); `kind`, which reads a tap record (having no `event`)
    /// member by member to its end, thousands of instructions, is left for any other line.
    static func isTouchRecord(_ bytes: [UInt8], _ start: Int, _ end: Int) -> Bool {
        bytes.withUnsafeBufferPointer { all in
            let line = UnsafeBufferPointer(rebasing: all[start..<end])
            return EventRecord.isTouchAsWritten(line) ?? (EventRecord.kind(of: line) == .touch)
        }
    }

    // MARK: - Rotation

    /// Moves to the file now at the path once the one being read is finished (read to its end,
    /// every record acknowledged). Called about once a second.
    func followRotation() {
        guard let current = Files.identity(following: logPath) else { return }
        if reader == nil {
            openReader()
            return
        }
        guard current != identity, atEnd, inFlightCount == 0, cursor == filled else { return }
        reader = nil
        openReader()
        filled = 0
        cursor = 0
        cursorOffset = 0
        ackedOffset = 0
        atEnd = false
        positionDirty = true
        log.info("mqtt: the event log was rotated; the feed goes on in the new \(logPath)")
    }

    /// Records not yet acknowledged: those in flight, plus the bytes of the log not read yet
    /// divided by the mean length of the records read so far (an estimate, so `status` stays
    /// cheap however long the backlog; 0 exactly when everything is acknowledged).
    func backlog() -> Int {
        let waiting = inFlight[inFlightHead...].reduce(0) { $0 + ($1.acked ? 0 : 1) }
        guard let reader else { return waiting }
        let unread = reader.size - cursorOffset
        guard unread > 0 else { return waiting }
        let mean = recordsRead > 0 ? max(1, bytesRead / recordsRead) : 256
        return waiting + max(1, Int((unread + mean - 1) / mean))
    }
}
