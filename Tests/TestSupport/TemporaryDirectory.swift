import Foundation
@preconcurrency import Glibc

/// A fresh folder `/tmp/PREFIX-XXXXXX` (`mkdtemp`): under /tmp, not `$TMPDIR`, so the socket
/// paths tests make in it fit `sun_path` (107 bytes) wherever the checkout is. The caller removes
/// it (``removeTempDir(_:)``, or `DaemonProcess` for its own folder): tests leave nothing behind.
public func makeTempDir(prefix: String = "tgtest") throws -> String {
    var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
    guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
        throw TestFailure("mkdtemp /tmp/\(prefix)-XXXXXX: errno \(errno)")
    }
    return String(cString: made)
}

/// Removes a folder and everything in it; a folder already gone is no error.
public func removeTempDir(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)
}

/// Runs `body` with a fresh folder from ``makeTempDir(prefix:)``, then removes the folder.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
    let dir = try makeTempDir()
    defer { removeTempDir(dir) }
    return try body(dir)
}
