@preconcurrency import Glibc

/// Opening input device nodes (`/dev/input/eventN`) for libinput's `open_restricted` callback.
public enum DeviceNodes {
    /// Opens an input device node non-blocking and close-on-exec, read-write when allowed,
    /// else read-only.
    ///
    /// libinput asks for `O_RDWR` (writes are for keyboard LEDs and force feedback); a
    /// touchscreen only needs to be read. The service's drop-in grants `DeviceAllow=char-input r`
    /// (read only: the device cgroup then refuses `O_RDWR` with `EPERM`), and some setups give
    /// read access only, so after `EACCES`/`EPERM` for read-write this tries read-only once.
    /// The corresponding C function is `open(path, flags | O_NONBLOCK | O_CLOEXEC)`.
    /// - Parameters:
    ///   - path: the device node (or a `/dev/input/by-path/...` link to it).
    ///   - flags: what libinput asked for (`O_RDWR | O_NONBLOCK | O_CLOEXEC` in 1.22);
    ///     `O_NONBLOCK | O_CLOEXEC` are added whatever it asked.
    /// - Returns: the open descriptor, owned by the caller.
    /// - Throws: `SystemError` (operation `open`) with the errno of the last attempt:
    ///   `ENOENT` for a missing node, `EACCES`/`EPERM` when it may not even be read.
    public static func openInput(_ path: String, flags: CInt = O_RDWR) throws(SystemError) -> OwnedFD {
        let always = O_NONBLOCK | O_CLOEXEC
        do throws(Errno) {
            return OwnedFD(taking: try retryingEINTR { open(path, flags | always) })
        } catch {
            let readWrite = flags & O_ACCMODE == O_RDWR
            guard readWrite, error.rawValue == EACCES || error.rawValue == EPERM else { throw error.with("open", path) }
        }
        do throws(Errno) {
            return OwnedFD(taking: try retryingEINTR { open(path, (flags & ~O_ACCMODE) | O_RDONLY | always) })
        } catch { throw error.with("open", path) }
    }

    /// Whether `error` means "not allowed" (`EACCES` or `EPERM`): the `input` group or a
    /// device cgroup is missing, as opposed to a missing or broken device.
    public static func isPermissionProblem(_ error: Errno) -> Bool {
        error.rawValue == EACCES || error.rawValue == EPERM
    }

    /// Whether `error` means the node is not there (`ENOENT`, or `ENODEV`/`ENXIO` for a node
    /// whose device is gone).
    public static func isMissing(_ error: Errno) -> Bool {
        error.rawValue == ENOENT || error.rawValue == ENODEV || error.rawValue == ENXIO
    }
}

extension DeviceNodes {
    /// The device number (`st_rdev`) of the node at `path`, symlinks followed (a
    /// `/dev/input/by-path/` link names its `eventN`). The corresponding C function is `stat`.
    /// - Throws: `Errno` from `stat` (`ENOENT`: nothing there, or a dangling link).
    public static func deviceNumber(_ path: String) throws(Errno) -> UInt64 {
        var st = stat()
        _ = try retryingEINTR { stat(path, &st) }
        return UInt64(st.st_rdev)
    }
}
