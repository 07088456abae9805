import TapgridCore
import TapgridSystem

/// Children's output and the delivery of what the supervisor saw (docs/configuration.md
/// "Handlers and children"): stdout and stderr read as lines from their pipes, pipes closed and
/// unregistered, and output lines and exits handed to the daemon in the order they happened.
extension ChildSupervisor {
    // MARK: - Output

    /// Reads what is available on one pipe (at most `maxReads` reads), queues the lines, and
    /// closes the pipe at end of file (or on a read error).
    func read(_ child: SupervisedChild, _ stream: ChildStream, maxReads: Int) {
        let fd = child.pipe(stream)
        guard fd >= 0 else { return }
        var lines: [(ChildStream, String)] = []
        var atEnd = false
        reading: for _ in 0..<maxReads {
            let outcome: FD.IOResult
            do throws(Errno) { outcome = try FD.read(fd, into: readBuffer) } catch {
                atEnd = true
                break reading
            }
            switch outcome {
            case .transferred(0):
                atEnd = true
                break reading
            case .transferred(let n):
                child.output.feed(UnsafeRawBufferPointer(rebasing: readBuffer[0..<n]), stream: stream, into: &lines)
            case .wouldBlock:
                break reading
            }
        }
        if atEnd {
            child.output.flush(stream, into: &lines)
            closePipe(child, stream)
        }
        queue(lines, of: child)
        if child.reaped && !child.hasOpenPipes { children[child.id] = nil }
    }

    /// Flushes partial lines and closes both pipes (linger over, or shutting down).
    func closePipes(_ child: SupervisedChild) {
        var lines: [(ChildStream, String)] = []
        for stream in [ChildStream.stdout, .stderr] where child.pipe(stream) >= 0 {
            child.output.flush(stream, into: &lines)
            closePipe(child, stream)
        }
        queue(lines, of: child)
    }

    func closePipe(_ child: SupervisedChild, _ stream: ChildStream) {
        guard child.pipe(stream) >= 0 else { return }
        unregister(child, stream == .stdout ? .stdout : .stderr)
        child.closePipe(stream)
    }

    func unregister(_ child: SupervisedChild, _ kind: ChildEpollData.Kind) {
        if let registration = child.registrations[Int(kind.rawValue)] { loop.unregister(registration) }
        child.registrations[Int(kind.rawValue)] = nil
    }

    func queue(_ lines: [(ChildStream, String)], of child: SupervisedChild) {
        for (stream, text) in lines {
            pending.append(.output(ChildOutputLine(seq: child.seq, handler: child.handlerName, stream: stream.name, text: text)))
        }
    }

    // MARK: - Delivery

    /// Makes the queued callbacks, in order; re-entrant calls leave theirs to the outer loop.
    func deliver() {
        loop.schedule(timer, at: nextDeadlineNanos)
        if delivering { return }
        delivering = true
        defer { delivering = false }
        var k = 0
        while k < pending.count {
            let event = pending[k]
            k += 1
            switch event {
            case .output(let line): onOutput(line)
            case .exit(let exit): onExit(exit)
            }
        }
        pending.removeAll(keepingCapacity: true)
    }
}
