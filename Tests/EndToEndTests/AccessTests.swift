import Foundation
@preconcurrency import Glibc
import Testing

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
        /// connection or 3 s pass.
        func asNobody(_ daemon: DaemonProcess, _ lines: [String]) throws -> [String] {
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
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, daemon.socketPath] + lines
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
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
    }
}
