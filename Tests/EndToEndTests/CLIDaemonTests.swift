import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// The built `tapgrid` against a running `tapgridd`: what people read at the terminal.
extension EndToEnd {
    @Suite struct CLIDaemonTests {
        /// Layout `home` 400x100: col 0 "web" tag 1 -> browser (a url handler whose command does not
        /// exist: failed), col 1 tag 2 "ftp://..." -> browser (denied), col 2 "slow" tag 3 -> slow
        /// (one child, no queue: busy while it sleeps), col 3 tag 99 unrouted; x >= 400 misses.
        /// Layout `other`: one grid, tag 1, action-data null.
        static let config = """
            {
              "socket": { "path": "d.sock" }, "eventLog": false,
              "layouts": {
                "home": { "width": 400, "height": 100, "grid": { "cols": [
                  { "name": "web", "tag": 1, "action-data": "https://example.org" },
                  { "tag": 2, "action-data": "ftp://example.org" },
                  { "name": "slow", "tag": 3, "action-data": "sleep 5" },
                  { "tag": 99 } ] } },
                "other": { "width": 100, "height": 100, "grid": { "rows": [ { "tag": 1, "action-data": null } ] } }
              },
              "initialLayout": "home",
              "handlers": {
                "browser": { "type": "url", "command": ["/nonexistent/open"] },
                "slow": { "type": "script", "interpreter": ["/bin/sh", "-c"], "maxConcurrent": 1, "queue": 0 }
              },
              "routes": [ { "tags": [1, 2], "handler": "browser" }, { "tags": [3], "handler": "slow" } ]
            }
            """

        @Test func hitThroughTheDaemonPrintsWhatOfflineHitPrints() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let expected = [
                (["50", "50"], #"home: 0 "web" tag 1 actionData "https://example.org" -> browser"#),
                (["350", "50"], "home: 3 tag 99 (unrouted)"),
                (["450", "50"], "home: miss"),
                (["5", "5", "--layout", "other"], "other: 0 tag 1 -> browser"),
            ]
            for (point, line) in expected {
                let online = try tapgrid(["hit"] + point + ["--socket", daemon.socketPath])
                let offline = try tapgrid(["hit"] + point + ["--config", daemon.configPath])
                #expect(online.code == 0 && offline.code == 0)
                #expect(online.out == line + "\n")
                #expect(offline.out == online.out)
            }
        }

        @Test func tapPrintsWhyItFailedWasDeniedOrBusy() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let socket = ["--socket", daemon.socketPath]
            let failed = try tapgrid(["tap", "50", "50"] + socket)
            #expect(failed.code == 0)
            #expect(failed.out == #"seq 1 home: 0 "web" tag 1 actionData "https://example.org" -> browser: failed: cannot spawn /nonexistent/open: No such file or directory (errno 2)"# + "\n")
            let denied = try tapgrid(["tap", "150", "50"] + socket)
            #expect(denied.out == #"seq 2 home: 1 tag 2 actionData "ftp://example.org" -> browser: denied: URL scheme "ftp" is not allowed (allowed: http, https)"# + "\n")
            let first = try tapgrid(["tap", "250", "50"] + socket)
            #expect(first.out == #"seq 3 home: 2 "slow" tag 3 actionData "sleep 5" -> slow: dispatched"# + "\n")
            let busy = try tapgrid(["tap", "250", "50"] + socket)
            #expect(busy.code == 0)
            #expect(busy.out == #"seq 4 home: 2 "slow" tag 3 actionData "sleep 5" -> slow: busy: handler slow already runs as many children as its maxConcurrent allows and its queue is full; the tap was not run"# + "\n")
            #expect(try daemon.stop() == 0)  // stops the sleeping child too
        }

        @Test func anUnknownLayoutListsTheDaemonsLayouts() throws {
            let daemon = try DaemonProcess(config: Self.config)
            let socket = ["--socket", daemon.socketPath]
            for arguments in [["tap", "1", "1", "--layout", "nope"], ["hit", "1", "1", "--layout", "nope"], ["use", "nope"]] {
                let result = try tapgrid(arguments + socket)
                #expect(result.code == 1)
                #expect(result.out.isEmpty)
                #expect(result.err == #"Error: unknown_layout: unknown layout "nope"; the layouts are "home", "other""# + "\n")
            }
        }
    }

    /// `tapgrid` run as `nobody` against sockets and folders it may not open: the message names the
    /// owner, group and mode and what would let it in, and the exit code stays 69.
    @Suite(.enabled(if: getuid() == 0 && access("/usr/bin/setpriv", X_OK) == 0, "needs root and setpriv to run tapgrid as another uid"))
    struct SocketPermissionTests {
        func asNobody(_ arguments: [String]) throws -> (code: Int32, out: String, err: String) {
            try runProgram(
                "/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", cliBinary] + arguments,
                environment: ["PATH": "/usr/bin:/bin"])
        }

        @Test func ownerOnlySocket() throws {
            let daemon = try DaemonProcess(config: standardConfig(socketExtra: #", "mode": "0600""#))
            chmod(daemon.dir, 0o755)
            let result = try asNobody(["status", "--socket", daemon.socketPath])
            #expect(result.code == 69)
            #expect(result.err == #"Error: cannot connect to \#(daemon.socketPath): permission denied: the socket (owner root, group root, mode 0600) lets only its owner connect; run as root, or have tapgridd make it writable for a group you are in (socket.mode "0660"; under systemd SocketMode=0660 and SocketGroup=)"# + "\n")
        }

        @Test func groupSocket() throws {
            let daemon = try DaemonProcess(config: standardConfig(socketExtra: #", "mode": "0660""#))
            chmod(daemon.dir, 0o755)
            chown(daemon.socketPath, 0, 100)  // group "users"
            let result = try asNobody(["tap", "1", "1", "--socket", daemon.socketPath])
            #expect(result.code == 69)
            #expect(result.err == "Error: cannot connect to \(daemon.socketPath): permission denied: the socket (owner root, group users, mode 0660) lets its owner and group users connect, and you (nobody; groups nogroup) are neither; join group users (usermod -aG users nobody, then log in again) or run as root\n")
        }

        @Test func closedFolder() throws {
            let daemon = try DaemonProcess(config: standardConfig(socketExtra: #", "mode": "0666""#))
            chmod(daemon.dir, 0o700)
            let result = try asNobody(["status", "--socket", daemon.socketPath])
            #expect(result.code == 69)
            #expect(result.err == "Error: cannot connect to \(daemon.socketPath): permission denied: you (nobody; groups nogroup) may not enter the folder \(daemon.dir) (owner root, group root, mode 0700), which lets only its owner in; run as root, or put the socket in a folder you may enter (socket.path)\n")
        }
    }
}
