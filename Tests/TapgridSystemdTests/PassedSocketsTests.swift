@preconcurrency import Glibc
import Testing

import TapgridSystem
import TapgridTestSupport
@testable import TapgridSystemd

extension SystemdTests {
    @Suite struct PassedSocketsTests {
        /// Puts `fds` at 3, 4, ... as systemd would pass them, runs `body`, then closes them and
        /// puts back whatever this process had open at those numbers.
        func withPassedDescriptors<T>(_ fds: [CInt], _ body: () throws -> T) throws -> T {
            var saved: [(CInt, CInt)] = []
            for (index, fd) in fds.enumerated() {
                let target = PassedSockets.firstDescriptor + CInt(index)
                if fcntl(target, F_GETFD) != -1 {
                    let copy = fcntl(target, F_DUPFD_CLOEXEC, 100)
                    try #require(copy >= 0, "saving fd \(target): \(Errno.current)")
                    saved.append((target, copy))
                }
                try #require(dup2(fd, target) == target, "dup2 to \(target): \(Errno.current)")
            }
            defer {
                for index in fds.indices { close(PassedSockets.firstDescriptor + CInt(index)) }
                for (target, copy) in saved {
                    dup2(copy, target)
                    close(copy)
                }
            }
            return try body()
        }

        @Test func nothingPassed() throws {
            try withEnvironment(["LISTEN_PID": nil, "LISTEN_FDS": nil, "LISTEN_FDNAMES": nil]) { () throws in
                #expect(try PassedSockets.descriptors() == [])
                #expect(try PassedSockets.listener() == nil)
            }
            try withEnvironment(["LISTEN_PID": "1", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "tapgrid"]) { () throws in
                #expect(try PassedSockets.descriptors() == [])  // meant for another process
            }
        }

        @Test func aPassedListeningSocketIsTakenAndServes() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/tapgrid.sock"
                let listener = try unixSocket(SOCK_STREAM, boundTo: path, listening: true)
                try withPassedDescriptors([listener.rawValue]) {
                    let env: [String: String?] = ["LISTEN_PID": String(getpid()), "LISTEN_FDS": "1", "LISTEN_FDNAMES": "tapgridd.socket"]
                    try withEnvironment(env) { () throws in
                        _ = fcntl(3, F_SETFD, 0)  // systemd passes them inheritable
                        #expect(try PassedSockets.descriptors() == [PassedDescriptor(fd: 3, name: "tapgridd.socket")])
                        #expect(fcntl(3, F_GETFD) & FD_CLOEXEC != 0)  // libsystemd marks them close-on-exec
                        #expect(try PassedSockets.listener() == PassedDescriptor(fd: 3, name: "tapgridd.socket"))
                        // The environment is left alone (unset_environment = 0).
                        #expect(CurrentProcess.environment("LISTEN_FDS") == "1")

                        // Descriptor 3 really is the socket at `path`.
                        let client = try UnixClient(path: path, timeoutSeconds: 5)
                        let accepted = accept(3, nil, nil)
                        #expect(accepted >= 0)
                        if accepted >= 0 { close(accepted) }
                        _ = consume client
                    }
                    try withEnvironment(["LISTEN_PID": String(getpid()), "LISTEN_FDS": "1", "LISTEN_FDNAMES": nil]) { () throws in
                        #expect(try PassedSockets.descriptors() == [PassedDescriptor(fd: 3, name: "unknown")])
                    }
                }
            }
        }

        @Test func moreThanOnePassedDescriptorIsRefused() throws {
            try withTemporaryDirectory { dir in
                let a = try unixSocket(SOCK_STREAM, boundTo: dir + "/a.sock", listening: true)
                let b = try unixSocket(SOCK_STREAM, boundTo: dir + "/b.sock", listening: true)
                try withPassedDescriptors([a.rawValue, b.rawValue]) {
                    try withEnvironment(["LISTEN_PID": String(getpid()), "LISTEN_FDS": "2", "LISTEN_FDNAMES": "tap:ctl"]) { () throws in
                        #expect(try PassedSockets.descriptors() == [PassedDescriptor(fd: 3, name: "tap"), PassedDescriptor(fd: 4, name: "ctl")])
                        let error = #expect(throws: SystemdError.self) { try PassedSockets.listener() }
                        #expect(
                            error?.description
                                == "sd_listen_fds_with_names: systemd passed 2 descriptors, 3 (\"tap\"), 4 (\"ctl\"); expected one listening Unix stream socket")
                    }
                }
            }
        }

        @Test func malformedListenFDsIsAnError() throws {
            try withEnvironment(["LISTEN_PID": String(getpid()), "LISTEN_FDS": "three", "LISTEN_FDNAMES": nil]) { () throws in
                let error = #expect(throws: SystemdError.self) { try PassedSockets.descriptors() }
                #expect(error?.description == "sd_listen_fds_with_names: Invalid argument (errno 22)")
            }
        }

        @Test func onlyAListeningUnixStreamSocketIsAccepted() throws {
            try withTemporaryDirectory { dir in
                /// The error number and message of the refusal, with the descriptor shown as `N`.
                func refusal(_ fd: CInt) -> String? {
                    let error = #expect(throws: SystemdError.self) { try PassedSockets.checkUnixStreamListener(PassedDescriptor(fd: fd, name: "tapgridd.socket")) }
                    return error.map { "\($0.errno.rawValue) " + $0.description.split(separator: " ").map { $0 == "\(fd)" ? "N" : $0 }.joined(separator: " ") }
                }
                let expected = "expected a listening Unix stream socket (ListenStream=/path in the socket unit)"

                var pipeEnds: [CInt] = [0, 0]
                try #require(pipe(&pipeEnds) == 0)
                defer { close(pipeEnds[0]); close(pipeEnds[1]) }
                #expect(refusal(pipeEnds[0]) == "\(ENOTSOCK) sd_is_socket_unix: passed descriptor N (\"tapgridd.socket\") is not a socket; \(expected)")

                let inet = socket(AF_INET, CInt(SOCK_STREAM.rawValue), 0)
                try #require(inet >= 0)
                defer { close(inet) }
                #expect(refusal(inet) == "\(EAFNOSUPPORT) sd_is_socket_unix: passed descriptor N (\"tapgridd.socket\") is not a Unix socket; \(expected)")

                let datagram = try unixSocket(SOCK_DGRAM, boundTo: dir + "/d.sock")
                #expect(refusal(datagram.rawValue) == "\(EPROTOTYPE) sd_is_socket_unix: passed descriptor N (\"tapgridd.socket\") is not a stream socket; \(expected)")

                let idle = try unixSocket(SOCK_STREAM, boundTo: dir + "/s.sock")
                #expect(refusal(idle.rawValue) == "\(EINVAL) sd_is_socket_unix: passed descriptor N (\"tapgridd.socket\") is not listening; \(expected)")

                let closed = try unixSocket(SOCK_STREAM).release()
                close(closed)
                let error = #expect(throws: SystemdError.self) { try PassedSockets.checkUnixStreamListener(PassedDescriptor(fd: closed, name: "x")) }
                #expect(error?.description == "sd_is_socket_unix: Bad file descriptor (errno 9)")

                let good = try unixSocket(SOCK_STREAM, boundTo: dir + "/l.sock", listening: true)
                try PassedSockets.checkUnixStreamListener(PassedDescriptor(fd: good.rawValue, name: "tapgridd.socket"))
            }
        }
    }
}

