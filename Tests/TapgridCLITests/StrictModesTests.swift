import Foundation
@preconcurrency import Glibc
import Testing

@testable import TapgridCLI

/// Running as root, `tapgrid check` (and the daemon, through the same loader) refuses config and
/// layout files that someone but root could change, as sshd's StrictModes does.
@Suite(.enabled(if: geteuid() == 0, "StrictModes apply to root only")) struct StrictModesTests {
    @Test func groupWritableConfigIsRefusedNamingFileAndFix() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeFolder(dir) }
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
        defer { removeFolder(dir) }
        let layout = dir + "/other.json"
        chown(layout, 65534, 65534)
        chmod(layout, 0o646)
        let result = run(["check", dir + "/tapgrid.json"])
        #expect(result.code == 1)
        let nobody = getpwuid(65534).map { " (" + String(cString: $0.pointee.pw_name) + ")" } ?? ""
        #expect(result.out.contains("error: \(dir)/tapgrid.json: layouts.other.grid: cannot read \(layout): refused: it is owned by uid 65534\(nobody), not root and it is writable by others (mode 0646); running as root, tapgrid reads only config and layout files that only root can change (chown root \(layout); chmod go-w \(layout))"), "\(result.out)")
    }

    @Test func rootOwnedFilesWithoutGroupOrOtherWriteAreRead() throws {
        let dir = try folder(["tapgrid.json": simpleConfig, "other.json": otherLayout])
        defer { removeFolder(dir) }
        chmod(dir + "/tapgrid.json", 0o600)
        chmod(dir + "/other.json", 0o444)
        #expect(run(["check", dir + "/tapgrid.json"]).code == 0)
    }
}
