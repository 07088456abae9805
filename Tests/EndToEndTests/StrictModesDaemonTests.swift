import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// Running as root, `tapgridd` reads only config and layout files that only root can change
/// (README, "Config": StrictModes): at start it refuses to run, on reload it keeps the old config.
extension EndToEnd {
    @Suite(.enabled(if: geteuid() == 0, "StrictModes apply to root only")) struct StrictModesDaemonTests {
        @Test func worldWritableConfigStopsTheStartAndAReload() throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            let config = dir + "/tapgrid.json"
            try standardConfig().write(toFile: config, atomically: true, encoding: .utf8)
            chmod(config, 0o666)
            let refusal = "cannot read \(config): refused: it is writable by its group and others (mode 0666); running as root, tapgrid reads only config and layout files that only root can change (chmod go-w \(config))"
            let start = try runProgram(daemonBinary, ["--config", config])
            #expect(start.code == 1)
            #expect(start.err.contains(refusal), "\(start.err)")
            let check = try runProgram(daemonBinary, ["--check", "--config", config])
            #expect(check.code == 1 && (check.out + check.err).contains("error: " + refusal), "\(check.out)\(check.err)")

            // A running daemon: the reload is refused, the old config keeps serving.
            let daemon = try DaemonProcess()
            chmod(daemon.configPath, 0o620)
            let reply = try daemon.connect().request(#"{"op": "reload"}"#)
            #expect(reply.errorCode == "config_error")
            #expect(reply.errorMessage == "cannot read \(daemon.configPath): refused: it is writable by its group (mode 0620); running as root, tapgrid reads only config and layout files that only root can change (chmod go-w \(daemon.configPath))")
            #expect(try daemon.connect().request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
        }

        /// A folder above the config that others may write: the reload is refused naming the
        /// folder, the old config keeps serving; made root's alone again, the reload goes through.
        @Test func folderOthersCanWriteStopsAReload() throws {
            let daemon = try DaemonProcess()
            chmod(daemon.dir, 0o777)
            let reply = try daemon.connect().request(#"{"op": "reload"}"#)
            #expect(reply.errorCode == "config_error")
            #expect(reply.errorMessage == "cannot read \(daemon.configPath): refused: folder \(daemon.dir) is writable by its group and others (mode 0777); running as root, tapgrid reads only config and layout files in folders that only root can change (chmod go-w \(daemon.dir))")
            #expect(try daemon.connect().request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            chmod(daemon.dir, 0o700)
            #expect(try daemon.connect().request(#"{"op": "reload"}"#).errorCode == nil)
        }
    }
}
