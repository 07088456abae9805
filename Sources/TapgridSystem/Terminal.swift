@preconcurrency import Glibc

/// Whether a standard stream is a terminal, so a command shows what only a person watching needs
/// (a progress line rewritten in place) and keeps pipes and log files free of it.
public enum Terminal {
    /// The corresponding C function is `isatty`.
    public static func isTerminal(_ fd: CInt) -> Bool { isatty(fd) == 1 }
}
