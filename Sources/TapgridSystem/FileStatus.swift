@preconcurrency import Glibc

/// What `stat(2)` says about a file that matters for telling people why they may not use it.
public struct FileStatus: Sendable, Equatable {
    /// nil for a type ``FileType`` does not name.
    public var type: FileType?
    public var owner: UInt32
    public var group: UInt32
    /// The permission bits (`st_mode & 07777`).
    public var permissions: UInt32

    public init(type: FileType?, owner: UInt32, group: UInt32, permissions: UInt32) {
        self.type = type
        self.owner = owner
        self.group = group
        self.permissions = permissions
    }
}

/// The kinds of access `access(2)` checks.
public enum FileAccess: Sendable {
    /// `W_OK`: what connecting to a Unix socket needs.
    case write
    /// `X_OK` on a folder: entering it, which every folder on a path needs.
    case search

    var mode: CInt { self == .write ? W_OK : X_OK }
}

extension Files {
    /// The file's type, owner, group and permissions, following symlinks.
    /// The corresponding C function is `stat`.
    /// - Throws: `SystemError` like `cannot stat /x: Permission denied (errno 13)`.
    public static func status(_ path: String) throws(SystemError) -> FileStatus {
        var st = stat()
        guard stat(path, &st) == 0 else { throw Errno.current.with("stat", path) }
        return FileStatus(
            type: fileType(mode: st.st_mode), owner: st.st_uid, group: st.st_gid, permissions: UInt32(st.st_mode & 0o7777))
    }

    /// The status of an open descriptor (the file actually read, whatever its path names by now).
    /// The corresponding C function is `fstat`.
    /// - Throws: `Errno`.
    public static func status(ofOpen fd: CInt) throws(Errno) -> FileStatus {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw Errno.current }
        return FileStatus(
            type: fileType(mode: st.st_mode), owner: st.st_uid, group: st.st_gid, permissions: UInt32(st.st_mode & 0o7777))
    }

    /// The folder `folder` resolves to (`realpath`), then each folder above it up to `/`, with
    /// their status: the chain a file in `folder` is reached through, nearest first.
    /// The corresponding C functions are `realpath` and `stat`.
    /// - Throws: `SystemError` naming the folder that cannot be resolved or examined.
    public static func foldersUp(from folder: String) throws(SystemError) -> [(path: String, status: FileStatus)] {
        var current = try realPath(folder)
        var chain: [(path: String, status: FileStatus)] = []
        while true {
            chain.append((current, try status(current)))
            guard current != "/", let slash = current.lastIndex(of: "/") else { return chain }
            current = slash == current.startIndex ? "/" : String(current[..<slash])
        }
    }

    /// Whether this process (its real uid and gids, as `access(2)` checks) may access `path` so.
    /// The corresponding C function is `access`.
    public static func mayAccess(_ path: String, _ kind: FileAccess) -> Bool {
        access(path, kind.mode) == 0
    }
}

/// Names of users and groups from the system's databases (`/etc/passwd`, `/etc/group`, NSS).
public enum UserDatabase {
    /// The user's name, or nil when the uid has none. The corresponding C function is `getpwuid_r`.
    public static func userName(_ uid: UInt32) -> String? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.pw_name else {
            return nil
        }
        return String(cString: name)
    }

    /// The group's name, or nil when the gid has none. The corresponding C function is `getgrgid_r`.
    public static func groupName(_ gid: UInt32) -> String? {
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16384)
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else {
            return nil
        }
        return String(cString: name)
    }
}

extension CurrentProcess {
    /// The supplementary group ids. The corresponding C function is `getgroups`.
    public static func supplementaryGroups() -> [UInt32] {
        let count = getgroups(0, nil)
        guard count > 0 else { return [] }
        var groups = [gid_t](repeating: 0, count: Int(count))
        let filled = getgroups(count, &groups)
        return filled > 0 ? Array(groups[..<Int(filled)]) : []
    }
}
