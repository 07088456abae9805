import Foundation
@preconcurrency import Glibc
import Testing

@testable import TapgridCLI
import TapgridConfig
import TapgridSystem
import TapgridTestSupport

/// Running as root, `tapgrid check` (and the daemon, through the same loader) refuses config and
/// layout files that someone but root could change, as sshd's StrictModes does.
@Suite(.enabled(if: geteuid() == 0, "StrictModes apply to root only")) struct StrictModesTests {
    @Test func groupWritableConfigIsRefusedNamingFileAndFix() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        chmod(dir + "/tapgrid.json", 0o664)
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        #expect(result.out == """
            error: cannot read \(dir)/tapgrid.json: refused: it is writable by its group (mode 0664); running as root, tapgrid reads only config and layout files that only root can change (chmod go-w \(dir)/tapgrid.json)
            \(dir)/tapgrid.json: 1 error, 0 warnings

            """)
    }

    @Test func layoutFileOwnedByAnotherUserAndWorldWritableIsRefused() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        let layout = dir + "/other.json"
        chown(layout, 65534, 65534)
        chmod(layout, 0o646)
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        let nobody = getpwuid(65534).map { " (" + String(cString: $0.pointee.pw_name) + ")" } ?? ""
        #expect(result.out.contains("error: \(dir)/tapgrid.json: layouts.other.grid: cannot read \(layout): refused: it is owned by uid 65534\(nobody), not root and it is writable by others (mode 0646); running as root, tapgrid reads only config and layout files that only root can change (chown root \(layout); chmod go-w \(layout))"), "\(result.out)")
    }

    /// The folder the config is in may be written by others: the file is refused, naming the folder.
    @Test func configInAFolderOthersCanWriteIsRefusedNamingTheFolder() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        chmod(dir, 0o777)
        let result = run(["check", dir + "/tapgrid.json"])
        // The folder as it resolves (TMPDIR may reach it through a symlink).
        let folder = try Files.realPath(dir)
        #expect(result.code == 1)
        #expect(result.out == """
            error: cannot read \(dir)/tapgrid.json: refused: folder \(folder) is writable by its group and others (mode 0777); running as root, tapgrid reads only config and layout files in folders that only root can change (chmod go-w \(folder))
            \(dir)/tapgrid.json: 1 error, 0 warnings

            """)
    }

    /// Every folder up to `/` is looked at: here the one above the layout's folder belongs to
    /// another user. The config itself (in the sticky, root-owned /tmp) is read.
    @Test func layoutBelowAFolderOwnedByAnotherUserIsRefused() throws {
        let dir = try folder(["tapgrid.json": simpleConfig.replacingOccurrences(of: "other.json", with: "theirs/sub/other.json"),
                              "theirs/sub/other.json": otherLayout])
        defer { removeTempDir(dir) }
        chown(dir + "/theirs", 65534, 65534)
        chmod(dir + "/theirs", 0o755)
        chmod(dir + "/theirs/sub", 0o755)
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        let nobody = getpwuid(65534).map { " (" + String(cString: $0.pointee.pw_name) + ")" } ?? ""
        let theirs = try Files.realPath(dir + "/theirs")
        #expect(result.out.contains("cannot read \(dir)/theirs/sub/other.json: refused: folder \(theirs) is owned by uid 65534\(nobody), not root; running as root, tapgrid reads only config and layout files in folders that only root can change (chown root \(theirs))"), "\(result.out)")
    }

    @Test func rootOwnedFilesWithoutGroupOrOtherWriteAreRead() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeTempDir(dir) }
        chmod(dir + "/tapgrid.json", 0o600)
        chmod(dir + "/other.json", 0o444)
        #expect(run(["check", dir + "/tapgrid.json"]).code == 0)
    }
}

/// StrictModes' decision on a chain of folders (the file's, then each above it up to `/`), given
/// their status: no root needed, no files made.
@Suite struct StrictModesFolderTests {
    static func folder(_ path: String, _ mode: UInt32, owner: UInt32 = 0) -> (path: String, status: FileStatus) {
        (path, FileStatus(type: .directory, owner: owner, group: 0, permissions: mode))
    }

    @Test func rootsFoldersWithoutGroupOrOtherWritePass() {
        #expect(StrictModes.folderProblem([Self.folder("/etc/tapgrid", 0o755), Self.folder("/etc", 0o755), Self.folder("/", 0o755)]) == nil)
        #expect(StrictModes.folderProblem([Self.folder("/", 0o700)]) == nil)
    }

    /// Unlike sshd, a root-owned sticky folder others may write (`/tmp`) is accepted: they cannot
    /// rename, remove or replace root's entries in it.
    @Test func rootOwnedStickyFolderPasses() {
        #expect(StrictModes.folderProblem([Self.folder("/tmp/kiosk", 0o755), Self.folder("/tmp", 0o1777), Self.folder("/", 0o755)]) == nil)
        #expect(StrictModes.folderProblem([Self.folder("/srv/drop", 0o1770)]) == nil)
    }

    @Test func worldWritableFolderIsNamedWithItsModeAndFix() {
        #expect(StrictModes.folderProblem([Self.folder("/etc/tapgrid", 0o777), Self.folder("/etc", 0o755), Self.folder("/", 0o755)])
            == "refused: folder /etc/tapgrid is writable by its group and others (mode 0777); running as root, tapgrid reads only config and layout files in folders that only root can change (chmod go-w /etc/tapgrid)")
    }

    /// The nearest folder at fault is named, however far up it is.
    @Test func theNearestFolderAtFaultIsNamed() {
        let chain = [Self.folder("/srv/a/b", 0o755), Self.folder("/srv/a", 0o775), Self.folder("/srv", 0o757, owner: 4242), Self.folder("/", 0o755)]
        #expect(StrictModes.folderProblem(chain)
            == "refused: folder /srv/a is writable by its group (mode 0775); running as root, tapgrid reads only config and layout files in folders that only root can change (chmod go-w /srv/a)")
        #expect(StrictModes.folderProblem(Array(chain[2...]))
            == "refused: folder /srv is owned by uid 4242\(Self.name(4242)), not root and it is writable by others (mode 0757); running as root, tapgrid reads only config and layout files in folders that only root can change (chown root /srv; chmod go-w /srv)")
        #expect(StrictModes.folderProblem([Self.folder("/", 0o775)])
            == "refused: folder / is writable by its group (mode 0775); running as root, tapgrid reads only config and layout files in folders that only root can change (chmod go-w /)")
    }

    /// The sticky bit does not excuse a folder someone else owns: they may replace anything in it.
    @Test func stickyFolderOfAnotherUserIsRefused() {
        #expect(StrictModes.folderProblem([Self.folder("/home/kiosk/tmp", 0o1777, owner: 4242)])
            == "refused: folder /home/kiosk/tmp is owned by uid 4242\(Self.name(4242)), not root and it is writable by its group and others (mode 1777); running as root, tapgrid reads only config and layout files in folders that only root can change (chown root /home/kiosk/tmp; chmod go-w /home/kiosk/tmp)")
    }

    /// The file's own message is unchanged by the folder check.
    @Test func theFilesOwnMessageStays() {
        let file = FileStatus(type: .regular, owner: 0, group: 0, permissions: 0o664)
        #expect(StrictModes.problem(file, path: "/etc/tapgrid/tapgrid.json")
            == "refused: it is writable by its group (mode 0664); running as root, tapgrid reads only config and layout files that only root can change (chmod go-w /etc/tapgrid/tapgrid.json)")
    }

    static func name(_ uid: UInt32) -> String { UserDatabase.userName(uid).map { " (\($0))" } ?? "" }
}
