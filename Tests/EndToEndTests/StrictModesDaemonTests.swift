import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// Running as root, `tapgridd` reads only config and layout files that only root can change
/// (docs/configuration.md "Config": StrictModes): at start it refuses to run, on reload it keeps the old config.
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

        /// A config with `block` (`"mqtt": {...}` or `"panel": {...}`) added after the standard one's members.
        func config(with block: String) -> String {
            var text = standardConfig()
            let end = text.range(of: "}", options: .backwards)!
            text.replaceSubrange(end, with: block + ",}")  // the standard config ends with a comma
            return text
        }

        /// A secret file (`mqtt.passwordFile`, `panel.tokenFile`) its group may read: the daemon
        /// does not start (as `tapgrid check` refuses it), never connecting or serving without it;
        /// a running daemon whose file became readable keeps its config at a reload.
        @Test(arguments: [
            ("mqtt.passwordFile", "password", #""mqtt": {"broker": "127.0.0.1:9", "username": "kitchen", "passwordFile": "SECRET"}"#),
            ("panel.tokenFile", "token", #""panel": {"listen": "127.0.0.1:PORT", "tokenFile": "SECRET"}"#),
        ])
        func aSecretOthersCanReadStopsTheStartAndAReload(key: String, kind: String, block: String) throws {
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            let secret = dir + "/secret"
            try "an-ample-secret-of-24-chars\n".write(toFile: secret, atomically: true, encoding: .utf8)
            chmod(secret, 0o640)
            let port = try MosquittoBroker.freePort()
            let configText = config(with: block.replacingOccurrences(of: "SECRET", with: secret).replacingOccurrences(of: "PORT", with: "\(port)"))
            let configPath = dir + "/tapgrid.json"
            try configText.write(toFile: configPath, atomically: true, encoding: .utf8)
            chmod(configPath, 0o600)
            let refusal = "\(configPath): \(key): cannot read \(secret): refused: it is readable by its group (mode 0640); running as root, tapgrid reads a \(kind) only root can read (chmod go-rwx \(secret))"
            // Under `timeout`: a daemon that started anyway is stopped (124) and fails the test.
            let start = try runProgram("/usr/bin/timeout", ["5", daemonBinary, "--config", configPath])
            #expect(start.code == 1, "\(start.err)")
            #expect(start.err.contains(refusal), "\(start.err)")
            #expect(!start.err.contains("listening on"), "\(start.err)")
            let check = try runProgram(cliBinary, ["check", configPath])
            #expect(check.code != 0 && check.out.contains("error: " + refusal), "\(check.out)\(check.err)")

            // Readable by root alone, it starts; made readable again, a reload keeps the old config.
            chmod(secret, 0o600)
            let daemon = try DaemonProcess(config: configText)
            chmod(secret, 0o644)
            let reply = try daemon.connect().request(#"{"op": "reload", "id": 3}"#)
            #expect(reply.errorCode == "config_error")
            #expect(reply.errorMessage == refusal.replacingOccurrences(of: "0640", with: "0644").replacingOccurrences(of: configPath, with: daemon.configPath))
            let status = try daemon.connect().request(#"{"op": "status"}"#)
            #expect(status["generation"] as? Int == 1)
            #expect(try daemon.connect().request(#"{"x": 10, "y": 10}"#).string("outcome") == "dispatched")
            #expect(try daemon.stop() == 0)
        }
    }
}
