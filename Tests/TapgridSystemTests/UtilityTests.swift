@preconcurrency import Glibc
import Testing

@testable import TapgridSystem
import TapgridTestSupport

extension SystemTests {
    @Suite struct UtilityTests {
        @Test func errnoAndSystemErrorText() {
            #expect(Errno(ENOENT).description == "No such file or directory (errno 2)")
            #expect(SystemError(Errno(ENOENT), operation: "connect to", path: "/run/x.sock").description
                == "cannot connect to /run/x.sock: No such file or directory (errno 2)")
            #expect(SystemError(Errno(EMFILE), operation: "accept").description == "cannot accept: Too many open files (errno 24)")
        }

        @Test func retryingEINTRRetriesAndThrows() {
            var calls = 0
            let value = try? retryingEINTR { () -> CInt in
                calls += 1
                if calls < 3 { errno = EINTR; return -1 }
                return 7
            }
            #expect(value == 7 && calls == 3)
            #expect(throws: Errno(EBADF)) { _ = try retryingEINTR { () -> CInt in errno = EBADF; return -1 } }
        }

        /// A duplicate is a descriptor of its own (closed apart from the original), 3 or above,
        /// closed on exec; a descriptor that is not open is an error.
        @Test func duplicateIsOwnedAndClosedOnExec() throws {
            var ends: [CInt] = [-1, -1]
            #expect(pipe(&ends) == 0)
            defer { FD.close(ends[1]) }
            let copy = try FD.duplicate(ends[0])
            #expect(copy.rawValue >= 3 && copy.rawValue != ends[0])
            #expect(fcntl(copy.rawValue, F_GETFD) & FD_CLOEXEC != 0)
            FD.close(ends[0])
            try FD.writeAll(ends[1], Array("x".utf8))
            var byte: [UInt8] = [0]
            #expect(try byte.withUnsafeMutableBytes { try FD.read(copy.rawValue, into: $0) } == .transferred(1))
            #expect(throws: Errno(EBADF)) { _ = try FD.duplicate(-1) }
        }

        @Test func readFileLimitsAndErrors() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/config.json"
                let fd = try Files.openForAppending(path)
                try FD.writeAll(fd.rawValue, Array("0123456789".utf8))
                try FD.writeAll(fd.rawValue, Array("ab".utf8))
                _ = consume fd
                #expect(try Files.readFile(path, maxBytes: 12) == Array("0123456789ab".utf8))
                let tooBig = #expect(throws: SystemError.self) { _ = try Files.readFile(path, maxBytes: 11) }
                #expect(tooBig?.description == "cannot read \(path): file is larger than the 11-byte limit")
                #expect(tooBig?.errno == Errno(EFBIG))
                let missing = #expect(throws: SystemError.self) { _ = try Files.readFile(dir + "/nope", maxBytes: 10) }
                #expect(missing?.description == "cannot read \(dir)/nope: No such file or directory (errno 2)")
                let endless = #expect(throws: SystemError.self) { _ = try Files.readFile("/dev/zero", maxBytes: 100_000) }
                #expect(endless?.errno == Errno(EFBIG))
            }
        }

        @Test func writeAtomicallyReplacesWholeAndLeavesNoTemporaryFile() throws {
            try withTemporaryDirectory { dir in
                let path = dir + "/cells.json"
                let temporary = path + ".tmp"
                try Files.writeAtomically(Array("first\n".utf8), to: path, temporaryPath: temporary)
                #expect(try Files.readFile(path, maxBytes: 100) == Array("first\n".utf8))
                #expect(!Files.fileExists(temporary))
                var st = stat()
                #expect(stat(path, &st) == 0 && st.st_mode & 0o777 == 0o640 & ~currentUmask())
                // A leftover temporary file (a crash mid-write) is truncated and reused.
                let leftover = try Files.openForAppending(temporary)
                try FD.writeAll(leftover.rawValue, Array(String(repeating: "x", count: 100).utf8))
                _ = consume leftover
                let identity = Files.identity(path)
                try Files.writeAtomically(Array("second".utf8), to: path, temporaryPath: temporary)
                #expect(try Files.readFile(path, maxBytes: 100) == Array("second".utf8))
                #expect(Files.identity(path) != identity)  // a new file renamed over, not rewritten in place
                #expect(!Files.fileExists(temporary))

                // Failures name the step and the path, and leave the old file and no temporary one.
                let missing = #expect(throws: SystemError.self) {
                    try Files.writeAtomically([1], to: dir + "/none/cells.json", temporaryPath: dir + "/none/cells.json.tmp")
                }
                #expect(missing?.description == "cannot create \(dir)/none/cells.json.tmp: No such file or directory (errno 2)")
                mkdir(dir + "/taken", 0o755)
                let onFolder = #expect(throws: SystemError.self) {
                    try Files.writeAtomically([1], to: dir + "/taken", temporaryPath: temporary)
                }
                #expect(onFolder?.description == "cannot rename \(temporary) to \(dir)/taken: Is a directory (errno 21)")
                #expect(!Files.fileExists(temporary) && Files.isDirectory(dir + "/taken"))
                #expect(try Files.readFile(path, maxBytes: 100) == Array("second".utf8))
            }
        }

        @Test func fileTypesAndContainment() throws {
            try withTemporaryDirectory { dir in
                let scripts = dir + "/scripts"
                mkdir(scripts, 0o755)
                let target = scripts + "/hello"
                FD.close(open(target, O_WRONLY | O_CREAT | O_CLOEXEC, 0o755))
                FD.close(open(dir + "/outside", O_WRONLY | O_CREAT | O_CLOEXEC, 0o755))
                symlink("hello", scripts + "/alias")
                symlink("../outside", scripts + "/escape")
                symlink("/nonexistent", scripts + "/dangling")

                #expect(Files.fileType(scripts) == .directory)
                #expect(Files.fileType(target) == .regular)
                #expect(Files.fileType(scripts + "/alias") == .symbolicLink)
                #expect(Files.fileType(dir + "/none") == nil)
                #expect(Files.fileExists(scripts + "/dangling"))
                #expect(Files.isDirectory(scripts) && !Files.isDirectory(target))
                #expect(Files.isExecutableFile(scripts + "/alias"))

                let realScripts = try Files.realPath(scripts)
                #expect(try Files.realPath(scripts + "/alias") == realScripts + "/hello")
            }
        }

        @Test func realtimeIsNow() {
            let now = Clock.realtime()
            #expect(now.seconds > 1_795_000_000 && (0..<1_000_000_000).contains(now.nanoseconds))
        }

        @Test func monotonicClockAdvances() {
            let a = Clock.monotonicNanos()
            usleep(2000)
            #expect(Clock.monotonicNanos() - a >= 2_000_000)
        }

        @Test func processHelpers() throws {
            let id = CurrentProcess.randomRunID()
            #expect(id.count == 32 && id.utf8.allSatisfy { "0123456789abcdef".utf8.contains($0) })
            #expect(id != CurrentProcess.randomRunID())
            #expect(CurrentProcess.environment("PATH") != nil)
            #expect(CurrentProcess.environment("TAPGRID_SURELY_UNSET_VARIABLE") == nil)
            #expect(CurrentProcess.uid == getuid() && CurrentProcess.gid == getgid() && CurrentProcess.pid == getpid())
            let limit = try CurrentProcess.raiseFileLimit()
            var rl = rlimit()
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &rl)
            #expect(limit == (rl.rlim_cur == rlim_t.max ? Int64.max : Int64(rl.rlim_cur)))
            #expect(rl.rlim_cur == rl.rlim_max)
        }
    }
}

/// The process's umask, read by setting it and putting it back.
private func currentUmask() -> mode_t {
    let mask = umask(0o022)
    umask(mask)
    return mask
}
