@preconcurrency import Glibc
import CSystemd
import TapgridSystem

/// A descriptor systemd passed at start (socket activation), with its `FileDescriptorName=`.
public struct PassedDescriptor: Hashable, Sendable {
    /// The descriptor number: 3, 4, ... (`SD_LISTEN_FDS_START` onwards).
    public var fd: CInt
    /// The socket unit's `FileDescriptorName=`, by default the socket unit's name
    /// (`tapgridd.socket`); `unknown` when the manager passed no names.
    public var name: String

    public init(fd: CInt, name: String) {
        self.fd = fd
        self.name = name
    }
}

/// Sockets passed by systemd socket activation (`LISTEN_PID`, `LISTEN_FDS`, `LISTEN_FDNAMES`).
///
/// The environment is left as it is (`unset_environment = 0`): `unsetenv` is not thread-safe,
/// `LISTEN_PID` already keeps any other process from taking the descriptors, and the daemon's
/// children get an allow-listed environment that never holds `LISTEN_*`.
public enum PassedSockets {
    /// The first passed descriptor's number, 3 (`SD_LISTEN_FDS_START`); the rest follow it.
    public static let firstDescriptor: CInt = SD_LISTEN_FDS_START

    /// The passed descriptors, in order, each marked close-on-exec by libsystemd. Empty when
    /// nothing was passed or `LISTEN_PID` is another process. Call once, at start.
    /// The corresponding C function is `sd_listen_fds_with_names(0, &names)`.
    /// - Throws: `SystemdError` naming `sd_listen_fds_with_names` for a malformed `LISTEN_*`
    ///   variable or a descriptor that cannot be marked close-on-exec (e.g. `EBADF`).
    public static func descriptors() throws(SystemdError) -> [PassedDescriptor] {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        let count = try SystemdError.check(sd_listen_fds_with_names(0, &names), "sd_listen_fds_with_names")
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        return (0..<count).map { index in
            let name = names?[Int(index)].map { String(cString: $0) } ?? "unknown"
            return PassedDescriptor(fd: SD_LISTEN_FDS_START + index, name: name)
        }
    }

    /// The one listening socket for the daemon: `nil` when systemd passed nothing (then the
    /// daemon binds its own), else the single passed descriptor once
    /// `checkUnixStreamListener` accepted it.
    /// - Throws: `SystemdError` when more than one descriptor was passed, or the one passed is
    ///   not a listening Unix stream socket.
    public static func listener() throws(SystemdError) -> PassedDescriptor? {
        try listener(among: descriptors().filter { $0.name != panelName })
    }

    /// `FileDescriptorName=` of the browser panel's socket, which `listener()` leaves out.
    public static let panelName = "panel"

    /// The socket unit's listening socket for the daemon, and the panel's (named `panel`), from
    /// one call of `descriptors()`.
    public static func listeners() throws(SystemdError) -> (socket: PassedDescriptor?, panel: PassedDescriptor?) {
        let passed = try descriptors()
        let panels = passed.filter { $0.name == panelName }
        guard panels.count <= 1 else {
            throw SystemdError("sd_listen_fds_with_names", Errno(EINVAL), detail: "systemd passed \(panels.count) sockets named panel; expected one")
        }
        return (try listener(among: passed.filter { $0.name != panelName }), panels.first)
    }

    private static func listener(among passed: [PassedDescriptor]) throws(SystemdError) -> PassedDescriptor? {
        guard let first = passed.first else { return nil }
        guard passed.count == 1 else {
            let list = passed.map { "\($0.fd) (\"\($0.name)\")" }.joined(separator: ", ")
            throw SystemdError(
                "sd_listen_fds_with_names", Errno(EINVAL),
                detail: "systemd passed \(passed.count) descriptors, \(list); expected one listening Unix stream socket")
        }
        try checkUnixStreamListener(first)
        return first
    }

    /// Checks that `descriptor` is a listening `AF_UNIX` `SOCK_STREAM` socket, as
    /// `ListenStream=/path` in the socket unit makes it; on failure says which part is wrong.
    /// The corresponding C functions are `sd_is_socket_unix(fd, SOCK_STREAM, 1, NULL, 0)` and,
    /// to explain a refusal, `sd_is_socket`.
    /// - Throws: `SystemdError` naming `sd_is_socket_unix`.
    public static func checkUnixStreamListener(_ descriptor: PassedDescriptor) throws(SystemdError) {
        let fd = descriptor.fd
        let function = "sd_is_socket_unix"
        if try SystemdError.check(sd_is_socket_unix(fd, CInt(SOCK_STREAM.rawValue), 1, nil, 0), function) > 0 { return }
        let what: String
        let code: CInt
        if sd_is_socket(fd, AF_UNSPEC, 0, -1) <= 0 {
            (what, code) = ("is not a socket", ENOTSOCK)
        } else if sd_is_socket(fd, AF_UNIX, 0, -1) <= 0 {
            (what, code) = ("is not a Unix socket", EAFNOSUPPORT)
        } else if sd_is_socket(fd, AF_UNIX, CInt(SOCK_STREAM.rawValue), -1) <= 0 {
            (what, code) = ("is not a stream socket", EPROTOTYPE)
        } else {
            (what, code) = ("is not listening", EINVAL)
        }
        throw SystemdError(
            function, Errno(code),
            detail: "passed descriptor \(fd) (\"\(descriptor.name)\") \(what); expected a listening Unix stream socket (ListenStream=/path in the socket unit)")
    }
}
