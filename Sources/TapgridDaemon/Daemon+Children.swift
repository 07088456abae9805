import TapgridCore
import TapgridSystem

/// What the child supervisor reports back: exits go to the event log, output lines to stderr.
extension Daemon {
    func childExited(_ exit: ChildExit) {
        if eventLog.isEnabled {
            var record = eventLog.begin()
            ReplyWriter.raw(#""seq":"#, &record)
            ReplyWriter.uint(exit.seq, &record)
            ReplyWriter.raw(#","event":"exit","#, &record)
            if let signal = exit.signal {
                ReplyWriter.raw(#""signal":"#, &record)
                JSONWriter.appendString(signal, to: &record)
                if exit.timedOut { ReplyWriter.raw(#","timedOut":true"#, &record) }
            } else {
                ReplyWriter.raw(#""status":"#, &record)
                JSONWriter.appendInt(Int64(exit.status ?? -1), to: &record)
            }
            ReplyWriter.raw(#","durationMs":"#, &record)
            JSONWriter.appendInt(exit.durationMs, to: &record)
            _ = eventLog.commit(&record)
        }
        let how = exit.signal.map { "killed by \($0)" + (exit.timedOut ? " (timed out)" : "") }
            ?? "exited with status \(exit.status ?? -1)"
        let text = "seq \(exit.seq): \(exit.handler) child \(exit.pid) \(how) after \(exit.durationMs) ms"
        if exit.status == 0 { log.info(text) } else { log.warning(text) }
    }

    func childOutput(_ line: ChildOutputLine) {
        log.info("seq \(line.seq) \(line.handler) \(line.stream): \(line.text)")
    }
}
