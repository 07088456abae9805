@preconcurrency import Glibc
import Testing

@testable import TapgridSystem

/// Every test in this target runs serially: several count `/proc/self/fd` or change the calling
/// thread's signal mask, which parallel tests in the same process would disturb.
@Suite(.serialized) struct SystemTests {}

/// Creates a fresh directory under /tmp, runs `body`, then removes the directory tree.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array("/tmp/tapgrid-system-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil, "mkdtemp failed: \(Errno.current)")
    let dir = String(cString: made!)
    defer { removeTree(dir) }
    return try body(dir)
}

func removeTree(_ path: String) {
    if Files.fileType(path) == .directory, let dir = opendir(path) {
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(dir)
        for name in names { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}

/// The entries of a /proc fd directory.
func listFDs(_ dir: String = "/proc/self/fd") -> [Int] {
    guard let d = opendir(dir) else { return [] }
    defer { closedir(d) }
    var fds: [Int] = []
    while let entry = readdir(d) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if let n = Int(name) { fds.append(n) }
    }
    return fds.sorted()
}

/// Waits until `fd` is readable (or hung up). The corresponding C function is `poll`.
@discardableResult
func waitReadable(_ fd: CInt, timeoutMs: CInt = 5000) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    while true {
        let rc = poll(&p, 1, timeoutMs)
        if rc < 0 && errno == EINTR { continue }
        return rc > 0
    }
}

/// Reads a non-blocking descriptor until end of file (5 s limit).
func readToEnd(_ fd: CInt) throws -> String {
    var bytes: [UInt8] = []
    let deadline = Clock.monotonicNanos() + 5_000_000_000
    while Clock.monotonicNanos() < deadline {
        switch try FD.read(fd, appendingTo: &bytes, maxBytes: 4096) {
        case .transferred(0): return String(decoding: bytes, as: UTF8.self)
        case .transferred: continue
        case .wouldBlock: waitReadable(fd, timeoutMs: 100)
        }
    }
    Issue.record("timed out reading fd \(fd)")
    return String(decoding: bytes, as: UTF8.self)
}

/// Waits (via the pidfd) for the child to exit, then reaps it.
func waitForExit(_ child: borrowing SpawnedChild) throws -> ChildExitStatus {
    let deadline = Clock.monotonicNanos() + 10_000_000_000
    while Clock.monotonicNanos() < deadline {
        waitReadable(child.pidfd.rawValue, timeoutMs: 100)
        if let status = try Spawn.reap(child.pid) { return status }
    }
    throw SystemError(Errno(ETIMEDOUT), operation: "wait for", path: "pid \(child.pid)")
}

let testEnvironment = ["PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C"]
