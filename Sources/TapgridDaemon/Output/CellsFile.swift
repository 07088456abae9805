import TapgridCore
import TapgridSystem

/// `cells.json`: the cell state kept across restarts (docs/cell-state.md "Cell state across restarts"), beside the event log.
///
/// Loop-owned. Nothing of it runs on the tap path: at the end of each wakeup one comparison of the
/// engine's `cellsVersion` with the version last written tells whether the state changed; the
/// first change arms a one-shot timer for `delayNanos` later, and in the wakeup it fires the
/// whole snapshot is written atomically (`Files.writeAtomically`: a temporary file beside it,
/// `fsync`, `rename`, `fsync` of the folder) by this end-of-wakeup hook, which runs after the
/// socket server's and the tap output's (that wakeup's replies and records are out before the
/// `fsync`s). So every change is on disk within a second, a burst of changes costs one write, and
/// a crash (even `kill -9` mid-write) leaves the previous file or the new one, never a torn one.
/// A pending change is written at shutdown.
///
/// A failed write is logged once (again only when the reason changes) and tried again at the
/// next change, at `SIGUSR1` and at shutdown; a success after failures says so.
final class CellsFile {
    /// Where the state goes: `cells.json` in the event log's folder.
    private(set) var path: String
    private unowned let output: TapOutput
    private let loop: EventLoop
    private let log: LogSink
    private var timer: LoopTimer!
    /// The engine's `cellsVersion` the file at `path` holds; nil when that is not known (a new
    /// path after a reload), so the state is written there.
    private var writtenVersion: UInt64?
    /// The version whose write failed: not tried again until the state changes once more.
    private var failedVersion: UInt64?
    /// The last failure, nil while writes succeed.
    private(set) var lastError: String?
    /// The timer fired: the hook writes at the end of this wakeup.
    private var writeDue = false

    /// How long after a change the state is written (docs/cell-state.md: within 1 s).
    static let delayNanos: UInt64 = 1_000_000_000

    init(path: String, output: TapOutput, loop: EventLoop, log: LogSink) {
        self.path = path
        self.output = output
        self.loop = loop
        self.log = log
        writtenVersion = output.engine.cellsVersion
        timer = loop.makeTimer { [unowned self] in writeDue = true }
    }

    /// `cells.json` beside the event log for a config's `eventLog`; with the log off, where the
    /// log would be by default (`$STATE_DIRECTORY`, else `$XDG_STATE_HOME/tapgrid/`, else
    /// `~/.local/state/tapgrid/`, else `/var/lib/tapgrid/`).
    static func resolvePath(_ setting: EventLogSetting, environment: [String: String]) -> String {
        let log = EventLog.resolvePath(setting == .off ? .standard : setting, environment: environment)!
        guard let slash = log.lastIndex(of: "/") else { return "cells.json" }
        return String(log[...slash]) + "cells.json"
    }

    private var temporaryPath: String { path + ".tmp" }

    // MARK: - Start

    /// Reads the file and restores the state it holds (at start, before any client is served).
    /// A missing file is a first start; one that cannot be read or is not a valid state is a
    /// warning, and the daemon starts with no state, leaving the file as it is until the state
    /// changes.
    func restore() {
        defer { writtenVersion = output.engine.cellsVersion }
        let bytes: [UInt8]
        do throws(SystemError) {
            bytes = try Files.readFile(path, maxBytes: CellsDocument.maxBytes)
        } catch {
            if !error.isMissingFile { refuse(error.description) }
            return
        }
        let cells: [TapEngine.NamedCell]
        do throws(CellsDocument.Problem) {
            cells = try CellsDocument.decode(bytes)
        } catch {
            refuse("\(path): \(error)")
            return
        }
        let dropped = output.engine.restoreCells(cells)
        var text = "cell state restored from \(path): \(counted(cells.count - dropped, "grid"))"
        if dropped > 0 { text += "; \(dropped) dropped (their layout or grid path is not in the config)" }
        log.info(text)
    }

    private func refuse(_ why: String) {
        log.warning("cell state not restored: \(why); starting with none (the file stays as it is until the state changes)")
    }

    // MARK: - Writing

    /// Its phase of the wakeup's end (`Daemon.endWakeup`, after the replies): the write when the timer fired,
    /// else a check for a change to arm it for.
    func endOfWakeup() {
        if writeDue {
            write()
        } else {
            noteChanges()
        }
    }

    /// A change not yet on its way to the file arms the timer.
    private func noteChanges() {
        let version = output.engine.cellsVersion
        guard version != writtenVersion, version != failedVersion, loop.dueTime(timer) == nil else { return }
        loop.schedule(timer, after: Self.delayNanos)
    }

    /// Writes the snapshot now (the timer's wakeup, shutdown, a retry).
    private func write() {
        loop.schedule(timer, at: nil)
        writeDue = false
        let version = output.engine.cellsVersion
        let bytes = CellsDocument.encode(output.engine.cellSnapshot())
        var failure: String?
        if bytes.count > CellsDocument.maxBytes {
            failure = "\(path): the state takes \(bytes.count) bytes, over the \(CellsDocument.maxBytes)-byte limit of the file"
        } else {
            Files.makeParentDirectories(of: path)
            do throws(SystemError) { try Files.writeAtomically(bytes, to: path, temporaryPath: temporaryPath) } catch {
                failure = error.description
            }
        }
        if let failure {
            failedVersion = version
            if failure != lastError { log.error("cell state not saved: \(failure); tried again at the next change") }
            lastError = failure
            return
        }
        writtenVersion = version
        failedVersion = nil
        if lastError != nil {
            lastError = nil
            log.info("cell state saved again: \(path)")
        }
    }

    /// Writes a change that is still pending (at shutdown; also one whose write failed).
    func close() {
        if output.engine.cellsVersion != writtenVersion { write() }
    }

    /// `SIGUSR1`: a write that failed is tried again now (the operator may have made room).
    func retry() {
        if failedVersion != nil { write() }
    }

    /// Follows the event log to another folder after a reload: the whole state is written there
    /// within a second, changed or not (a restart will read it there); the file in the old
    /// folder stays as it was last written.
    func configure(path newPath: String) {
        guard newPath != path else { return }
        path = newPath
        writtenVersion = nil
        failedVersion = nil
        lastError = nil
        noteChanges()
    }
}
