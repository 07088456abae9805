import TapgridSystem

/// sshd's `StrictModes` for tapgrid's files. A config names the programs root runs (`script`
/// and `url` handlers, their interpreters and folders) and a layout chooses which of them a tap
/// reaches, so when root reads them, anyone who can change one of those files can make root run
/// what they like. Running as root (effective uid 0), tapgrid therefore reads a config or
/// layout file only when root owns it and neither its group nor others may write it; otherwise
/// the load fails with an error naming the file, what is wrong and the command that fixes it.
/// Other users read what they can: the files are then no way to more rights than theirs.
public enum StrictModes {
    /// Whether files are vetted: the process acts as root.
    public static var applies: Bool { CurrentProcess.effectiveUID == 0 }

    /// Why root must not read the file with `status` at `path`, or nil when it may.
    public static func problem(_ status: FileStatus, path: String) -> String? {
        var problems: [String] = [], fixes: [String] = []
        if status.owner != 0 {
            let name = UserDatabase.userName(status.owner).map { " (\($0))" } ?? ""
            problems.append("it is owned by uid \(status.owner)\(name), not root")
            fixes.append("chown root \(path)")
        }
        let writers = [(UInt32(0o020), "its group"), (UInt32(0o002), "others")].filter { status.permissions & $0.0 != 0 }.map(\.1)
        if !writers.isEmpty {
            problems.append("it is writable by \(writers.joined(separator: " and ")) (mode \(octal(status.permissions)))")
            fixes.append("chmod go-w \(path)")
        }
        guard !problems.isEmpty else { return nil }
        return "refused: " + problems.joined(separator: " and ")
            + "; running as root, tapgrid reads only config and layout files that only root can change ("
            + fixes.joined(separator: "; ") + ")"
    }

    /// `0664`: four octal digits, as `chmod` and `stat` show modes.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
