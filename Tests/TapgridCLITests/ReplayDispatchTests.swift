import Foundation
@preconcurrency import Glibc
import Synchronization
import Testing

@testable import TapgridCLI
import TapgridCore
import TapgridTestSupport

/// A stand-in for tapgridd on a real Unix socket, for what the real one cannot show: when each
/// request arrived and how many were unanswered at once. It serves one connection on a thread;
/// each request line gets `reply(number, line)` (numbers from 1), or the connection is closed
/// before request `closeAt`. With `answerWhenQuiet` it answers nothing while requests keep coming
/// and everything once none came for 50 ms: a client without a window would send its whole log.
final class FakeDaemon: @unchecked Sendable {  // its state is behind a Mutex
    struct State {
        /// Seconds after the connection was accepted at which each request line arrived.
        var arrivals: [Double] = []
        var requests: [String] = []
        /// The most requests received and not yet answered at one moment.
        var mostUnanswered = 0
    }

    /// The socket, in a folder of its own under /tmp: short, as `sun_path` needs, wherever the
    /// checkout (and $TMPDIR) is.
    let path: String
    private let folder: String
    let state = Mutex(State())
    private let listener: Int32
    private let done = DispatchSemaphore(value: 0)

    init(
        answerWhenQuiet: Bool = false, closeAt: Int? = nil,
        reply: @escaping @Sendable (Int, String) -> String = { n, _ in
            #"{"seq":\#(n),"layout":"home","generation":1,"hit":null,"handler":null,"outcome":"miss"}"#
        }
    ) throws {
        folder = try makeTempDir()
        path = folder + "/d.sock"
        do {
            listener = try makeUnixSocket(SOCK_STREAM, boundTo: path, listening: true)
        } catch {
            removeTempDir(folder)
            throw error
        }
        Thread { [self] in
            defer { done.signal() }
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else { return }
            defer { Glibc.close(fd) }
            let start = DispatchTime.now().uptimeNanoseconds
            var buffer: [UInt8] = []
            var received = 0, answered = 0
            func answer(upTo count: Int) {
                var out = ""
                while answered < count {
                    answered += 1
                    let request = self.state.withLock { $0.requests[answered - 1] }
                    out += reply(answered, request) + "\n"
                }
                _ = out.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            }
            while true {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&entry, 1, 50) == 0 {
                    if answerWhenQuiet { answer(upTo: received) }
                    continue
                }
                var chunk = [UInt8](repeating: 0, count: 65536)
                let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return }
                buffer += chunk[..<n]
                let now = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                while let newline = buffer.firstIndex(of: 0x0A) {
                    let line = String(decoding: buffer[..<newline], as: UTF8.self)
                    buffer.removeFirst(newline + 1)
                    if let closeAt, received + 1 == closeAt { return }
                    received += 1
                    self.state.withLock {
                        $0.arrivals.append(now)
                        $0.requests.append(line)
                        $0.mostUnanswered = max($0.mostUnanswered, received - answered)
                    }
                    if !answerWhenQuiet { answer(upTo: received) }
                }
            }
        }.start()
    }

    /// Waits until the connection has ended (the client closed it, or this closed it).
    func finish() {
        done.wait()
        Glibc.close(listener)
        removeTempDir(folder)
    }
}

/// An event log of tap records at these times (seconds after 10:00:00 on 2026-11-29; nil: a
/// record without a time, as a hand-written log may have).
func eventLog(times: [Double?], layout: String = "home") -> String {
    times.enumerated().map { index, time in
        var fields = ""
        if let time {
            let whole = Int(time)
            let ms = Int(((time - Double(whole)) * 1000).rounded())
            let clock = String(format: "10:%02d:%02d.%03d", whole / 60, whole % 60, ms)
            fields = #""time":"2026-11-29T\#(clock)Z","run":"r","#
        }
        return #"{\#(fields)"seq":\#(index + 1),"layout":"\#(layout)","generation":1,"x":\#(index),"y":5,"hit":null,"name":null,"tag":null,"actionData":null,"handler":null,"outcome":"miss"}"#
            + "\n"
    }.joined()
}

@Suite(.serialized) struct ReplayDispatchTests {
    /// `--speed 0` pipelines: a daemon that answers only when no request came for a while gets
    /// exactly the window's worth (64) at a time, never more, and every tap is answered.
    @Test func speedZeroKeepsAtMostTheWindowUnanswered() throws {
        let dir = try folder(["e.jsonl": eventLog(times: Array(repeating: 0, count: 200))])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon(answerWhenQuiet: true)
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path, "--speed", "0"])
        daemon.finish()
        #expect(result.out == "200 taps answered: dispatched 0, miss 200, unrouted 0, denied 0, busy 0, failed 0, suppressed 0, disabled 0\n")
        #expect(result.err == "")
        #expect(result.code == 0)
        let state = daemon.state.withLock { $0 }
        #expect(state.mostUnanswered == 64)  // the window, as the help of --speed says
        #expect(state.requests.count == 200)
        // Each request is a tap naming the recorded layout, at the recorded place.
        #expect(state.requests.first == #"{"op":"tap","x":0,"y":5,"layout":"home"}"#)
        #expect(state.requests.last == #"{"op":"tap","x":199,"y":5,"layout":"home"}"#)
    }

    /// The recorded gaps, divided by the speed: taps 0.6 s apart come 0.3 s apart at speed 2.
    @Test func speedScalesTheRecordedGaps() throws {
        let dir = try folder(["e.jsonl": eventLog(times: [10, 10.6, 11.2])])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon()
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path, "--speed", "2"])
        daemon.finish()
        #expect(result.code == 0)
        let arrivals = daemon.state.withLock { $0.arrivals }
        try #require(arrivals.count == 3)
        // Due times count from the start; a first tap that arrives late (a loaded machine) only
        // shortens the first gap as measured here, so the bound allows 50 ms of that.
        #expect(arrivals[1] - arrivals[0] >= 0.25)
        #expect(arrivals[2] - arrivals[0] >= 0.55)
        #expect(arrivals[2] - arrivals[0] < 1.2)  // what speed 1 would take
    }

    /// A clock that went back (NTP, a reboot) and records without a time add no wait.
    @Test func backwardsAndMissingTimesAddNoWait() throws {
        let dir = try folder(["e.jsonl": eventLog(times: [30, 20, nil, 20.2])])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon()
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path])
        daemon.finish()
        #expect(result.code == 0)
        let arrivals = daemon.state.withLock { $0.arrivals }
        try #require(arrivals.count == 4)
        #expect(arrivals[2] - arrivals[0] < 0.15)
        #expect(arrivals[3] - arrivals[0] >= 0.19)
    }

    /// On a terminal a run that lasts over a second draws a progress line on stderr, redrawn in
    /// place and erased at the end; stdout has the summary only.
    @Test func progressLineOnATerminal() throws {
        let dir = try folder(["e.jsonl": eventLog(times: [0, 0.7, 1.4])])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon()
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path], stderrIsTerminal: true)
        daemon.finish()
        #expect(result.out == "3 taps answered: dispatched 0, miss 3, unrouted 0, denied 0, busy 0, failed 0, suppressed 0, disabled 0\n")
        // Drawn once a second has passed (after the second tap, due at 0.7 s, unless the machine
        // is slow), each time over the last, then erased: no newline.
        let drawn = result.err.split(separator: "\r\u{1B}[K", omittingEmptySubsequences: false)
        #expect(drawn.count >= 3)
        #expect(drawn.first == "" && drawn.last == "")
        for line in drawn.dropFirst().dropLast() {
            #expect(["replay: 2/3 taps answered (66%), recorded 10:00:00", "replay: 2/3 taps answered (66%), recorded 10:00:01"].contains(line))
        }
        #expect(!result.err.contains("\n"))
        #expect(result.code == 0)
    }

    /// Not on a terminal (a pipe, a CI log): nothing but the report.
    @Test func noProgressLineElsewhere() throws {
        let dir = try folder(["e.jsonl": eventLog(times: [0, 0.7, 1.4])])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon()
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path], stderrIsTerminal: false)
        daemon.finish()
        #expect(result.err == "")
        #expect(result.out == "3 taps answered: dispatched 0, miss 3, unrouted 0, denied 0, busy 0, failed 0, suppressed 0, disabled 0\n")
    }

    /// A daemon that goes away mid-run: how far it got, exit 69 (not reachable any more).
    @Test func daemonGoneMidway() throws {
        let dir = try folder(["e.jsonl": eventLog(times: Array(repeating: 0, count: 5))])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon(closeAt: 3)
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path, "--speed", "0"])
        daemon.finish()
        #expect(result.out == "")
        #expect(result.err == "Error: the daemon at \(daemon.path) closed the connection (2 of 5 taps answered)\n")
        #expect(result.code == 69)
    }

    /// Outcomes a newer daemon may answer with are counted under their own names, after the
    /// contract's; replies saying the log could not be written are counted too.
    @Test func unknownOutcomesAndUnloggedTaps() throws {
        let dir = try folder(["e.jsonl": eventLog(times: [0, 0, 0, 0])])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon { n, _ in
            n == 2 ? #"{"seq":2,"layout":"home","outcome":"deferred"}"# : #"{"seq":\#(n),"layout":"home","outcome":"dispatched","logged":false}"#
        }
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path, "--json"])
        daemon.finish()
        #expect(result.out == #"{"taps": 4, "outcomes": {"dispatched": 3, "miss": 0, "unrouted": 0, "denied": 0, "busy": 0, "failed": 0, "suppressed": 0, "disabled": 0, "deferred": 1}, "errors": 0, "notLogged": 3, "unreadable": 0}"# + "\n")
        let human = try FakeDaemon { n, _ in #"{"seq":\#(n),"outcome":"dispatched","logged":false}"# }
        let text = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", human.path])
        human.finish()
        #expect(text.out == "4 taps answered: dispatched 4, miss 0, unrouted 0, denied 0, busy 0, failed 0, suppressed 0, disabled 0; 4 not logged\n")
    }

    /// Nothing is sent for a log without taps, and that is not a failure.
    @Test func emptyLog() throws {
        let dir = try folder(["e.jsonl": #"{"time":"2026-11-29T10:00:00.000Z","run":"r","seq":1,"event":"exit","status":0,"durationMs":3}"# + "\n"])
        defer { removeTempDir(dir) }
        let daemon = try FakeDaemon()
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", daemon.path])
        daemon.finish()
        #expect(result.out == "0 taps answered: dispatched 0, miss 0, unrouted 0, denied 0, busy 0, failed 0, suppressed 0, disabled 0\n")
        #expect(result.code == 0)
        #expect(daemon.state.withLock { $0.requests }.isEmpty)
    }

    /// A socket that is not one is said before anything is read or sent, as for replay.
    @Test func notASocket() throws {
        let dir = try folder(["e.jsonl": eventLog(times: [0]), "notes.txt": "x"])
        defer { removeTempDir(dir) }
        let result = run(["replay", dir + "/e.jsonl", "--dispatch", "--socket", dir + "/notes.txt"])
        #expect(result.code == 69)
        #expect(result.err == "Error: cannot connect to \(dir)/notes.txt: it is a regular file, not a socket; name the daemon's socket with --socket or $TAPGRID_SOCKET\n")
    }
}

@Suite struct RecordedTimeTests {
    @Test func readsTheDaemonsTimes() throws {
        let noon = try #require(RecordedTime.seconds("2026-11-29T12:00:00.000Z"))
        #expect(noon == 1_795_953_600)
        #expect(RecordedTime.seconds("1970-01-01T00:00:00Z") == 0)
        #expect(RecordedTime.seconds("2026-11-29T12:00:00.25Z") == noon + 0.25)
        #expect(RecordedTime.seconds("2026-11-29T12:00:01.123Z").map { ($0 - noon) * 1000 }.map { $0.rounded() } == 1123)
    }

    /// Gaps across a day, a month's end, a leap day and a year's end are the real ones.
    @Test func gapsAcrossCalendarBoundaries() throws {
        func gap(_ a: String, _ b: String) -> Double? {
            guard let x = RecordedTime.seconds(a), let y = RecordedTime.seconds(b) else { return nil }
            return y - x
        }
        #expect(gap("2026-11-29T23:59:59.500Z", "2026-11-30T00:00:00.500Z") == 1)
        #expect(gap("2026-11-30T23:59:59.000Z", "2026-12-01T00:00:01.000Z") == 2)
        #expect(gap("2028-02-28T12:00:00.000Z", "2028-03-01T12:00:00.000Z") == 172_800)  // 2028 has a February 29
        #expect(gap("2027-02-28T12:00:00.000Z", "2027-03-01T12:00:00.000Z") == 86_400)
        #expect(gap("2026-12-31T23:59:59.000Z", "2027-01-01T00:00:00.000Z") == 1)
    }

    @Test(arguments: [
        "", "2026-11-29", "2026-11-29T12:00:00", "2026-11-29T12:00:00.Z", "2026-13-01T00:00:00Z", "2027-02-29T00:00:00Z",
        "2026-11-29T24:00:00Z", "2026-11-29 12:00:00Z", "2026-11-29T12:00:00+01:00", "2026-11-29T12:00:00.1x3Z", "yesterday",
    ])
    func refusesOtherFormats(_ text: String) {
        #expect(RecordedTime.seconds(text) == nil)
    }
}
