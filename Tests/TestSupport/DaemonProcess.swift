import Foundation
@preconcurrency import Glibc
import Testing

/// The package root, found from this file's path (Tests/TestSupport/DaemonProcess.swift).
public let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// The folder of the binaries built with the running tests: the test runner's own (so `make
/// asan` and `make tsan`, whose scratch folders hold sanitized builds, run sanitized daemons),
/// else `.build/debug` (`swift build` puts them there; `swift test` builds them too).
private func builtBinary(_ name: String) -> String {
    let runnerFolder = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        .map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent(name).path }
    let candidates = [runnerFolder, packageRoot.appendingPathComponent(".build/debug/\(name)").path].compactMap { $0 }
    return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[candidates.count - 1]
}

/// `address` or `thread` when the tests run under `make asan` or `make tsan` (so are the daemon
/// and CLI they start); nil otherwise. Memory bounds hold for unsanitized builds only.
public let sanitizer: String? = ProcessInfo.processInfo.environment["TAPGRID_SANITIZER"]

/// The built daemon.
public let daemonBinary: String = builtBinary("tapgridd")

/// The built CLI.
public let cliBinary: String = builtBinary("tapgrid")

/// The standard test config: layout `home` is 400x100 with four 100-wide columns:
/// 0 tag 1 -> `audit` (log), 1 tag 20 "other" -> `pages` (layout), 2 tag 21 actionData 42 -> `pages`
/// (denied), 3 tag 99 -> no route (unrouted); x >= 400 misses. Layout `other` is one grid tag 20
/// "home". Layout `deb` (debounceMs 400): col 0 tag 1 -> audit, col 1 tag 20 "home" -> pages.
/// Layout `kids`: one grid tag 5 -> script handler `sh`. `DaemonProcess` starts with it unless
/// told otherwise; `eventLog` and `socketExtra` replace the event log and add socket keys.
public func standardConfig(eventLog: String = #"{"path": "events.jsonl"}"#, socketExtra: String = "") -> String {
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

/// A running `tapgridd` (the built one) with its own folder, config, socket and event log,
/// started by `init` and ready once its socket accepts a connection; killed, and its folder
/// removed, when the test lets go of it.
public final class DaemonProcess {
    /// The daemon's folder (`/tmp/tgtest-*`): its config, socket, event log and stderr are in it.
    public let dir: String
    public let configPath: String
    public let socketPath: String
    public let eventLogPath: String
    /// The daemon's stderr goes to this file; ``stderr`` reads it.
    public let stderrPath: String
    public let process = Process()
    /// More folders a test made for this daemon (scripts, what children write): removed with it.
    public var alsoRemove: [String] = []

    /// - Parameters:
    ///   - config: the config's text, written to `tapgrid.json` in the folder.
    ///   - arguments, environment: more for the daemon; `$DIR` in them is replaced by the folder.
    ///   - socketName: the socket file the daemon is expected to listen on, in its folder.
    ///   - shellPrefix: shell commands run before the daemon is exec'ed from `/bin/sh` (limits,
    ///     signal dispositions it inherits); nil runs it directly.
    ///   - umask: the daemon's umask (the test's own when nil); files of the test are written first.
    public init(
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
            if let probe = try? LineClient(socketPath) {
                probe.close()
                return
            }
            if !process.isRunning { throw TestFailure("tapgridd exited early: \(stderr)") }
            usleep(20_000)
        }
        throw TestFailure("tapgridd did not start listening: \(stderr)")
    }

    public var pid: pid_t { process.processIdentifier }
    /// What the daemon wrote to stderr so far.
    public var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// A new client connection to the daemon's socket.
    public func connect() throws -> LineClient { try LineClient(socketPath) }

    /// Sends `signal` and waits (at most `timeout` s) for the exit; returns the exit status.
    @discardableResult
    public func stop(_ signal: Int32 = SIGTERM, timeout: Double = 15) throws -> Int32 {
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
    public func eventRecords() throws -> [[String: Any]] {
        let text = (try? String(contentsOfFile: eventLogPath, encoding: .utf8)) ?? ""
        return try text.split(separator: "\n").map { try parseObject(String($0)) }
    }

    /// The daemon's resident memory in KiB (`VmRSS` in /proc/PID/status), -1 if unreadable.
    public func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return -1 }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? -1
    }

    /// Open descriptors of the daemon (/proc/PID/fd).
    public func openFDCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
    }

    /// Fails the test when the daemon reported a descriptor owner dropped open (a bug that
    /// `DescriptorAudit` notices in the daemon, where no test sees it otherwise).
    public func checkNoDroppedDescriptors(sourceLocation: SourceLocation = #_sourceLocation) {
        let lines = stderr.split(separator: "\n").filter { $0.contains("was dropped with its descriptor open") }
        if !lines.isEmpty { Issue.record("tapgridd: \(lines.joined(separator: "; "))", sourceLocation: sourceLocation) }
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
        checkNoDroppedDescriptors()
        removeTempDir(dir)
        for folder in alsoRemove { removeTempDir(folder) }
    }
}
