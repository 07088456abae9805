import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// `socket.allow` and `socket.allowControl` against a client that really is another user:
/// a Python client run as `nobody` (65534) through `setpriv`. Needs root, as CI runs.
extension EndToEnd {
    @Suite(.enabled(if: getuid() == 0 && access("/usr/bin/python3", X_OK) == 0, "needs root and /usr/bin/python3 to run a client as another uid"))
    struct AccessTests {
        func config(socket: String) -> String {
            """
            {
              "socket": { "path": "d.sock", "mode": "0666"\(socket) },
              "eventLog": false,
              "layouts": {
                "home": { "width": 100, "height": 100, "grid": { "cols": [ { "tag": 1 } ] } },
                "other": { "width": 100, "height": 100, "grid": { "cols": [ { "tag": 1 } ] } },
              },
              "initialLayout": "home",
            }
            """
        }

        /// Sends `lines` as uid/gid 65534 and returns every reply line until the daemon closes the
        /// connection or 3 s pass. A client in a process of its own, not `LineClient`: this
        /// process must keep root for the other tests, and a thread cannot change only its own uid.
        func asNobody(_ daemon: DaemonProcess, _ lines: [String], groups: [UInt32] = []) throws -> [String] {
            chmod(daemon.dir, 0o755)
            let script = """
                import socket, sys
                s = socket.socket(socket.AF_UNIX)
                s.settimeout(3)
                s.connect(sys.argv[1])
                for line in sys.argv[2:]:
                    try:
                        s.sendall(line.encode() + b"\\n")
                    except OSError:
                        break
                data = b""
                try:
                    while data.count(b"\\n") < len(sys.argv) - 2:
                        chunk = s.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                except OSError:
                    pass
                sys.stdout.write(data.decode())
                """
            let groupArguments = groups.isEmpty ? ["--clear-groups"] : ["--groups=" + groups.map(String.init).joined(separator: ",")]
            let result = try runProgram(
                "/usr/bin/setpriv",
                ["--reuid=65534", "--regid=65534"] + groupArguments + ["/usr/bin/python3", "-c", script, daemon.socketPath] + lines)
            return result.out.split(separator: "\n").map(String.init)
        }

        @Test func peerNotInAllowListGetsOneForbiddenAndIsClosed() throws {
            let daemon = try DaemonProcess(config: config(socket: #", "allow": { "uids": [4242], "gids": [4242] }"#))
            let replies = try asNobody(daemon, [#"{"x": 1, "y": 1}"#, #"{"op": "status"}"#])
            #expect(replies.count == 1)
            let reply = try parseObject(try #require(replies.first))
            #expect(reply.errorCode == "forbidden")
            #expect(reply.errorMessage == "uid 65534 may not connect (socket.allow)")
            // Root is always allowed.
            let root = try daemon.connect().request(#"{"x": 1, "y": 1}"#)
            #expect(root.string("outcome") == "dispatched")
        }

        @Test func primaryGroupInAllowListIsEnough() throws {
            let daemon = try DaemonProcess(config: config(socket: #", "allow": { "gids": [65534] }"#))
            let replies = try asNobody(daemon, [#"{"x": 1, "y": 1, "id": "g"}"#])
            let reply = try parseObject(try #require(replies.first))
            #expect(reply.string("id") == "g")
            #expect(reply.string("outcome") == "dispatched")
        }

        @Test func controlOpsNeedAllowControlButTheConnectionStays() throws {
            let daemon = try DaemonProcess(config: config(socket: #", "allowControl": { "uids": [4242] }"#))
            let replies = try asNobody(daemon, [
                #"{"op": "reload", "id": 1}"#, #"{"op": "use", "layout": "other", "id": 2}"#, #"{"x": 1, "y": 1, "id": 3}"#,
                #"{"op": "status", "id": 4}"#,
            ])
            #expect(replies.count == 4)
            let parsed = try replies.map(parseObject)
            #expect(parsed[0].errorCode == "forbidden")
            #expect(parsed[0].errorMessage == "uid 65534 may not reload (socket.allowControl)")
            #expect(parsed[1].errorCode == "forbidden")
            #expect(parsed[2].string("outcome") == "dispatched")
            #expect(parsed[3].string("layout") == "home")
            // Root may.
            let use = try daemon.connect().request(#"{"op": "use", "layout": "other"}"#)
            #expect(use["ok"] as? Bool == true)
        }

        /// Taps and control ops are allowed separately: a uid in `allow` may tap but not reload or
        /// switch layouts when `allowControl` lists only a gid it is not in; the connection stays.
        @Test func tapsAllowedByUidControlRefusedByGid() throws {
            let daemon = try DaemonProcess(config: config(socket: #", "allow": { "uids": [65534] }, "allowControl": { "gids": [4242] }"#))
            let replies = try asNobody(daemon, [
                #"{"x": 1, "y": 1, "id": 1}"#, #"{"op": "reload", "id": 2}"#, #"{"op": "use", "layout": "other", "id": 3}"#,
                #"{"x": 1, "y": 1, "id": 4}"#,
            ]).map(parseObject)
            #expect(replies.count == 4)
            #expect(replies.first?.string("outcome") == "dispatched")
            #expect(replies.dropFirst().first?.errorMessage == "uid 65534 may not reload (socket.allowControl)")
            #expect(replies.dropFirst(2).first?.errorMessage == "uid 65534 may not switch layouts (socket.allowControl)")
            #expect(replies.last?.string("outcome") == "dispatched")
        }

        /// A supplementary group (SO_PEERGROUPS) in `allowControl` lets a peer reload; the same
        /// peer without that group is refused.
        @Test func controlAllowedBySupplementaryGroup() throws {
            let daemon = try DaemonProcess(config: config(socket: #", "allowControl": { "gids": [4242] }"#))
            let member = try asNobody(daemon, [#"{"op": "reload", "id": 1}"#], groups: [4242]).map(parseObject)
            #expect(member.first?["ok"] as? Bool == true)
            #expect(member.first?.int("generation") == 2)
            let outsider = try asNobody(daemon, [#"{"op": "use", "layout": "other", "id": 2}"#], groups: [4243]).map(parseObject)
            #expect(outsider.first?.errorCode == "forbidden")
        }

        /// Taps allowed by a supplementary group only; a peer with no listed id is refused at connect.
        @Test func tapsAllowedBySupplementaryGroupOnly() throws {
            let daemon = try DaemonProcess(config: config(socket: #", "allow": { "gids": [4242] }"#))
            let member = try asNobody(daemon, [#"{"x": 1, "y": 1}"#], groups: [4242]).map(parseObject)
            #expect(member.first?.string("outcome") == "dispatched")
            let outsider = try asNobody(daemon, [#"{"x": 1, "y": 1}"#]).map(parseObject)
            #expect(outsider.count == 1 && outsider.first?.errorMessage == "uid 65534 may not connect (socket.allow)")
        }
    }
}

/// The socket's mode: `0600` when the config names none, whatever the umask (even 0), so no
/// other user can reach a daemon by default; a configured mode is applied exactly.
extension EndToEnd {
    @Suite struct SocketModeTests {
        func socketMode(_ daemon: DaemonProcess) -> mode_t {
            var st = stat()
            return stat(daemon.socketPath, &st) == 0 ? st.st_mode & 0o7777 : 0o7777
        }

        @Test func defaultSocketIsOwnerOnlyEvenUnderUmaskZero() throws {
            let daemon = try DaemonProcess(umask: 0)
            #expect(socketMode(daemon) == 0o600)
            #expect(socketMode(daemon) & 0o002 == 0, "never world-writable by default")
        }

        @Test func configuredModeIsAppliedExactly() throws {
            let daemon = try DaemonProcess(config: standardConfig(socketExtra: #", "mode": "0660""#))
            #expect(socketMode(daemon) == 0o660)
        }

        /// The shipped configs and units never open the socket to everyone.
        @Test func shippedConfigsAndUnitsAreNotWorldWritable() throws {
            for file in ["examples/tapgrid.json", "examples/installed/tapgrid.json"] {
                let text = try String(contentsOfFile: packageRoot.appendingPathComponent(file).path, encoding: .utf8)
                for mode in text.matches(of: /"mode"\s*:\s*"0?([0-7]{3})"/) {
                    #expect(Int(mode.1.suffix(1))! & 2 == 0, "\(file) has a world-writable socket mode \(mode.1)")
                }
            }
            let unit = try String(contentsOfFile: packageRoot.appendingPathComponent("systemd/tapgridd.socket").path, encoding: .utf8)
            #expect(unit.contains("SocketMode=0660"))
        }
    }
}
