@preconcurrency import Glibc
import Testing

@testable import TapgridSystem
import TapgridTestSupport

/// Every test in this target runs serially: several count `/proc/self/fd` or change the calling
/// thread's signal mask, which parallel tests in the same process would disturb. Temporary
/// folders and `waitReadable` are `TapgridTestSupport`'s.
@Suite(.serialized) struct SystemTests {}

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
