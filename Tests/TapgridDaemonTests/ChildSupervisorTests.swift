import Foundation
@preconcurrency import Glibc
import Testing

@testable import TapgridCore
@testable import TapgridDaemon
@testable import TapgridSystem
import TapgridTestSupport

// MARK: - Harness

/// A supervisor driven by the daemon's real event loop, recording its callbacks.
final class ChildHarness {
    let loop: EventLoop
    var supervisor: ChildSupervisor!
    var exits: [ChildExit] = []
    var lines: [ChildOutputLine] = []
    /// Every callback in order, to check output-before-exit ordering.
    var log: [String] = []

    init(environment: [String: String] = ["PATH": "/usr/bin:/bin"]) throws {
        loop = try EventLoop()
        supervisor = ChildSupervisor(loop: loop, environment: environment)
        supervisor.onExit = { [unowned self] exit in
            exits.append(exit)
            log.append("exit \(exit.seq)")
        }
        supervisor.onOutput = { [unowned self] line in
            lines.append(line)
            log.append("line \(line.seq)")
        }
    }

    /// Runs the loop until `done()` or `seconds` pass. - Returns: whether `done()` became true.
    @discardableResult
    func run(seconds: Double = 10, until done: () -> Bool) throws -> Bool {
        let end = Clock.monotonicNanos() + UInt64(seconds * 1e9)
        // A tick every 50 ms, so the loop looks at the time even when nothing happens. The action
        // captures nothing: capturing the harness would make a cycle (harness -> loop -> action
        // -> harness) that LeakSanitizer (`make asan`) reported for every harness.
        let loop = self.loop
        let tick = loop.makeTimer(every: 50_000_000) {}
        loop.schedule(tick, after: 50_000_000)
        try loop.run { done() || Clock.monotonicNanos() >= end }
        loop.removeTimer(tick)
        return done()
    }

    func runUntilExits(_ count: Int, seconds: Double = 10) throws {
        let ok = try run(seconds: seconds) { exits.count >= count }
        #expect(ok, "only \(exits.count) of \(count) exits arrived in \(seconds) s")
    }

    func lines(of seq: UInt64) -> [String] { lines.filter { $0.seq == seq }.map { "\($0.stream): \($0.text)" } }
    func exit(of seq: UInt64) -> ChildExit? { exits.first { $0.seq == seq } }
}

/// A fresh temporary directory (`makeTempDir`) with its files written and read by name, removed at deinit.
final class TempDir {
    let path: String
    init() throws { path = try makeTempDir() }
    deinit { removeTempDir(path) }

    func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    func write(_ name: String, _ text: String, mode: Int = 0o755) throws -> String {
        let p = file(name)
        try text.write(toFile: p, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: p)
        return p
    }

    func read(_ name: String) -> String? { try? String(contentsOfFile: file(name), encoding: .utf8) }
}

func urlHandler(_ command: [String], schemes: [String] = ["http", "https"]) -> HandlerConfig {
    HandlerConfig(name: "browser", kind: .url(command: command, schemes: schemes))
}

func shellHandler(
    _ interpreter: [String] = ["/bin/sh", "-c"], timeout: Double = 30, grace: Double = 2,
    maxConcurrent: Int = 4, queue: Int = 16
) -> HandlerConfig {
    HandlerConfig(
        name: "shell", kind: .script(interpreter: interpreter, directory: nil), timeoutSeconds: timeout,
        killGraceSeconds: grace, maxConcurrent: maxConcurrent, queue: queue)
}

func request(
    _ handler: HandlerConfig, _ actionData: JSONValue?, seq: UInt64, handlerIndex: Int = 0,
    name: String? = nil, tag: Int64? = nil, x: Double = 120, y: Double = 120.5
) -> ChildRequest {
    ChildRequest(
        handlerIndex: handlerIndex, handler: handler, layout: "home", gridPath: "0/1/2", name: name, tag: tag,
        actionData: actionData, x: x, y: y, seq: seq)
}

/// `/proc/<pid>/stat` fields after the command name: state, ppid, pgrp.
func procStat(_ pid: Int32) -> (state: Character, ppid: Int32, pgrp: Int32)? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
        let close = text.lastIndex(of: ")")
    else { return nil }
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count >= 3, let state = fields[0].first, let ppid = Int32(fields[1]), let pgrp = Int32(fields[2])
    else { return nil }
    return (state, ppid, pgrp)
}

func allPids() -> [Int32] {
    ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
}

/// Whether `pid` is gone or a zombie (dead, waiting for its new parent to reap it).
func isDead(_ pid: Int32) -> Bool {
    guard let stat = procStat(pid) else { return true }
    return stat.state == "Z" || stat.state == "X"
}

/// Live (non-zombie) processes in process group `pgid`.
func liveMembers(ofGroup pgid: Int32) -> [Int32] {
    allPids().filter { pid in
        guard let s = procStat(pid) else { return false }
        return s.pgrp == pgid && s.state != "Z" && s.state != "X"
    }
}

/// Polls `condition` for up to `seconds`.
func eventually(_ seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if condition() { return true }
        usleep(20_000)
    }
    return condition()
}

func openFDCount() -> Int { openFDs().count }

/// This process's open descriptor numbers. Suites in other targets run beside this one in the
/// same process, so a leak check asks that no descriptor is left that was not open before
/// (`eventually`: another suite's may be open for a moment), not that the count is equal.
func openFDs() -> Set<Int> {
    Set(((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []).compactMap { Int($0) })
}

// MARK: - Tests

/// Serialized: timing-sensitive, and some tests count `/proc/self/fd` and this process's children.
@Suite(.serialized) struct ChildSupervisorTests {
    @Test func urlRunsCommandWithTheURLAsOneArgument() throws {
        let dir = try TempDir()
        let recorder = try dir.write("record.sh", "#!/bin/sh\nout=\"$1\"; shift\nprintf '%s\\n' \"$#\" \"$@\" > \"$out\"\n")
        let h = try ChildHarness()
        let url = "https://example.com/a?b=c d;$(touch \(dir.file("pwned")))`id`"
        let outcome = h.supervisor.submit(request(urlHandler([recorder, dir.file("args")]), .string(url), seq: 1))
        #expect(outcome == .dispatched)
        #expect(h.supervisor.runningCount == 1)
        try h.runUntilExits(1)
        #expect(dir.read("args") == "1\n\(url)\n")
        #expect(!FileManager.default.fileExists(atPath: dir.file("pwned")))
        let exit = try #require(h.exit(of: 1))
        #expect(exit.status == 0 && exit.signal == nil && !exit.timedOut && exit.handler == "browser" && exit.pid > 0)
        #expect(exit.failure == nil)

        // Scheme comparison ignores case.
        #expect(h.supervisor.submit(request(urlHandler([recorder, dir.file("args2")], schemes: ["HTTPS"]), .string("hTTps://x"), seq: 2)) == .dispatched)
        try h.runUntilExits(2)
        #expect(dir.read("args2") == "1\nhTTps://x\n")
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
    }

    @Test func urlPolicyDeniesAndMissingCommandFails() throws {
        let h = try ChildHarness()
        let handler = urlHandler(["/bin/true"])
        let denied: [JSONValue?] = [
            nil, .null, .number(JSONNumber(3)), .array([.string("https://x")]), .string(""), .string("ftp://x"),
            .string("javascript:alert(1)"), .string("-rf"), .string("1http://x"), .string("ht tp://x"),
            .string("://x"), .string("example.com/path"), .string("https://x\u{0}y"),
        ]
        for (k, data) in denied.enumerated() {
            let outcome = h.supervisor.submit(request(handler, data, seq: UInt64(k)))
            guard case .denied = outcome else {
                Issue.record("expected denied for \(String(describing: data)), got \(outcome)")
                continue
            }
        }
        #expect(ChildCommand.scheme(of: "a+b-c.d:x") == "a+b-c.d")

        let missing = h.supervisor.submit(request(urlHandler(["/nonexistent/tapgrid-opener"]), .string("https://x"), seq: 100))
        guard case .failed(let reason) = missing else {
            Issue.record("expected failed, got \(missing)")
            return
        }
        #expect(reason.contains("No such file"))
        let notOnPath = h.supervisor.submit(request(urlHandler(["tapgrid-no-such-opener"]), .string("http://x"), seq: 101))
        guard case .failed = notOnPath else {
            Issue.record("expected failed, got \(notOnPath)")
            return
        }
        #expect(h.supervisor.runningCount == 0 && h.supervisor.queuedCount == 0 && h.supervisor.isIdle)
        try h.run(seconds: 0.2) { false }
        #expect(h.exits.isEmpty)
    }

    @Test func interpreterChildGetsExactlyTheAllowListedEnvironment() throws {
        let dir = try TempDir()
        let daemonEnvironment = [
            "PATH": "/usr/bin:/bin", "HOME": "/home/tap", "LANG": "C.UTF-8", "NOTIFY_SOCKET": "/run/systemd/notify",
            "LISTEN_FDS": "1", "LISTEN_PID": "1", "LISTEN_FDNAMES": "x", "WATCHDOG_USEC": "1000", "SECRET": "s",
        ]
        let h = try ChildHarness(environment: daemonEnvironment)
        // argv = interpreter + [actionData]: `sh -c SCRIPT ACTIONDATA` makes actionData "$0".
        let script = "printf '%s' \"$0\" > \(dir.file("arg$TAPGRID_SEQ")); tr '\\0' '\\n' < /proc/$$/environ > \(dir.file("env$TAPGRID_SEQ"))"
        let handler = shellHandler(["/bin/sh", "-c", script])
        let object: JSONValue = .object([JSONMember(key: "a", value: .array([.number(JSONNumber(1)), .number(JSONNumber(2.5)), .string("x\"y")]))])
        #expect(h.supervisor.submit(request(handler, object, seq: 42, name: "play", tag: -7, x: 120, y: 120.5)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string("hello $(world)"), seq: 43, x: 0.25, y: 1e21)) == .dispatched)
        try h.runUntilExits(2)
        #expect(h.exits.allSatisfy { $0.status == 0 })

        let common = ["PATH=/usr/bin:/bin", "HOME=/home/tap", "LANG=C.UTF-8", "TAPGRID_LAYOUT=home", "TAPGRID_GRID=0/1/2"]
        #expect(dir.read("arg42") == #"{"a":[1,2.5,"x\"y"]}"#)
        #expect(dir.read("env42") == (common + [
            "TAPGRID_NAME=play", "TAPGRID_TAG=-7", #"TAPGRID_ACTION_DATA={"a":[1,2.5,"x\"y"]}"#,
            "TAPGRID_X=120", "TAPGRID_Y=120.5", "TAPGRID_SEQ=42",
            // The grid's cell state (docs/cell-state.md "Cell state"): none set, so all three are empty.
            "TAPGRID_TEXT=", "TAPGRID_ACTIVE=", "TAPGRID_VALUE=",
        ]).map { $0 + "\n" }.joined())
        #expect(dir.read("arg43") == "hello $(world)")
        #expect(dir.read("env43") == (common + [
            "TAPGRID_NAME=", "TAPGRID_TAG=", "TAPGRID_ACTION_DATA=hello $(world)", "TAPGRID_X=0.25", "TAPGRID_Y=1e+21",
            "TAPGRID_SEQ=43", "TAPGRID_TEXT=", "TAPGRID_ACTIVE=", "TAPGRID_VALUE=",
        ]).map { $0 + "\n" }.joined())

        // Absent or null actionData: nothing to run.
        for data: JSONValue? in [nil, .null] {
            guard case .denied = h.supervisor.submit(request(handler, data, seq: 44)) else {
                Issue.record("expected denied for \(String(describing: data))")
                continue
            }
        }
    }

    @Test func directoryScriptsStayInsideTheirFolder() throws {
        let dir = try TempDir()
        let scripts = dir.file("scripts")
        try FileManager.default.createDirectory(atPath: scripts, withIntermediateDirectories: false)
        try dir.write("scripts/ok.sh", "#!/bin/sh\necho \"ran $TAPGRID_ACTION_DATA\"\n")
        try dir.write("scripts/plain.txt", "#!/bin/sh\necho no\n", mode: 0o644)
        try dir.write("outside.sh", "#!/bin/sh\necho escaped\n")
        try FileManager.default.createSymbolicLink(atPath: dir.file("scripts/out"), withDestinationPath: "../outside.sh")
        try FileManager.default.createSymbolicLink(atPath: dir.file("scripts/abs"), withDestinationPath: "/bin/true")
        try FileManager.default.createSymbolicLink(atPath: dir.file("scripts/link"), withDestinationPath: "ok.sh")
        try FileManager.default.createSymbolicLink(atPath: dir.file("scripts/dangling"), withDestinationPath: "nothing.sh")
        try FileManager.default.createDirectory(atPath: dir.file("scripts/sub"), withIntermediateDirectories: false)

        let handler = HandlerConfig(name: "scripts", kind: .script(interpreter: nil, directory: scripts))
        let h = try ChildHarness()
        for name in ["../outside.sh", "a/b", "sub/x", ".", "..", "", "out", "abs", "x\u{0}"] {
            let outcome = h.supervisor.submit(request(handler, .string(name), seq: 1))
            guard case .denied = outcome else {
                Issue.record("expected denied for \(name.debugDescription), got \(outcome)")
                continue
            }
        }
        for data: JSONValue? in [nil, .null, .number(JSONNumber(1))] {
            guard case .denied = h.supervisor.submit(request(handler, data, seq: 1)) else {
                Issue.record("expected denied for \(String(describing: data))")
                continue
            }
        }
        for name in ["missing.sh", "plain.txt", "dangling", "sub"] {
            let outcome = h.supervisor.submit(request(handler, .string(name), seq: 1))
            guard case .failed = outcome else {
                Issue.record("expected failed for \(name), got \(outcome)")
                continue
            }
        }
        let missingFolder = HandlerConfig(name: "scripts", kind: .script(interpreter: nil, directory: dir.file("nope")))
        guard case .failed = h.supervisor.submit(request(missingFolder, .string("ok.sh"), seq: 1)) else {
            Issue.record("expected failed for a missing folder")
            return
        }
        #expect(h.exits.isEmpty && h.supervisor.isIdle)

        #expect(h.supervisor.submit(request(handler, .string("ok.sh"), seq: 5)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string("link"), seq: 6)) == .dispatched)
        try h.runUntilExits(2)
        #expect(h.lines(of: 5) == ["stdout: ran ok.sh"])
        #expect(h.lines(of: 6) == ["stdout: ran link"])
        #expect(h.exits.allSatisfy { $0.status == 0 })
    }

    @Test func outputLinesExitStatusAndDuration() throws {
        let h = try ChildHarness()
        let handler = shellHandler()
        let script = "echo one; echo two >&2; sleep 0.2; printf 'é%.0s' $(seq 3000); echo; printf partial; exit 3"
        #expect(h.supervisor.submit(request(handler, .string(script), seq: 7)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string("kill -USR1 $$"), seq: 8)) == .dispatched)
        try h.runUntilExits(2)
        let lines = h.lines(of: 7)
        #expect(lines.first == "stdout: one")
        #expect(lines.contains("stderr: two"))
        #expect(lines.last == "stdout: partial")
        // 3000 two-byte characters (6000 bytes) arrive as pieces of at most 4096 bytes, whole characters.
        let long = h.lines.filter { $0.seq == 7 && $0.text.hasPrefix("é") }.map(\.text)
        #expect(long.count == 2)
        #expect(long.allSatisfy { $0.utf8.count <= OutputLimits.maxLineBytes && $0.allSatisfy { $0 == "é" } })
        #expect(long.joined().count == 3000)
        #expect(h.lines.allSatisfy { $0.handler == "shell" })

        let exit = try #require(h.exit(of: 7))
        #expect(exit.status == 3 && exit.signal == nil && !exit.timedOut)
        #expect(exit.durationMs >= 200 && exit.durationMs < 5000)
        // Every line of seq 7 came before its exit.
        #expect(h.log.lastIndex(of: "line 7")! < h.log.firstIndex(of: "exit 7")!)

        let killed = try #require(h.exit(of: 8))
        #expect(killed.status == nil && killed.signal == "SIGUSR1" && !killed.timedOut)
    }

    @Test func childStartsCleanStdinNullNoFDsDefaultSignals() throws {
        let h = try ChildHarness()
        // The daemon blocks signals it reads through signalfd; children must not inherit that.
        try Signals.block([SIGUSR2])
        defer { try? Signals.unblock([SIGUSR2]) }
        // ...and ignores SIGPIPE, which children must get back as default.
        let oldPipe = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, oldPipe) }
        let leaked = try Epoll()  // an extra descriptor in the parent (close-on-exec anyway)
        _ = leaked.fd.rawValue
        // The shell lists its own descriptors by globbing (no pipe of its own open meanwhile,
        // which `ls | tr` raced with); 3 is the directory stream of that very glob.
        let script = "cat; echo stdin done; set -- /proc/$$/fd/*; for f; do printf '%s ' \"${f##*/}\"; done; echo; grep -E '^(SigBlk|SigIgn)' /proc/self/status; ps -o pgid= -p $$"
        #expect(h.supervisor.submit(request(shellHandler(), .string(script), seq: 31)) == .dispatched)
        try h.runUntilExits(1)
        let exit = try #require(h.exit(of: 31))
        #expect(exit.status == 0)
        let lines = h.lines(of: 31)
        #expect(lines.first == "stdout: stdin done")
        #expect(lines.contains("stdout: 0 1 2 3 "))
        #expect(lines.contains("stdout: SigBlk:\t0000000000000000"))
        // No signal is ignored, glibc's internal 32 and 33 included (Spawn sets their bits in the
        // default set directly). Read by a process the shell starts: dash itself blocks every
        // signal while it waits for a child, so its own /proc entry is not the child's start state.
        #expect(lines.contains("stdout: SigIgn:\t0000000000000000"))
        #expect(lines.contains { $0.hasPrefix("stdout: ") && $0.dropFirst(8).trimmingCharacters(in: .whitespaces) == String(exit.pid) })
    }

    @Test func outputIsCappedPerChild() throws {
        let h = try ChildHarness()
        // 20000 lines of 10 bytes: far over the 64 KiB cap.
        #expect(h.supervisor.submit(request(shellHandler(), .string("yes 123456789 | head -n 20000; echo done >&2"), seq: 9)) == .dispatched)
        try h.runUntilExits(1)
        let lines = h.lines.filter { $0.seq == 9 }
        #expect(lines.last?.text == OutputLimits.truncatedLine)
        #expect(lines.filter { $0.text == OutputLimits.truncatedLine }.count == 1)
        // 6553 whole lines fit in 64 KiB; the 6 bytes left take a piece of the next line.
        #expect(lines.count == OutputLimits.maxCapturedBytes / 10 + 2)
        #expect(lines.dropLast(2).allSatisfy { $0.text == "123456789" })
        #expect(lines.dropLast().last?.text == "123456")
        #expect(!lines.contains { $0.text == "done" })
        #expect(h.exit(of: 9)?.status == 0)
    }

    @Test func timeoutKillsTheWholeGroup() throws {
        let dir = try TempDir()
        let h = try ChildHarness()
        let handler = shellHandler(timeout: 0.5, grace: 1)
        // A grandchild in the background, and one that ignores SIGTERM.
        let script = "sleep 100 & echo $! > \(dir.file("bg")); (trap '' TERM; exec sleep 100) & echo $! > \(dir.file("stubborn")); sleep 100"
        #expect(h.supervisor.submit(request(handler, .string(script), seq: 11)) == .dispatched)
        try h.runUntilExits(1)
        let exit = try #require(h.exit(of: 11))
        #expect(exit.timedOut && exit.signal == "SIGTERM" && exit.status == nil)
        #expect(exit.durationMs >= 450 && exit.durationMs < 1500)
        for name in ["bg", "stubborn"] {
            let pid = try #require(Int32((dir.read(name) ?? "").trimmingCharacters(in: .whitespacesAndNewlines)))
            #expect(eventually { isDead(pid) }, "grandchild \(name) (\(pid)) survived")
            #expect(eventually { kill(pid, 0) == -1 || isDead(pid) })
        }
        #expect(eventually { liveMembers(ofGroup: exit.pid).isEmpty })
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
    }

    @Test func childIgnoringSIGTERMGetsSIGKILLAfterTheGrace() throws {
        let h = try ChildHarness()
        let handler = shellHandler(timeout: 0.3, grace: 0.4)
        #expect(h.supervisor.submit(request(handler, .string("trap '' TERM; sleep 100 & sleep 100"), seq: 12)) == .dispatched)
        #expect(h.supervisor.nextDeadlineNanos != nil)
        try h.runUntilExits(1)
        let exit = try #require(h.exit(of: 12))
        #expect(exit.timedOut && exit.signal == "SIGKILL")
        #expect(exit.durationMs >= 650 && exit.durationMs < 2000)
        #expect(eventually { liveMembers(ofGroup: exit.pid).isEmpty })
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
    }

    @Test func concurrencyLimitQueuesThenRefuses() throws {
        let dir = try TempDir()
        let h = try ChildHarness()
        let order = dir.file("order")
        let handler = shellHandler(maxConcurrent: 1, queue: 1)
        let script = "echo start $TAPGRID_SEQ >> \(order); sleep 0.3; echo end $TAPGRID_SEQ >> \(order)"
        #expect(h.supervisor.submit(request(handler, .string(script), seq: 1)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string(script), seq: 2)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string(script), seq: 3)) == .busy)
        #expect(h.supervisor.runningCount == 1 && h.supervisor.queuedCount == 1)
        // Another handler index has its own slots.
        #expect(h.supervisor.submit(request(handler, .string("true"), seq: 4, handlerIndex: 1)) == .dispatched)
        #expect(h.supervisor.runningCount == 2)
        try h.runUntilExits(3)
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
        #expect(dir.read("order") == "start 1\nend 1\nstart 2\nend 2\n")
        #expect(h.exits.filter { $0.handler == "shell" && $0.seq != 4 }.map(\.seq) == [1, 2])
        #expect(h.exits.allSatisfy { $0.status == 0 && $0.failure == nil })
        #expect(h.supervisor.runningCount == 0 && h.supervisor.queuedCount == 0)
    }

    @Test func queuedRequestThatCannotSpawnIsReportedAsAnExit() throws {
        let dir = try TempDir()
        try FileManager.default.createDirectory(atPath: dir.file("s"), withIntermediateDirectories: false)
        try dir.write("s/slow.sh", "#!/bin/sh\nsleep 0.3\n")
        let doomed = try dir.write("s/doomed.sh", "#!/bin/sh\necho hi\n")
        let handler = HandlerConfig(
            name: "scripts", kind: .script(interpreter: nil, directory: dir.file("s")), maxConcurrent: 1, queue: 2)
        let h = try ChildHarness()
        #expect(h.supervisor.submit(request(handler, .string("slow.sh"), seq: 1)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string("doomed.sh"), seq: 2)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string("slow.sh"), seq: 3)) == .dispatched)
        try FileManager.default.removeItem(atPath: doomed)
        try h.runUntilExits(3)
        #expect(h.exits.map(\.seq) == [1, 2, 3])
        let failed = try #require(h.exit(of: 2))
        #expect(failed.pid == 0 && failed.status == nil && failed.signal == nil && failed.durationMs == 0)
        #expect(failed.failure?.contains("doomed.sh") == true)
        #expect(h.exit(of: 3)?.status == 0 && h.exit(of: 3)?.failure == nil)
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
    }

    @Test func shutdownDropsTheQueueAndStopsChildren() throws {
        let h = try ChildHarness()
        let handler = shellHandler(maxConcurrent: 1, queue: 4)
        #expect(h.supervisor.submit(request(handler, .string("sleep 100"), seq: 1)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string("trap '' TERM; echo ready; sleep 100"), seq: 2, handlerIndex: 1)) == .dispatched)
        #expect(h.supervisor.submit(request(handler, .string("true"), seq: 3)) == .dispatched)
        try h.run(seconds: 5) { h.lines(of: 2) == ["stdout: ready"] }
        #expect(h.supervisor.submit(request(handler, .string("true"), seq: 4)) == .dispatched)
        h.supervisor.beginShutdown(graceNanos: 300_000_000)
        #expect(h.exits.map(\.seq) == [3, 4])
        #expect(h.exits.allSatisfy { $0.pid == 0 && $0.failure != nil })
        #expect(h.supervisor.queuedCount == 0 && !h.supervisor.isIdle)
        guard case .failed = h.supervisor.submit(request(handler, .string("true"), seq: 5)) else {
            Issue.record("submit after shutdown must fail")
            return
        }
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
        #expect(h.exit(of: 1)?.signal == "SIGTERM")
        #expect(h.exit(of: 2)?.signal == "SIGKILL")
        #expect(h.exits.allSatisfy { !$0.timedOut })
        #expect(h.exits.count == 4)
    }

    @Test func backgroundOutputAfterExitLingersThenPipesClose() throws {
        let h = try ChildHarness()
        h.supervisor.outputLingerNanos = 300_000_000
        // The child exits at once; a grandchild keeps the pipes and writes later, then lingers.
        let script = "(sleep 0.1; echo late; exec sleep 3) & echo early"
        let before = openFDs()
        #expect(h.supervisor.submit(request(shellHandler(), .string(script), seq: 21)) == .dispatched)
        try h.runUntilExits(1)
        #expect(h.exit(of: 21)?.status == 0)
        #expect(!h.supervisor.isIdle)  // pipes still open
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
        #expect(h.lines(of: 21) == ["stdout: early", "stdout: late"])
        #expect(eventually { openFDs().isSubset(of: before) }, "left open: \(openFDs().subtracting(before).sorted())")
        let pid = h.exit(of: 21)!.pid
        for member in liveMembers(ofGroup: pid) { kill(member, SIGKILL) }
    }

    @Test func twoHundredChildrenLeaveNoZombiesAndNoDescriptors() throws {
        let h = try ChildHarness()
        let handler = shellHandler(["/bin/sh", "-c"], maxConcurrent: 8, queue: 200)
        let fdsBefore = openFDCount()
        for seq in 1...200 {
            let script = seq % 2 == 0 ? "echo out $TAPGRID_SEQ" : "echo err >&2; exit 1"
            #expect(h.supervisor.submit(request(handler, .string(script), seq: UInt64(seq))) == .dispatched)
        }
        #expect(h.supervisor.runningCount == 8 && h.supervisor.queuedCount == 192)
        try h.runUntilExits(200, seconds: 60)
        #expect(try h.run(seconds: 5) { h.supervisor.isIdle })
        #expect(Set(h.exits.map(\.seq)) == Set(1...200))
        #expect(h.exits.allSatisfy { $0.status == ($0.seq % 2 == 0 ? 0 : 1) })
        #expect(h.lines.count == 200)
        // No fd growth (other suites may hold transient fds: allow them to settle).
        #expect(eventually { openFDCount() <= fdsBefore }, "fds: \(fdsBefore) before, \(openFDCount()) after")
        // None of our children is left as a zombie (or at all).
        let me = getpid()
        let ours = Set(h.exits.map(\.pid))
        let zombies = allPids().filter { pid in
            guard let s = procStat(pid) else { return false }
            return s.ppid == me && s.state == "Z" && ours.contains(pid)
        }
        #expect(zombies.isEmpty)
        #expect(ours.allSatisfy { procStat($0)?.ppid != me })
    }
}

/// The `url` handler's policy with its exact reasons: schemes that are never opened (even when
/// a config lists them), and URLs an opener would have to guess at (no host, a bad port,
/// control characters). Before, `https://` with no host went to the browser.
@Suite struct URLPolicyTests {
    func reason(_ url: String, schemes: [String] = ["http", "https"]) -> String? {
        guard case .denied(let why) = ChildCommand.urlCommand(command: ["/bin/true"], schemes: schemes, actionData: .string(url)) else {
            return nil
        }
        return why
    }

    @Test func dangerousSchemesAreDeniedEvenWhenConfigured() {
        let all = ["http", "https", "javascript", "data", "file", "vbscript"]
        #expect(reason("javascript:alert(1)", schemes: all) == #"URL scheme "javascript" is never opened: it runs script code in the browser"#)
        #expect(reason("JavaScript:alert(1)") == #"URL scheme "javascript" is never opened: it runs script code in the browser"#)
        #expect(reason("data:text/html,<script>x</script>", schemes: all) == #"URL scheme "data" is never opened: it carries its own content instead of naming a location"#)
        #expect(reason("file:///etc/shadow", schemes: all) == #"URL scheme "file" is never opened: it opens files on this machine"#)
        #expect(reason("vbscript:x", schemes: all) == #"URL scheme "vbscript" is never opened: it runs script code in the browser"#)
    }

    @Test func malformedURLsAreDenied() {
        #expect(reason("https://") == #"URL "https://" has no host (expected https://HOST/...)"#)
        #expect(reason("https:///path") == #"URL "https:///path" has no host (expected https://HOST/...)"#)
        #expect(reason("https:example.org") == #"URL "https:example.org" has no host (expected https://HOST/...)"#)
        #expect(reason("http://user@/x") == #"URL "http://user@/x" has no host (expected http://HOST/...)"#)
        #expect(reason("http://:80/") == #"URL "http://:80/" has no host (expected http://HOST/...)"#)
        #expect(reason("http://[]/") == #"URL "http://[]/" has no host (expected http://HOST/...)"#)
        #expect(reason("http://[::1/") == #"URL "http://[::1/" has an unterminated IPv6 host"#)
        #expect(reason("http://x:99999/") == #"URL "http://x:99999/" has an invalid port (expected a number from 0 to 65535)"#)
        #expect(reason("http://x:8a/") == #"URL "http://x:8a/" has an invalid port (expected a number from 0 to 65535)"#)
        #expect(reason("https://x/\u{1B}[2J") == #"URL "https://x/\u001b[2J" contains a control character"#)
        #expect(reason("https://x/\n") == #"URL "https://x/\n" contains a control character"#)
    }

    @Test func wellFormedURLsRun() {
        for url in ["https://example.org", "http://x", "https://u:p@example.org:8443/a?b#c", "http://[::1]:8080/", "http://x:/", "HTTPS://EXAMPLE.ORG/"] {
            #expect(ChildCommand.urlCommand(command: ["/bin/true"], schemes: ["http", "https"], actionData: .string(url)) == .run(["/bin/true", url]), "\(url)")
        }
    }
}
