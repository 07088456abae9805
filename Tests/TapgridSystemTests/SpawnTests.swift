@preconcurrency import Glibc
import Testing

@testable import TapgridSystem
import TapgridTestSupport

extension SystemTests {
    @Suite struct SpawnTests {
        /// Runs `sh -c script`, returns (stdout, stderr, status).
        func runShell(_ script: String, environment: [String] = testEnvironment, workingDirectory: String? = nil) throws -> (String, String, ChildExitStatus) {
            let child = try Spawn.run(["sh", "-c", script], environment: environment, workingDirectory: workingDirectory)
            let out = try readToEnd(child.stdout.rawValue)
            let err = try readToEnd(child.stderr.rawValue)
            return (out, err, try waitForExit(child))
        }

        @Test func childHasCleanSignalStateEvenWhenParentBlocksSIGTERM() throws {
            try Signals.block([SIGTERM])
            defer { try? Signals.unblock([SIGTERM]) }
            #expect(Signals.isBlocked(SIGTERM))
            Signals.ignoreSIGPIPE()  // the daemon does this; children must get SIGPIPE back to default
            let (out, _, status) = try runShell("exec grep -E '^Sig(Blk|Ign):' /proc/self/status")
            #expect(status == .exited(0))
            #expect(out == "SigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n")
        }

        @Test func missingBinaryIsENOENT() throws {
            let error = #expect(throws: SystemError.self) {
                _ = try Spawn.run(["tapgrid-no-such-program"], environment: testEnvironment)
            }
            #expect(error?.description == "cannot spawn tapgrid-no-such-program: No such file or directory (errno 2)")
            let absolute = #expect(throws: SystemError.self) {
                _ = try Spawn.run(["/nonexistent/tapgrid-prog", "x"], environment: testEnvironment)
            }
            // Absolute paths are not pre-checked: this ENOENT is posix_spawn's own return value.
            #expect(absolute?.errno == Errno(ENOENT))
            #expect(absolute?.description == "cannot spawn /nonexistent/tapgrid-prog: No such file or directory (errno 2)")
        }

        @Test func pathLookupUsesChildEnvironment() throws {
            try withTemporaryDirectory { dir in
                let script = dir + "/hello-tapgrid"
                let fd = open(script, O_WRONLY | O_CREAT | O_CLOEXEC, 0o755)
                try #require(fd >= 0)
                try FD.writeAll(fd, Array("#!/bin/sh\necho \"hi $1 $FOO\"\n".utf8))
                FD.close(fd)
                let child = try Spawn.run(["hello-tapgrid", "there"], environment: ["PATH=/bin:" + dir, "FOO=bar"])
                #expect(try readToEnd(child.stdout.rawValue) == "hi there bar\n")
                #expect(try waitForExit(child) == .exited(0))
            }
        }

        @Test func environmentIsExactlyWhatWasGiven() throws {
            // `env` directly, not through sh (which would add PWD).
            let child = try Spawn.run(["env"], environment: ["PATH=/usr/bin:/bin", "TAPGRID_SEQ=42", "TAPGRID_NAME="])
            let out = try readToEnd(child.stdout.rawValue)
            #expect(try waitForExit(child) == .exited(0))
            #expect(out == "PATH=/usr/bin:/bin\nTAPGRID_SEQ=42\nTAPGRID_NAME=\n")
        }

        @Test func workingDirectoryAndStdin() throws {
            try withTemporaryDirectory { dir in
                let (out, err, status) = try runShell("pwd; cat; echo done >&2", workingDirectory: dir)
                #expect(status == .exited(0))
                #expect(out == dir + "\n")  // cat read /dev/null: nothing
                #expect(err == "done\n")
            }
            let error = #expect(throws: SystemError.self) {
                _ = try Spawn.run(["true"], environment: testEnvironment, workingDirectory: "/nonexistent-tapgrid")
            }
            #expect(error?.description == "cannot use working directory /nonexistent-tapgrid: Not a directory (errno 20)")
        }

        @Test func noDescriptorLeaksIntoChild() throws {
            let inheritable = dup(2)  // no CLOEXEC: only closefrom(3) keeps it out
            try #require(inheritable > 2)
            defer { FD.close(inheritable) }
            // `ls` itself holds one descriptor (3) on the directory it lists.
            let child = try Spawn.run(["ls", "-1", "/proc/self/fd"], environment: testEnvironment)
            let out = try readToEnd(child.stdout.rawValue)
            #expect(try waitForExit(child) == .exited(0))
            #expect(out == "0\n1\n2\n3\n")
        }

        @Test func noDescriptorLeaksInParentAfter100Children() throws {
            let before = listFDs()
            for i in 0..<100 {
                let child = try Spawn.run(["sh", "-c", "echo $0", "\(i)"], environment: testEnvironment)
                #expect(try readToEnd(child.stdout.rawValue) == "\(i)\n")
                #expect(try waitForExit(child) == .exited(0))
            }
            // Other suites run beside this one in the process: no descriptor may be left that was
            // not open before (one of theirs may be open for a moment, so check for 2 s).
            let deadline = Clock.monotonicNanos() + 2_000_000_000
            while !Set(listFDs()).isSubset(of: before) && Clock.monotonicNanos() < deadline { usleep(10_000) }
            #expect(Set(listFDs()).isSubset(of: before), "left open: \(Set(listFDs()).subtracting(before).sorted())")
        }

        @Test func childLeadsItsOwnProcessGroup() throws {
            let child = try Spawn.run(["sleep", "100"], environment: testEnvironment)
            #expect(getpgid(child.pid) == child.pid)
            #expect(getpgid(child.pid) != getpgrp())
            try Spawn.killGroup(child.pid, signal: SIGKILL)
            #expect(try waitForExit(child) == .signaled(SIGKILL))
        }

        @Test func killGroupReachesGrandchild() throws {
            let child = try Spawn.run(["sh", "-c", "sleep 100 & echo $!; exec sleep 100"], environment: testEnvironment)
            // Read the grandchild's pid from the first line of stdout.
            var bytes: [UInt8] = []
            while !bytes.contains(UInt8(ascii: "\n")) {
                #expect(waitReadable(child.stdout.rawValue))
                if try FD.read(child.stdout.rawValue, appendingTo: &bytes, maxBytes: 64) == .transferred(0) { break }
            }
            let grandchild = try #require(pid_t(String(decoding: bytes, as: UTF8.self).split(separator: "\n").first ?? ""))
            #expect(getpgid(grandchild) == child.pid)
            #expect(try Spawn.reap(child.pid) == nil)  // still running

            try Spawn.killGroup(child.pid, signal: SIGTERM)
            #expect(try waitForExit(child) == .signaled(SIGTERM))
            // The grandchild was reparented; it must be dead (gone, or a zombie awaiting its new parent).
            let deadline = Clock.monotonicNanos() + 5_000_000_000
            var dead = false
            while !dead && Clock.monotonicNanos() < deadline {
                let stat = (try? Files.readFile("/proc/\(grandchild)/stat", maxBytes: 4096)).map { String(decoding: $0, as: UTF8.self) }
                dead = stat == nil || stat!.contains(") Z ")
                if !dead { usleep(10_000) }
            }
            #expect(dead)
        }

        @Test(arguments: [("exit 0", ChildExitStatus.exited(0)), ("exit 3", .exited(3)), ("exit 255", .exited(255)),
                          ("kill -KILL $$", .signaled(SIGKILL)), ("kill -TERM $$", .signaled(SIGTERM)), ("kill -USR1 $$", .signaled(SIGUSR1))])
        func exitStatusDecoding(script: String, expected: ChildExitStatus) throws {
            let (_, _, status) = try runShell(script)
            #expect(status == expected)
        }

        @Test func exitStatusDescriptionAndReapErrors() throws {
            #expect(ChildExitStatus.exited(3).description == "exit 3")
            #expect(ChildExitStatus.signaled(SIGKILL).description == "killed by SIGKILL")
            #expect(ChildExitStatus(waitStatus: 3 << 8) == .exited(3))
            #expect(ChildExitStatus(waitStatus: 9) == .signaled(9))
            #expect(ChildExitStatus(waitStatus: 0x137f) == nil)  // stopped by SIGSTOP
            #expect(throws: Errno(ECHILD)) { _ = try Spawn.reap(1) }
        }

        @Test func pidfdBecomesReadableAtExit() throws {
            let child = try Spawn.run(["sleep", "100"], environment: testEnvironment)
            #expect(!waitReadable(child.pidfd.rawValue, timeoutMs: 50))
            try Spawn.killGroup(child.pid, signal: SIGTERM)
            #expect(waitReadable(child.pidfd.rawValue))
            #expect(try waitForExit(child) == .signaled(SIGTERM))
        }

        @Test(arguments: [(SIGKILL, "SIGKILL"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGCHLD, "SIGCHLD"),
                          (SIGUSR1, "SIGUSR1"), (SIGPIPE, "SIGPIPE"), (SIGWINCH, "SIGWINCH"), (SIGSYS, "SIGSYS"), (0, "SIG0"), (200, "SIG200")])
        func signalNames(signal: CInt, name: String) {
            #expect(Signals.name(signal) == name)
        }

        @Test func realtimeSignalNames() {
            let rtmin = __libc_current_sigrtmin()
            #expect(Signals.name(rtmin) == "SIGRTMIN")
            #expect(Signals.name(rtmin + 2) == "SIGRTMIN+2")
        }
    }
}
