@preconcurrency import Glibc

/// The type of a file system entry, as `lstat` reports it (a symlink is not followed).
public enum FileType: Hashable, Sendable {
    case regular, directory, symbolicLink, socket, fifo, characterDevice, blockDevice
}

/// Small file helpers for config files, the event log and script directories.
public enum Files {
    /// Reads a whole file, refusing one larger than `maxBytes` (config and layout files are
    /// small; a huge or endless file such as `/dev/zero` must not exhaust memory).
    /// The corresponding C functions are `open` and `read`.
    /// - Returns: the file's bytes.
    /// - Throws: `SystemError` like `cannot read /etc/x.json: No such file or directory (errno 2)`
    ///   or `cannot read /x: file is larger than the 1048576-byte limit` (errno `EFBIG`).
    public static func readFile(_ path: String, maxBytes: Int) throws(SystemError) -> [UInt8] {
        try readFile(path, maxBytes: maxBytes, vet: nil)
    }

    /// Reads a whole file like `readFile(_:maxBytes:)`, first showing `vet` the status of the
    /// descriptor opened (`fstat`), so a check of owner and mode applies to the very file read,
    /// not to whatever the path names a moment later. The file is opened `O_NONBLOCK`: a FIFO
    /// put where a config was expected would otherwise block the reader until someone writes.
    /// - Parameter vet: returns why the file must not be read (the error's detail), or nil.
    /// - Throws: `SystemError` (`EPERM` with `vet`'s text as detail when it refuses).
    public static func readFile(_ path: String, maxBytes: Int, vet: ((FileStatus) -> String?)?) throws(SystemError) -> [UInt8] {
        let fd: OwnedFD
        do throws(Errno) {
            fd = OwnedFD(taking: try retryingEINTR { open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) })
        } catch { throw error.with("read", path) }
        if let vet {
            let status: FileStatus
            do throws(Errno) { status = try Files.status(ofOpen: fd.rawValue) } catch { throw error.with("stat", path) }
            if let refusal = vet(status) { throw SystemError(Errno(EPERM), operation: "read", path: path, detail: refusal) }
        }
        var bytes: [UInt8] = []
        while true {
            let outcome: FD.IOResult
            do throws(Errno) {
                outcome = try FD.read(fd.rawValue, appendingTo: &bytes, maxBytes: min(maxBytes - bytes.count, (1 << 16) - 1) + 1)
            } catch { throw error.with("read", path) }
            switch outcome {
            case .transferred(0): return bytes
            case .transferred: break
            case .wouldBlock: throw SystemError(Errno(EAGAIN), operation: "read", path: path)
            }
            if bytes.count > maxBytes {
                throw SystemError(Errno(EFBIG), operation: "read", path: path, detail: "file is larger than the \(maxBytes)-byte limit")
            }
        }
    }

    /// Opens a file for writing, creating or truncating it, close-on-exec: `tapgrid show --output`.
    /// The corresponding C function is `open(O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC)`.
    /// - Throws: `SystemError` naming the path.
    public static func openForWriting(_ path: String, mode: mode_t = 0o644) throws(SystemError) -> OwnedFD {
        do throws(Errno) {
            return OwnedFD(taking: try retryingEINTR { open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) })
        } catch { throw error.with("open", path) }
    }

    /// Replaces the content of a file that exists, as sysfs attributes take a value (a backlight's
    /// `brightness`): opened without creating it (a missing file is an error, never made), the
    /// content truncated, `bytes` written in one `write`. The corresponding C functions are
    /// `open(O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK)` and `write`.
    /// - Throws: `SystemError` naming the call and the path (`EACCES`, `EROFS`, `ENOENT`, `EINVAL`...).
    public static func overwriteExisting(_ path: String, with bytes: [UInt8]) throws(SystemError) {
        let file: OwnedFD
        do throws(Errno) {
            file = OwnedFD(taking: try retryingEINTR { open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK) })
        } catch { throw error.with("open", path) }
        do throws(Errno) { try FD.writeAll(file.rawValue, bytes) } catch { throw error.with("write", path) }
    }

    /// Opens (creating if needed) a file for appending, close-on-exec: the event log.
    /// `O_APPEND` makes each `write` land at the end even if a rotator truncated the file.
    /// The corresponding C function is `open(O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC)`.
    /// - Parameter mode: permission bits for a new file (minus the umask).
    /// - Throws: `SystemError` naming the path.
    public static func openForAppending(_ path: String, mode: mode_t = 0o640) throws(SystemError) -> OwnedFD {
        do throws(Errno) {
            return OwnedFD(taking: try retryingEINTR { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode) })
        } catch { throw error.with("open", path) }
    }

    /// A descriptor kept in reserve (`/dev/null`, read-only, close-on-exec): closed when the
    /// process runs out of descriptors, so one more can be opened (to refuse a client cleanly),
    /// then taken again. The corresponding C function is `open`.
    /// - Returns: the descriptor, or nil when none is free.
    public static func openReserveDescriptor() -> OwnedFD? {
        guard let fd = try? retryingEINTR({ open("/dev/null", O_RDONLY | O_CLOEXEC) }) else { return nil }
        return OwnedFD(taking: fd)
    }

    /// The type of the entry at `path` without following a final symlink.
    /// The corresponding C function is `lstat`.
    /// - Returns: the type, or `nil` if nothing is there (or it cannot be examined).
    public static func fileType(_ path: String) -> FileType? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return fileType(mode: st.st_mode)
    }

    static func fileType(mode: mode_t) -> FileType? {
        switch mode & S_IFMT {
        case S_IFREG: return .regular
        case S_IFDIR: return .directory
        case S_IFLNK: return .symbolicLink
        case S_IFSOCK: return .socket
        case S_IFIFO: return .fifo
        case S_IFCHR: return .characterDevice
        case S_IFBLK: return .blockDevice
        default: return nil
        }
    }

    /// Whether anything exists at `path` (a dangling symlink counts). The C function is `lstat`.
    public static func fileExists(_ path: String) -> Bool { fileType(path) != nil }

    /// Whether `path` is a directory, following symlinks. The corresponding C function is `stat`.
    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether `path` is a regular file the daemon may execute, following symlinks.
    /// The corresponding C functions are `stat` and `access(X_OK)`.
    public static func isExecutableFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG && access(path, X_OK) == 0
    }

    /// The canonical absolute path: every symlink, `.` and `..` resolved.
    /// The corresponding C function is `realpath`.
    /// - Throws: `SystemError` (`ENOENT` if a component is missing).
    public static func realPath(_ path: String) throws(SystemError) -> String {
        guard let resolved = realpath(path, nil) else { throw Errno.current.with("resolve", path) }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Creates the missing folders above `path` (mode 0750), like `mkdir -p` of its parent;
    /// failures surface when the file itself is opened. The corresponding C function is `mkdir`.
    public static func makeParentDirectories(of path: String) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        guard !parts.isEmpty else { return }
        var current = path.hasPrefix("/") ? "" : "."
        if path.hasPrefix("/") { parts = parts.dropFirst() }
        for part in parts where !part.isEmpty {
            current += "/" + part
            if !isDirectory(current) { _ = mkdir(current, 0o750) }
        }
    }

    /// Which file is at `path` (device and inode, not following a final symlink), so a file
    /// can later be recognized as the same one. The corresponding C function is `lstat`.
    public static func identity(_ path: String) -> FileIdentity? {
        var st = stat()
        guard lstat(path, &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Which file `path` names now, following symlinks (a log path may be a symlink to the file).
    /// The corresponding C function is `stat`.
    /// - Returns: nil when nothing is there (deleted, or renamed away and not yet re-created).
    public static func identity(following path: String) -> FileIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Which file an open descriptor refers to, whatever it is called now (or if it was deleted).
    /// The corresponding C function is `fstat`.
    public static func identity(ofOpen fd: CInt) -> FileIdentity? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        return FileIdentity(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))
    }

    /// Whether the file at `path` is empty or ends in `byte` (the event log: does it end in a whole
    /// line?). Opened read-only on its own, since the log's descriptor is write-only.
    /// The corresponding C functions are `open`, `fstat`, `pread` and `close`.
    /// - Returns: true as well when it is missing or cannot be told (the caller changes nothing).
    public static func isEmptyOrEnds(_ path: String, with byte: UInt8) -> Bool {
        guard let fd = try? retryingEINTR({ open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }) else { return true }
        defer { Glibc.close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size > 0 else { return true }
        var last: UInt8 = 0
        guard pread(fd, &last, 1, st.st_size - 1) == 1 else { return true }
        return last == byte
    }

    /// Cuts the last `count` bytes off the open file `fd` (the part of a record that a failed
    /// append left behind). The corresponding C functions are `fstat` and `ftruncate`.
    /// - Throws: `Errno` from either call.
    public static func truncateTail(_ fd: CInt, removing count: Int) throws(Errno) {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        let size = max(0, Int64(st.st_size) - Int64(count))
        _ = try retryingEINTR { ftruncate(fd, off_t(size)) }
    }

    /// Replaces the file at `path` with `bytes` so that a crash or power loss at any moment leaves
    /// either the old file or the new one, whole: writes `temporaryPath` (in the same folder, so
    /// the rename stays on one file system; created or truncated, not following a symlink),
    /// `fsync`s it, renames it over `path`, then `fsync`s the folder so the rename itself is on
    /// disk. A failure removes the temporary file and leaves `path` as it was.
    /// The corresponding C functions are `open`, `write`, `fsync`, `rename` and `unlink`.
    /// - Parameters:
    ///   - temporaryPath: beside `path` (one name, reused: a crash leaves at most that one behind).
    ///   - mode: permission bits of a new file (minus the umask).
    /// - Throws: `SystemError` naming the step and its path: `cannot write /x/cells.json.tmp: No
    ///   space left on device (errno 28)`, `cannot rename /x/cells.json.tmp to /x/cells.json: ...`.
    public static func writeAtomically(
        _ bytes: [UInt8], to path: String, temporaryPath: String, mode: mode_t = 0o640
    ) throws(SystemError) {
        do throws(SystemError) {
            let raw: CInt
            do throws(Errno) {
                raw = try retryingEINTR { open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode) }
            } catch { throw error.with("create", temporaryPath) }
            let file = OwnedFD(taking: raw)
            do throws(Errno) { try FD.writeAll(file.rawValue, bytes) } catch { throw error.with("write", temporaryPath) }
            do throws(Errno) { _ = try retryingEINTR { fsync(file.rawValue) } } catch { throw error.with("fsync", temporaryPath) }
            if rename(temporaryPath, path) != 0 { throw Errno.current.with("rename", temporaryPath + " to " + path) }
        } catch {
            _ = unlink(temporaryPath)
            throw error
        }
        syncDirectory(of: path)
    }

    /// `fsync` of the folder that holds `path`, so a rename or a new name in it survives a power
    /// loss. Best effort: some file systems refuse to sync a folder (`EINVAL`), and the rename has
    /// happened either way. The corresponding C functions are `open(O_DIRECTORY)` and `fsync`.
    public static func syncDirectory(of path: String) {
        let folder = path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        guard let fd = try? retryingEINTR({ open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }) else { return }
        _ = fsync(fd)
        Glibc.close(fd)
    }

    /// Removes `path`. The corresponding C function is `unlink`.
    /// - Throws: `SystemError` naming the path.
    public static func remove(_ path: String) throws(SystemError) {
        if unlink(path) != 0 { throw Errno.current.with("remove", path) }
    }
}

/// A file's device and inode numbers: what makes it the same file whatever its name.
public struct FileIdentity: Hashable, Sendable {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }
}
