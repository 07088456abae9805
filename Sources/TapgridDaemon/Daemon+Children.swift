import TapgridCore
import TapgridSystem

/// What the child supervisor reports back: exits go to the event log, output lines to stderr.
extension Daemon {
    func childExited(_ exit: ChildExit) {
        if eventLog.isEnabled {
            let record = eventLog.begin()
            record.append(#""seq":"#)
            record.append(uint: exit.seq)
            record.append(#","event":"exit","#)
            if let signal = exit.signal {
                record.append(#""signal":"#)
                record.append(jsonString: signal)
                if exit.timedOut { record.append(#","timedOut":true"#) }
            } else {
                record.append(#""status":"#)
                record.append(int: Int64(exit.status ?? -1))
            }
            record.append(#","durationMs":"#)
            record.append(int: exit.durationMs)
            _ = eventLog.commit()
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
