@preconcurrency import Glibc
import Testing

import TapgridSystem

/// Every test here changes this process's environment (`NOTIFY_SOCKET`, `LISTEN_*`,
/// `WATCHDOG_*`, `JOURNAL_STREAM`) or descriptor 3, which libsystemd reads process-wide, so they
/// run one at a time and restore what they changed.
@Suite(.serialized) struct SystemdTests {}

/// Sets (or with `nil` unsets) environment variables for `body`, then restores the old values.
func withEnvironment<T>(_ variables: [String: String?], _ body: () throws -> T) throws -> T {
    let old = variables.keys.map { ($0, CurrentProcess.environment($0)) }
    for (name, value) in variables {
        if let value { setenv(name, value, 1) } else { unsetenv(name) }
    }
    defer {
        for (name, value) in old {
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
    }
    return try body()
}

/// A fresh directory under /tmp (short: `sun_path` holds 107 bytes), removed after `body`.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    var template = Array("/tmp/tgsd-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    try #require(made != nil, "mkdtemp failed: \(Errno.current)")
    let dir = String(cString: made!)
    defer {
        if let handle = opendir(dir) {
            while let entry = readdir(handle) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                if name != "." && name != ".." { unlink(dir + "/" + name) }
            }
            closedir(handle)
        }
        rmdir(dir)
    }
    return try body(dir)
}

/// A new `AF_UNIX` socket of `type` bound to `path`; with `listening`, also listening.
func unixSocket(_ type: __socket_type, boundTo path: String? = nil, listening: Bool = false) throws -> OwnedFD {
    let raw = socket(AF_UNIX, CInt(type.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0)
    try #require(raw >= 0, "socket: \(Errno.current)")
    let fd = OwnedFD(taking: raw)
    if let path {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd.rawValue, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind \(path): \(Errno.current)")
    }
    if listening { try #require(listen(fd.rawValue, 8) == 0, "listen: \(Errno.current)") }
    return fd
}

/// The next datagram on `fd` as raw bytes, or nil after `timeoutMs`.
func receiveDatagram(_ fd: CInt, timeoutMs: CInt = 2000) -> [UInt8]? {
    var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    guard poll(&poller, 1, timeoutMs) == 1 else { return nil }
    var buffer = [UInt8](repeating: 0, count: 65536)
    let count = recv(fd, &buffer, buffer.count, 0)
    return count >= 0 ? Array(buffer[0..<count]) : nil
}
