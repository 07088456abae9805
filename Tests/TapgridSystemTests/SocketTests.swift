@preconcurrency import Glibc
import Testing

@testable import TapgridSystem
import TapgridTestSupport

extension SystemTests {
    @Suite struct SocketTests {
        @Test func listenConnectAcceptRoundTrip() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                let listener = try UnixSocket.listen(path: path, mode: 0o600, backlog: 16)
                #expect(try UnixSocket.accept(listener.rawValue) == nil)  // nothing pending: EAGAIN -> nil

                let client = try UnixClient(path: path, timeoutSeconds: 5)
                #expect(waitReadable(listener.rawValue))
                guard let server = try UnixSocket.accept(listener.rawValue) else {
                    Issue.record("no connection to accept")
                    return
                }
                #expect(try UnixSocket.accept(listener.rawValue) == nil)

                // Accepted connection is non-blocking and close-on-exec.
                #expect(fcntl(server.rawValue, F_GETFL) & O_NONBLOCK != 0)
                #expect(fcntl(server.rawValue, F_GETFD) & FD_CLOEXEC != 0)
                #expect(fcntl(listener.rawValue, F_GETFD) & FD_CLOEXEC != 0)

                try client.send(Array("{\"op\":\"status\"}\nsecond".utf8))
                try client.shutdownWrite()
                #expect(waitReadable(server.rawValue))
                var received: [UInt8] = []
                while true {
                    let r = try FD.read(server.rawValue, appendingTo: &received, maxBytes: 1024)
                    if r == .transferred(0) { break }
                    if r == .wouldBlock { waitReadable(server.rawValue) }
                }
                #expect(String(decoding: received, as: UTF8.self) == "{\"op\":\"status\"}\nsecond")

                let reply = Array("line one\nline two\r\ntail".utf8)
                let sent = reply.withUnsafeBytes { try? FD.send(server.rawValue, $0) }
                #expect(sent == .transferred(reply.count))
                _ = consume server  // close: the client sees end of stream after the tail
                var replies: [UInt8] = []
                while try client.read(appendingTo: &replies) {}
                #expect(String(decoding: replies, as: UTF8.self) == "line one\nline two\r\ntail")
            }
        }

        @Test func readTimesOut() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                let listener = try UnixSocket.listen(path: path)
                let client = try UnixClient(path: path, timeoutSeconds: 0.2)
                var bytes: [UInt8] = []
                let error = #expect(throws: SystemError.self) { _ = try client.read(appendingTo: &bytes) }
                #expect(error?.description == "cannot read from \(path): Connection timed out (errno 110)")
                _ = consume listener
            }
        }

        @Test func sendToClosedPeerIsEPIPENotSIGPIPE() throws {
            var fds: (CInt, CInt) = (-1, -1)
            let rc = withUnsafeMutablePointer(to: &fds) {
                $0.withMemoryRebound(to: CInt.self, capacity: 2) {
                    socketpair(AF_UNIX, CInt(SOCK_STREAM.rawValue) | CInt(SOCK_CLOEXEC.rawValue), 0, $0)
                }
            }
            try #require(rc == 0)
            FD.close(fds.1)
            defer { FD.close(fds.0) }
            let error = #expect(throws: Errno.self) { _ = try [UInt8(1)].withUnsafeBytes { try FD.send(fds.0, $0) } }
            #expect(error == Errno(EPIPE))
        }

        @Test func connectErrorNamesPath() throws {
            let error = #expect(throws: SystemError.self) { _ = try UnixClient(path: "/tmp/tapgrid-no-such-dir/x.sock") }
            #expect(error?.description == "cannot connect to /tmp/tapgrid-no-such-dir/x.sock: No such file or directory (errno 2)")
        }

        @Test func staleSocketIsReplaced() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                do { _ = try UnixSocket.listen(path: path) }  // closed at once: leaves a stale socket file
                #expect(Files.fileType(path) == .socket)
                let listener = try UnixSocket.listen(path: path)
                _ = try UnixClient(path: path, timeoutSeconds: 5)
                #expect(waitReadable(listener.rawValue))
            }
        }

        @Test func liveSocketIsNotStolen() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                let first = try UnixSocket.listen(path: path)
                let error = #expect(throws: SystemError.self) { _ = try UnixSocket.listen(path: path) }
                #expect(error?.description == "cannot listen on \(path): another process is listening on this socket")
                #expect(error?.errno == Errno(EADDRINUSE))
                _ = consume first
            }
        }

        @Test func regularFileAtPathIsRefusedAndUntouched() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                try #require(fd >= 0)
                try FD.writeAll(fd, Array("keep me".utf8))
                FD.close(fd)
                let error = #expect(throws: SystemError.self) { _ = try UnixSocket.listen(path: path) }
                #expect(error?.description == "cannot listen on \(path): the path exists and is not a socket; refusing to remove it")
                #expect(Files.fileType(path) == .regular)
                #expect(try Files.readFile(path, maxBytes: 100) == Array("keep me".utf8))
            }
        }

        @Test func tooLongPathIsRefused() throws {
            let path = "/tmp/" + String(repeating: "a", count: 120) + ".sock"
            let error = #expect(throws: SystemError.self) { _ = try UnixSocket.listen(path: path) }
            #expect(error?.description == "cannot listen on \(path): path is 130 bytes; a Unix socket path may have at most 107")
            #expect(error?.errno == Errno(ENAMETOOLONG))
            #expect(!Files.fileExists(path))
            let connectError = #expect(throws: SystemError.self) { _ = try UnixClient(path: path) }
            #expect(connectError?.description == "cannot connect to \(path): path is 130 bytes; a Unix socket path may have at most 107")
        }

        @Test(arguments: [mode_t(0o600), 0o660, 0o666])
        func socketModeIsApplied(mode: mode_t) throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                let listener = try UnixSocket.listen(path: path, mode: mode)
                var st = stat()
                #expect(stat(path, &st) == 0)
                #expect(st.st_mode & S_IFMT == S_IFSOCK)
                #expect(st.st_mode & 0o7777 == mode)
                _ = consume listener
            }
        }

        @Test func peerCredentialsAreOurs() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                let listener = try UnixSocket.listen(path: path)
                let client = try UnixClient(path: path, timeoutSeconds: 5)
                #expect(waitReadable(listener.rawValue))
                guard let server = try UnixSocket.accept(listener.rawValue) else {
                    Issue.record("no connection to accept")
                    return
                }
                let cred = try UnixSocket.peerCredentials(server.rawValue)
                #expect(cred == PeerCredentials(pid: getpid(), uid: getuid(), gid: getgid()))
                #expect(cred.uid == CurrentProcess.uid && cred.gid == CurrentProcess.gid)
                // SO_PEERGROUPS: the supplementary groups of the connecting process (us).
                var ours = [gid_t](repeating: 0, count: 256)
                let n = getgroups(256, &ours)
                try #require(n >= 0)
                #expect(Set(try UnixSocket.peerGroups(server.rawValue)) == Set(ours.prefix(Int(n))))
                _ = consume client
            }
        }

        @Test func adoptListenerSetsFlags() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/t.sock"
                // Simulate systemd: a blocking, inheritable listening socket.
                let raw = try makeUnixSocket(SOCK_STREAM, boundTo: path, listening: true, closeOnExec: false)
                let listener = try UnixSocket.adoptListener(raw)
                #expect(fcntl(listener.rawValue, F_GETFL) & O_NONBLOCK != 0)
                #expect(fcntl(listener.rawValue, F_GETFD) & FD_CLOEXEC != 0)
                #expect(try UnixSocket.accept(listener.rawValue) == nil)

                let notListening = try makeUnixSocket(SOCK_STREAM, closeOnExec: false)
                defer { FD.close(notListening) }
                let error = #expect(throws: SystemError.self) { _ = try UnixSocket.adoptListener(notListening) }
                #expect(error?.description == "cannot adopt listening socket descriptor \(notListening): not a listening socket")
            }
        }
    }
}
