import Foundation
@preconcurrency import Glibc
import Synchronization
import Testing

/// Every end-to-end test starts its own daemon; they run one at a time so timing-based checks
/// (debounce windows, latency under a stalled client) are not disturbed on a small machine.
@Suite(.serialized) struct EndToEnd {}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// The package root, found from this file's path (Tests/EndToEndTests/Support.swift).
let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The built daemon: `.build/debug/tapgridd` (`swift build` puts it there; `swift test` builds it too).
let daemonBinary: String = {
    let candidates = [
        packageRoot.appendingPathComponent(".build/debug/tapgridd").path,
        Bundle.main.bundleURL.appendingPathComponent("tapgridd").path,
    ]
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
}()

/// The built CLI: `.build/debug/tapgrid`.
let cliBinary: String = packageRoot.appendingPathComponent(".build/debug/tapgrid").path

/// Runs a built program and returns its exit code, stdout and stderr. Both pipes are drained while
/// it runs (stderr on another thread), so a chatty program cannot block on a full pipe.
/// - Parameter environment: the whole environment; nil inherits the test's.
func runProgram(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws -> (code: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let errData = Mutex(Data())
    let errDone = DispatchSemaphore(value: 0)
    Thread {
        errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() }
        errDone.signal()
    }.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    errDone.wait()
    let errText = errData.withLock { String(decoding: $0, as: UTF8.self) }
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), errText)
}

/// A fresh directory under /tmp (short, so socket paths fit `sun_path`), removed by `cleanup()`.
func makeTempDir() throws -> String {
    var template = Array("/tmp/tge2e-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw TestFailure("mkdtemp failed")
    }
    return String(cString: made)
}

/// The standard test config: layout `home` is 400x100 with four 100-wide columns:
/// 0 tag 1 -> `audit` (log), 1 tag 20 "other" -> `pages` (layout), 2 tag 21 actionData 42 -> `pages`
/// (denied), 3 tag 99 -> no route (unrouted); x >= 400 misses. Layout `other` is one grid tag 20
/// "home". Layout `deb` (debounceMs 400): col 0 tag 1 -> audit, col 1 tag 20 "home" -> pages.
/// Layout `kids`: one grid tag 5 -> script handler `sh`.
func standardConfig(eventLog: String = #"{"path": "events.jsonl"}"#, socketExtra: String = "") -> String {
    """
    // test config
    {
      "socket": { "path": "d.sock"\(socketExtra) },
      "eventLog": \(eventLog),
      "initialLayout": "home",
      "layouts": {
        "home": { "width": 400, "height": 100, "grid": { "cols": [
            { "name": "log", "tag": 1, "action-data": {"k": [1, "two"]} },
            { "name": "page", "tag": 20, "action-data": "other" },
            { "name": "bad", "tag": 21, "action-data": 42 },
            { "tag": 99 },
        ] } },
        "other": { "width": 100, "height": 100, "grid": { "rows": [ { "name": "back", "tag": 20, "action-data": "home" } ] } },
        "deb": { "width": 200, "height": 100, "debounceMs": 400, "grid": { "cols": [
            { "name": "d", "tag": 1 }, { "name": "flip", "tag": 20, "action-data": "home" } ] } },
        "kids": { "width": 100, "height": 100, "grid": { "rows": [ { "tag": 5, "action-data": "exit 0" } ] } },
      },
      "handlers": {
        "audit": { "type": "log" },
        "pages": { "type": "layout" },
        "sh": { "type": "script", "interpreter": ["/bin/sh", "-c"] },
      },
      "routes": [
        { "tags": [1], "handler": "audit" },
        { "tags": [20, 21], "handler": "pages" },
        { "tags": [5], "handler": "sh" },
      ],
    }
    """
}

/// A running `tapgridd` with its own folder, config, socket and event log.
final class DaemonProcess {
    let dir: String
    let configPath: String
    let socketPath: String
    let eventLogPath: String
    let stderrPath: String
    let process = Process()
    /// More folders a test made for this daemon (scripts, what children write): removed with it.
    var alsoRemove: [String] = []

    /// - Parameters:
    ///   - socketName: the socket file the daemon is expected to listen on, in its folder.
    ///   - shellPrefix: shell commands run before the daemon is exec'ed from `/bin/sh` (limits,
    ///     signal dispositions it inherits); nil runs it directly.
    ///   - umask: the daemon's umask (the test's own when nil); files of the test are written first.
    init(
        config: String = standardConfig(), arguments: [String] = [], environment: [String: String] = [:],
        socketName: String = "d.sock", shellPrefix: String? = nil, umask daemonUmask: mode_t? = nil
    ) throws {
        dir = try makeTempDir()
        configPath = dir + "/tapgrid.json"
        socketPath = dir + "/" + socketName
        eventLogPath = dir + "/events.jsonl"
        stderrPath = dir + "/stderr.txt"
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let daemonArguments = ["--config", configPath] + arguments.map { $0.replacingOccurrences(of: "$DIR", with: dir) }
        if let shellPrefix {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", shellPrefix + "; exec \"$0\" \"$@\"", daemonBinary] + daemonArguments
        } else {
            process.executableURL = URL(fileURLWithPath: daemonBinary)
            process.arguments = daemonArguments
        }
        var env = ProcessInfo.processInfo.environment
        env["TAPGRID_SOCKET"] = nil
        env["TAPGRID_CONFIG"] = nil
        for (k, v) in environment { env[k] = v.replacingOccurrences(of: "$DIR", with: dir) }
        process.environment = env
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        let testUmask = daemonUmask.map { umask($0) }
        try process.run()
        if let testUmask { umask(testUmask) }
        // Ready when the socket accepts a connection.
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            if let probe = try? Connection(socketPath) {
                probe.close()
                return
            }
            if !process.isRunning { throw TestFailure("tapgridd exited early: \(stderr)") }
            usleep(20_000)
        }
        throw TestFailure("tapgridd did not start listening: \(stderr)")
    }

    var pid: pid_t { process.processIdentifier }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    func connect() throws -> Connection { try Connection(socketPath) }

    /// Sends `signal` and waits (at most `timeout` s) for the exit; returns the exit status.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM, timeout: Double = 15) throws -> Int32 {
        if process.isRunning { kill(pid, signal) }
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
            throw TestFailure("tapgridd did not exit within \(timeout) s after \(signal)")
        }
        return process.terminationStatus
    }

    /// The event log's records, parsed.
    func eventRecords() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: eventLogPath, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try parseObject(String($0)) }
    }

    /// The daemon's resident memory in KiB (`VmRSS` in /proc/PID/status), -1 if unreadable.
    func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }

    /// Open descriptors of the daemon (/proc/PID/fd).
    func openFDCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: dir)
        for folder in alsoRemove { try? FileManager.default.removeItem(atPath: folder) }
    }
}

func parseObject(_ line: String) throws -> [String: Any] {
    guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
        throw TestFailure("not a JSON object: \(line)")
    }
    return object
}

/// A datagram socket bound at `path` (close-on-exec): a stand-in for one of systemd's sockets
/// (`NOTIFY_SOCKET`, the journal's) that a test reads what the daemon sent from.
func bindDatagramSocket(at path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket for \(path): errno \(errno)") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
    let rc = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    if rc != 0 {
        let err = errno
        Glibc.close(fd)
        throw TestFailure("cannot bind \(path): errno \(err)")
    }
    return fd
}

/// A blocking client connection with a receive timeout, speaking the line protocol.
final class Connection: @unchecked Sendable {  // used by one thread at a time in each test
    let fd: Int32
    private var buffer: [UInt8] = []

    init(_ path: String, receiveTimeout: Int = 10) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if rc != 0 {
            let err = errno
            close()  // marks it closed, so deinit (if it runs for a failed init) does not close again
            throw TestFailure("connect \(path): errno \(err)")
        }
        var tv = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    private var closed = false

    /// Closes once: a second close(2) of the same number could close a descriptor another test
    /// (in this process) has been given since, which its owner then finds gone.
    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    deinit { close() }

    /// Sends all bytes; returns false if the peer is gone.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }

    func shutdownWrite() { shutdown(fd, Int32(SHUT_WR)) }

    /// The next line without its `\n`; nil at end of stream or timeout.
    func readLine() -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return nil }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// Sends one request line and parses the reply line.
    func request(_ line: String) throws -> [String: Any] {
        guard send(line + "\n") else { throw TestFailure("send failed for \(line)") }
        guard let reply = readLine() else { throw TestFailure("no reply to \(line)") }
        return try parseObject(reply)
    }

    /// Every remaining line until the daemon closes the connection.
    func readAllLines() -> [String] {
        var lines: [String] = []
        while let line = readLine() { lines.append(line) }
        return lines
    }
}

extension Dictionary where Key == String, Value == Any {
    func string(_ key: String) -> String? { self[key] as? String }
    func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
    func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    var errorCode: String? { object("error")?.string("code") }
    var errorMessage: String? { object("error")?.string("message") }
    func isNull(_ key: String) -> Bool { self[key] is NSNull }
}
