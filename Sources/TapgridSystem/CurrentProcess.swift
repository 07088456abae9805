import CShims
@preconcurrency import Glibc

/// Facts about, and process-wide settings of, the running process.
public enum CurrentProcess {
    /// Ends the process with `code` (stdio flushed). The corresponding C function is `exit`.
    public static func exit(_ code: Int32) -> Never { Glibc.exit(code) }

    /// Our pid. The corresponding C function is `getpid`.
    public static var pid: pid_t { getpid() }
    /// Our real user id. The corresponding C function is `getuid`.
    public static var uid: uid_t { getuid() }
    /// Our effective user id: 0 when the process acts as root. The C function is `geteuid`.
    public static var effectiveUID: uid_t { geteuid() }
    /// Our real group id. The corresponding C function is `getgid`.
    public static var gid: gid_t { getgid() }

    /// The whole environment as a dictionary (an entry without `=` is skipped).
    /// The corresponding C variable is `environ`.
    public static func environment() -> [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                result[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            cursor += 1
        }
        return result
    }

    /// The host name (the MQTT `node` when the config names none). The corresponding C function
    /// is `gethostname`.
    public static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        return name.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// The value of environment variable `name`, or `nil` if unset.
    /// The corresponding C function is `getenv` (read-only use; do not call concurrently with
    /// `setenv`/`unsetenv`).
    public static func environment(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        return String(cString: raw)
    }

    /// Raises the `RLIMIT_NOFILE` soft limit to the hard limit, so many clients and children
    /// do not hit `EMFILE` at the default 1024. Children spawned later inherit the raised limit.
    /// The corresponding C functions are `getrlimit` and `setrlimit`.
    /// - Returns: the new soft limit.
    /// - Throws: `Errno` from `setrlimit`.
    @discardableResult
    public static func raiseFileLimit() throws(Errno) -> Int64 {
        let limit = cshims_raise_nofile_limit()
        if limit < 0 { throw Errno.current }
        return limit
    }

    /// 16 random bytes as 32 lowercase hex digits: identifies one daemon start (`run` in the
    /// event log). The corresponding C function is `getrandom`.
    public static func randomRunID() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let filled = bytes.withUnsafeMutableBytes { raw in
            fill(raw) { rest throws(Errno) in try SystemCall.blocking { cshims_getrandom(rest.baseAddress, rest.count) } }
        }
        if !filled {
            // getrandom only fails on pre-3.17 kernels; fall back to the device.
            let fd = try? SystemCall.blocking { open("/dev/urandom", O_RDONLY | O_CLOEXEC) }
            guard let fd else { preconditionFailure("no source of randomness: getrandom and /dev/urandom both failed") }
            defer { FD.close(fd) }
            let read = bytes.withUnsafeMutableBytes { raw in
                fill(raw) { rest throws(Errno) in
                    guard case .transferred(let n) = try FD.read(fd, into: rest), n > 0 else { throw Errno(EIO) }
                    return n
                }
            }
            precondition(read, "cannot read /dev/urandom")
        }
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for b in bytes {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 0xf)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Fills all of `buffer` with `next`, which puts bytes at the start of what is left and says
    /// how many (short counts are read on).
    /// - Returns: false when `next` failed (what it had filled is left in place).
    private static func fill(_ buffer: UnsafeMutableRawBufferPointer, _ next: (UnsafeMutableRawBufferPointer) throws(Errno) -> Int) -> Bool {
        var filled = 0
        while filled < buffer.count {
            guard let n = try? next(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...])) else { return false }
            filled += n
        }
        return true
    }
}
