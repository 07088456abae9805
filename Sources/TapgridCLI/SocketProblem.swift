import TapgridSystem

/// Why the daemon's socket cannot be used, in words that point at the fix: the path is no socket
/// at all, a folder on the way may not be entered, or the socket's owner, group and mode do not let
/// this user connect (and which group or mode would). Any of these still exits 69.
enum SocketProblem {
    /// A file or folder as the messages show it: names resolved, mode in octal.
    struct Entry: Equatable {
        var path: String
        var type: FileType?
        var owner: String
        var group: String
        var permissions: UInt32
    }

    /// The user running `tapgrid`, as the messages show it.
    struct User: Equatable {
        /// The user name, or `uid N` when it has none.
        var name: String
        /// Whether ``name`` is a real name (usable in `usermod`).
        var named: Bool
        /// Group names (or `gid N`), primary first.
        var groups: [String]

        var shown: String { groups.isEmpty ? name : "\(name); groups \(groups.joined(separator: ", "))" }
    }

    /// What to print when connecting to `path` failed with `error`.
    static func connectFailed(_ error: SystemError, socket path: String) -> String {
        if !error.isMissingFile, let problem = diagnose(path) { return problem }
        return "\(error.description) (is tapgridd running? set --socket or $TAPGRID_SOCKET)"
    }

    /// A problem with `path` that the file system shows without connecting, or nil when none shows.
    static func diagnose(_ path: String) -> String? {
        guard let status = try? Files.status(path) else {
            let folder = blockedFolder(on: path)
            return message(path: path, socket: nil, blockedFolder: folder.map(entry), mayWrite: false, user: currentUser())
        }
        return message(
            path: path, socket: entry(path, status), blockedFolder: nil, mayWrite: Files.mayAccess(path, .write),
            user: currentUser())
    }

    /// The message for what was found: pure, so every wording is tested without special files.
    /// - Parameters:
    ///   - socket: the path's own file, nil when it could not be looked at.
    ///   - blockedFolder: the first folder on the way this user may not enter, if any.
    ///   - mayWrite: whether this user may write the socket (what connecting needs).
    static func message(path: String, socket: Entry?, blockedFolder: Entry?, mayWrite: Bool, user: User) -> String? {
        let prefix = "cannot connect to \(path): "
        if let folder = blockedFolder {
            var text = prefix + "permission denied: you (\(user.shown)) may not enter the folder \(folder.path) (\(shown(folder)))"
            if folder.permissions & 0o010 != 0 {
                text += "; " + join(folder.group, user: user) + " or run as \(owners(folder))"
            } else {
                text += ", which lets only its owner in; run as \(owners(folder)), or put the socket in a folder you may enter (socket.path)"
            }
            return text
        }
        guard let socket else { return nil }
        if socket.type != .socket {
            return prefix + "it is \(describe(socket.type)), not a socket; name the daemon's socket with --socket or $TAPGRID_SOCKET"
        }
        guard !mayWrite, socket.permissions & 0o002 == 0 else { return nil }  // denied by something else (ACL, LSM)
        if socket.permissions & 0o020 != 0 {
            return prefix + "permission denied: the socket (\(shown(socket))) lets its owner and group \(socket.group) connect, and you (\(user.shown)) are neither; "
                + join(socket.group, user: user) + " or run as \(owners(socket))"
        }
        return prefix + "permission denied: the socket (\(shown(socket))) lets only its owner connect; run as \(owners(socket)), "
            + "or have tapgridd make it writable for a group you are in (socket.mode \"0660\"; under systemd SocketMode=0660 and SocketGroup=)"
    }

    /// `owner root, group tapgrid-clients, mode 0660`.
    static func shown(_ entry: Entry) -> String {
        "owner \(entry.owner), group \(entry.group), mode \(octal(entry.permissions))"
    }

    /// `join group G (usermod -aG G alice, then log in again)`.
    static func join(_ group: String, user: User) -> String {
        let command = user.named ? "usermod -aG \(group) \(user.name), then log in again" : "then log in again"
        return "join group \(group) (\(command))"
    }

    /// `root`, or `alice or root`: who may, whatever the mode says.
    static func owners(_ entry: Entry) -> String { entry.owner == "root" ? "root" : "\(entry.owner) or root" }

    static func octal(_ permissions: UInt32) -> String {
        let digits = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func describe(_ type: FileType?) -> String {
        switch type {
        case .regular?: return "a regular file"
        case .directory?: return "a folder"
        case .symbolicLink?: return "a symbolic link"
        case .fifo?: return "a FIFO"
        case .characterDevice?: return "a character device"
        case .blockDevice?: return "a block device"
        case .socket?: return "a socket"
        case nil: return "a special file"
        }
    }

    // MARK: - Looking at the file system

    /// The first folder of `path` (from the top) that this user may not enter.
    static func blockedFolder(on path: String) -> (String, FileStatus)? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).dropLast()
        var folder = path.hasPrefix("/") ? "" : "."
        for part in parts {
            folder += "/" + part
            if folder.hasPrefix("./") && !path.hasPrefix("./") { folder.removeFirst(2) }
            if !Files.mayAccess(folder, .search) {
                guard let status = try? Files.status(folder) else { return nil }
                return (folder, status)
            }
        }
        return nil
    }

    static func entry(_ path: String, _ status: FileStatus) -> Entry {
        Entry(
            path: path, type: status.type, owner: UserDatabase.userName(status.owner) ?? "uid \(status.owner)",
            group: UserDatabase.groupName(status.group) ?? "gid \(status.group)", permissions: status.permissions)
    }

    static func entry(_ found: (String, FileStatus)) -> Entry { entry(found.0, found.1) }

    static func currentUser() -> User {
        let uid = CurrentProcess.uid
        let name = UserDatabase.userName(uid)
        var gids = [CurrentProcess.gid]
        for gid in CurrentProcess.supplementaryGroups() where !gids.contains(gid) { gids.append(gid) }
        return User(
            name: name ?? "uid \(uid)", named: name != nil, groups: gids.map { UserDatabase.groupName($0) ?? "gid \($0)" })
    }
}
