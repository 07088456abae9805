import TapgridSystem

/// sshd's `StrictModes` for tapgrid's files. A config names the programs root runs (`script`
/// and `url` handlers, their interpreters and folders) and a layout chooses which of them a tap
/// reaches, so when root reads them, anyone who can change one of those files can make root run
/// what they like. Running as root (effective uid 0), tapgrid therefore reads a config or
/// layout file only when root owns it and neither its group nor others may write it, and only
/// when the same holds for every folder from the file's own up to `/` (whoever may write a
/// folder may replace the files in it); otherwise the load fails with an error naming the file
/// or folder, what is wrong and the command that fixes it.
/// Other users read what they can: the files are then no way to more rights than theirs.
///
/// One difference from sshd: a root-owned folder with the sticky bit (`/tmp`, mode `1777`) is
/// accepted although others may write it. Others can then add entries but not rename, remove
/// or replace root's, and the folders and file below it are checked themselves.
public enum StrictModes {
    /// Whether files are vetted: the process acts as root.
    public static var applies: Bool { CurrentProcess.effectiveUID == 0 }

    /// Why root must not read the file with `status` at `path`, or nil when it may.
    public static func problem(_ status: FileStatus, path: String) -> String? {
        let (problems, fixes) = findings(status, path: path, isFolder: false)
        guard !problems.isEmpty else { return nil }
        return "refused: " + problems.joined(separator: " and ")
            + "; running as root, tapgrid reads only config and layout files that only root can change ("
            + fixes.joined(separator: "; ") + ")"
    }

    /// Why root must not read a file in the first of `folders` (the file's folder, then each
    /// folder above it up to `/`, as ``TapgridSystem/Files/foldersUp(from:)`` gives them), or nil
    /// when all of them are root's alone. Names the nearest folder at fault.
    public static func folderProblem(_ folders: [(path: String, status: FileStatus)]) -> String? {
        for folder in folders {
            let (problems, fixes) = findings(folder.status, path: folder.path, isFolder: true)
            guard !problems.isEmpty else { continue }
            let what = String(problems.joined(separator: " and ").dropFirst("it ".count))
            return "refused: folder \(folder.path) " + what
                + "; running as root, tapgrid reads only config and layout files in folders that only root can change ("
                + fixes.joined(separator: "; ") + ")"
        }
        return nil
    }

    /// What is wrong with one file or folder (`it is ...`), and the commands that fix it.
    private static func findings(_ status: FileStatus, path: String, isFolder: Bool) -> (problems: [String], fixes: [String]) {
        var problems: [String] = [], fixes: [String] = []
        if status.owner != 0 {
            let name = UserDatabase.userName(status.owner).map { " (\($0))" } ?? ""
            problems.append("it is owned by uid \(status.owner)\(name), not root")
            fixes.append("chown root \(path)")
        }
        // A root-owned sticky folder: others may add entries, not touch root's.
        let sticky = isFolder && status.owner == 0 && status.permissions & 0o1000 != 0
        let writers = [(UInt32(0o020), "its group"), (UInt32(0o002), "others")].filter { status.permissions & $0.0 != 0 }.map(\.1)
        if !writers.isEmpty && !sticky {
            problems.append("it is writable by \(writers.joined(separator: " and ")) (mode \(octal(status.permissions)))")
            fixes.append("chmod go-w \(path)")
        }
        return (problems, fixes)
    }

    /// `0664`: four octal digits, as `chmod` and `stat` show modes.
    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode & 0o7777, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
