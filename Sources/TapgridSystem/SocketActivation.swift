@preconcurrency import Glibc

/// systemd socket activation (`sd_listen_fds`), without libsystemd.
public enum SocketActivation {
    /// The descriptors systemd passed (`LISTEN_FDS` of them starting at 3), if `LISTEN_PID` is
    /// our pid. Then removes `LISTEN_PID`, `LISTEN_FDS` and `LISTEN_FDNAMES` from our
    /// environment so children never see them. Hand each fd to `UnixSocket.adoptListener`.
    /// Call from `main` before threads exist (`unsetenv` is not thread-safe).
    /// The corresponding C function in libsystemd is `sd_listen_fds(1)`.
    /// - Returns: the passed descriptors; empty when not socket-activated.
    public static func listenFDs() -> [CInt] {
        defer {
            unsetenv("LISTEN_PID")
            unsetenv("LISTEN_FDS")
            unsetenv("LISTEN_FDNAMES")
        }
        guard let pidText = CurrentProcess.environment("LISTEN_PID"), let pid = pid_t(pidText), pid == getpid(),
            let countText = CurrentProcess.environment("LISTEN_FDS"), let count = CInt(countText), count > 0, count < 4096
        else { return [] }
        return Array(3..<(3 + count))
    }
}
