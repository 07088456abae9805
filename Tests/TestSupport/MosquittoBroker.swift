import Foundation
@preconcurrency import Glibc

/// A real mosquitto (Debian's, installed by `make test`) on a free loopback port of its own,
/// never 1883: its config, password file and log in its own folder. Stopped (`kill`) and
/// started again on the same port by the fault tests; killed and its folder removed when the
/// test lets go of it.
public final class MosquittoBroker {
    public let dir: String
    public let port: Int
    public let configPath: String
    private var process: Process?

    /// - Parameters:
    ///   - extraConfig: more lines for `mosquitto.conf` (a password file, an ACL); `$DIR` in
    ///     them is replaced by the broker's folder (`persistence_location $DIR/`).
    ///   - anonymous: whether clients without a user name are let in.
    public init(extraConfig: String = "", anonymous: Bool = true) throws {
        dir = try makeTempDir()
        port = try Self.freePort()
        configPath = dir + "/mosquitto.conf"
        // `user root`: started as root, mosquitto would otherwise drop to `mosquitto`, which
        // cannot read this folder.
        let config = """
            listener \(port) 127.0.0.1
            allow_anonymous \(anonymous)
            persistence false
            log_dest file \(dir)/mosquitto.log
            user root
            max_queued_messages 1000000
            set_tcp_nodelay true
            \(extraConfig.replacingOccurrences(of: "$DIR", with: dir))
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
        try start()
    }

    /// `127.0.0.1:PORT`, as the `mqtt.broker` of a config.
    public var address: String { "127.0.0.1:\(port)" }

    public var isRunning: Bool { process?.isRunning ?? false }

    /// Starts mosquitto and waits until it accepts connections.
    public func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        process.arguments = ["-c", configPath]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if Self.accepts(port) { return }
            if !process.isRunning { throw TestFailure("mosquitto exited early: \(log)") }
            usleep(10_000)
        }
        throw TestFailure("mosquitto did not listen on \(port): \(log)")
    }

    /// Kills it (SIGKILL: a broker that vanishes, not one that says goodbye) and waits.
    public func kill() {
        guard let process, process.isRunning else { return }
        Glibc.kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    /// Waits until a broker configured with `persistence true`, `persistence_location $DIR/`
    /// and an `autosave_interval` has saved its database afresh (the file is removed, then
    /// waited for): the sessions and subscriptions made before the call survive a `kill()` and
    /// `start()`. (SIGUSR1 would save at once, but mosquitto inherits the test process's
    /// signal mask, where it may be blocked.)
    public func waitForSave(timeout: Double = 10) throws {
        let database = dir + "/mosquitto.db"
        try? FileManager.default.removeItem(atPath: database)
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if FileManager.default.fileExists(atPath: database) { return }
            usleep(20_000)
        }
        throw TestFailure("mosquitto did not write \(database): \(log)")
    }

    public var log: String { (try? String(contentsOfFile: dir + "/mosquitto.log", encoding: .utf8)) ?? "" }

    /// Adds `user` with `password` to a password file (`mosquitto_passwd -b`), for a config
    /// that names it.
    public static func writePasswordFile(_ path: String, user: String, password: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let result = try runProgram("/usr/bin/mosquitto_passwd", ["-b", path, user, password])
        if result.code != 0 { throw TestFailure("mosquitto_passwd: \(result.err)") }
    }

    deinit {
        kill()
        removeTempDir(dir)
    }

    /// A loopback port nobody listens on now (bound to port 0, read back, closed).
    public static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        guard bound == 0 else { throw TestFailure("bind: errno \(errno)") }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } } == 0
    }
}

/// A `mosquitto_sub` watching topics on a broker, its output in a file: each message one line
/// `RETAIN QOS TOPIC PAYLOAD` (`-F '%r %q %t %p'`; the payloads tapgrid publishes have no newline).
public final class MQTTWatcher {
    private let process = Process()
    private let outPath: String
    private let dir: String

    /// One message seen.
    public struct Message: Equatable, CustomStringConvertible {
        public var retained: Bool
        /// The QoS it was delivered at: the publisher's, as the watcher subscribes at 1.
        public var qos: Int
        public var topic: String
        public var payload: String
        public var description: String { "\(retained ? "R " : "")\(topic) \(payload)" }

        /// The payload as a JSON object (nil when it is not one).
        public var object: [String: Any]? { try? parseObject(payload) }
    }

    /// Subscribes to `topics` (default everything) and waits until the subscription is in
    /// place (a probe message published by the watcher's own broker connection is seen).
    /// `extraArguments` go to `mosquitto_sub` (`-D connect receive-maximum 65535`).
    public init(port: Int, topics: [String] = ["#"], persistentID: String? = nil, extraArguments: [String] = []) throws {
        dir = try makeTempDir()
        outPath = dir + "/messages.txt"
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        // Line-buffered: mosquitto_sub writes through stdio, which holds a file's output back.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        var arguments = ["-oL", "/usr/bin/mosquitto_sub", "-h", "127.0.0.1", "-p", String(port), "-V", "mqttv5", "-q", "1", "-F", "%r %q %t %p"]
        if let persistentID { arguments += ["-c", "-i", persistentID] }
        arguments += extraArguments
        for topic in topics + ["tgwatch/probe"] { arguments += ["-t", topic] }
        process.arguments = arguments
        process.standardOutput = FileHandle(forWritingAtPath: outPath)
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            _ = try? runProgram("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-t", "tgwatch/probe", "-m", "probe"])
            if messages.contains(where: { $0.topic == "tgwatch/probe" }) { return }
            usleep(50_000)
        }
        throw TestFailure("mosquitto_sub did not subscribe on port \(port)")
    }

    /// Every message so far (the probe left out).
    public var messages: [Message] {
        // Decoded leniently: a hostile payload a test published (invalid UTF-8) is in the file too.
        let text = String(decoding: FileManager.default.contents(atPath: outPath) ?? Data(), as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line -> Message? in
            let parts = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count >= 3 else { return nil }
            return Message(retained: parts[0] == "1", qos: Int(parts[1]) ?? -1, topic: String(parts[2]),
                           payload: parts.count > 3 ? String(parts[3]) : "")
        }
    }

    /// The messages on `topic` so far.
    public func on(_ topic: String) -> [Message] { messages.filter { $0.topic == topic } }

    /// Waits (at most `timeout` s) until `done` holds for the messages; returns them either way.
    @discardableResult
    public func wait(timeout: Double = 10, until done: ([Message]) -> Bool) -> [Message] {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let seen = messages
            if done(seen) { return seen }
            usleep(20_000)
        }
        return messages
    }

    /// Waits for a message on `topic` matching `where`.
    public func first(_ topic: String, timeout: Double = 10, where match: (Message) -> Bool = { _ in true }) -> Message? {
        wait(timeout: timeout) { $0.contains { $0.topic == topic && match($0) } }.first { $0.topic == topic && match($0) }
    }

    public func stop() {
        // SIGKILL: the test process may hold SIGTERM blocked, and its children inherit the mask.
        if process.isRunning {
            Glibc.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
        removeTempDir(dir)
    }
}

/// `mosquitto_pub` one message (`retain`: as a retained message; an empty payload with `-n`).
public func mqttPublish(port: Int, topic: String, payload: String, retain: Bool = false) throws {
    var arguments = ["-h", "127.0.0.1", "-p", String(port), "-V", "mqttv5", "-q", "1", "-t", topic]
    arguments += payload.isEmpty ? ["-n"] : ["-m", payload]
    if retain { arguments.append("-r") }
    let result = try runProgram("/usr/bin/mosquitto_pub", arguments)
    if result.code != 0 { throw TestFailure("mosquitto_pub \(topic): \(result.err)") }
}

/// `mosquitto_pub` a payload from a file (large or binary payloads: `-f`).
public func mqttPublish(port: Int, topic: String, file: String) throws {
    let result = try runProgram("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", String(port), "-V", "mqttv5", "-q", "1", "-t", topic, "-f", file])
    if result.code != 0 { throw TestFailure("mosquitto_pub \(topic): \(result.err)") }
}
