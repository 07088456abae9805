@preconcurrency import Glibc

/// A file opened read-only to be read from an offset of the caller's (the MQTT feed follows
/// the event log this way, beside the daemon's own write-only descriptor): `pread`, so the
/// offset is the caller's to keep and nothing depends on a shared file position.
public final class FileReader {
    public let fd: OwnedFD

    /// Opens `path` read-only, close-on-exec, non-blocking (a FIFO put there would otherwise
    /// block). The corresponding C function is `open(O_RDONLY | O_CLOEXEC | O_NONBLOCK)`.
    /// - Throws: `SystemError` naming the path.
    public init(path: String) throws(SystemError) {
        do throws(Errno) {
            fd = OwnedFD(taking: try retryingEINTR { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) })
        } catch { throw error.with("open", path) }
    }

    /// Reads at most `buffer.count` bytes at `offset`. The corresponding C function is `pread`.
    /// - Returns: how many bytes were read (0 at the end of the file).
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        Int(try SystemCall.blocking { pread(fd.rawValue, buffer.baseAddress, buffer.count, off_t(offset)) })
    }

    /// The file's size now. The corresponding C function is `fstat`.
    public var size: Int64 {
        var st = stat()
        guard fstat(fd.rawValue, &st) == 0 else { return 0 }
        return Int64(st.st_size)
    }

    /// Which file is open (device and inode), whatever it is called now.
    public var identity: FileIdentity? { Files.identity(ofOpen: fd.rawValue) }
}
