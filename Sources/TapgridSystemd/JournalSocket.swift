@preconcurrency import Glibc
import TapgridSystem

/// journald's native protocol, sent without ever waiting on journald.
///
/// `sd_journal_sendv` sends on a blocking socket (a journald that falls behind stops the
/// caller, here the whole event loop) and reports a missing socket (`ENOENT`) as success (the
/// record is gone and nobody is told). This sends each record as one datagram with
/// `MSG_DONTWAIT`, so every failure comes back at once: `ENOENT` or `ECONNREFUSED` when journald
/// is gone, `EAGAIN` when its queue is full. A record too large for one datagram (`EMSGSIZE`,
/// `ENOBUFS`) goes through `Journal.send` (`sd_journal_sendv`), which passes it in a memfd.
///
/// The wire format is libsystemd's: `NAME=value\n` per field, or `NAME\n` + the value's length
/// as 64-bit little endian + the value + `\n` for a value with a line break; then
/// `SYSLOG_IDENTIFIER=` the program's name, as libsystemd adds it. One thread only.
public final class JournalSocket {
    /// Where journald listens for native records.
    public static let defaultPath = "/run/systemd/journal/socket"
    /// SO_SNDBUF asked for, as libsystemd does (the kernel caps it at `wmem_max`).
    private static let sendBufferBytes: CInt = 8 << 20

    public let path: String
    /// Opened on the first send.
    private var socket: OwnedFD?
    private var fd: CInt { socket?.rawValue ?? -1 }
    private var address = sockaddr_un()
    /// `SYSLOG_IDENTIFIER=<basename of argv[0]>\n`.
    private let identifier: [UInt8]

    public init(path: String = defaultPath) {
        self.path = path
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(MemoryLayout.size(ofValue: address.sun_path) - 1))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let program = CommandLine.arguments.first.map { $0.split(separator: "/").last.map(String.init) ?? $0 } ?? ""
        identifier = Array("SYSLOG_IDENTIFIER=\(program)\n".utf8)
    }

    /// Sends `entry` as one record. The corresponding C function is `sendmsg` (`MSG_DONTWAIT`,
    /// through `UnixDatagram.send`: `EINTR` is retried there).
    /// - Throws: `SystemdError` naming `sendmsg` and the socket's path (`EINVAL` for an empty
    ///   entry), or `sd_journal_sendv`'s for a record sent through it.
    public func send(_ entry: JournalEntry) throws(SystemdError) {
        let ends = entry.ends
        guard !ends.isEmpty else { throw SystemdError("sendmsg", Errno(EINVAL), detail: "empty journal entry") }
        if fd < 0 {
            do throws(Errno) {
                socket = try UnixDatagram.open(sendBufferBytes: Self.sendBufferBytes)
            } catch { throw SystemdError("socket", error) }
        }
        let error: Errno
        switch datagram(entry, ends) {
        case .success(.transferred): return
        case .success(.wouldBlock): error = Errno(EAGAIN)
        case .failure(let failure): error = failure
        }
        if error.rawValue == EMSGSIZE || error.rawValue == ENOBUFS {
            try Journal.send(entry)
            return
        }
        throw SystemdError("sendmsg", error, detail: "\(path): \(error)")
    }

    /// One `sendmsg` of the entry's fields (the `iovec`s point into its buffer), then the identifier
    /// (`UnixDatagram.send`).
    private func datagram(_ entry: JournalEntry, _ ends: [Int]) -> Result<FD.IOResult, Errno> {
        var target = address
        var newline: UInt8 = 0x0A
        return entry.bytes.withUnsafeBytes { raw in
            identifier.withUnsafeBytes { name in
                withUnsafeMutablePointer(to: &newline) { newline in
                    withUnsafeTemporaryAllocation(of: UInt64.self, capacity: ends.count) { lengths in
                        withUnsafeTemporaryAllocation(of: iovec.self, capacity: ends.count * 5 + 1) { vectors in
                            var count = 0
                            func add(_ base: UnsafeRawPointer?, _ length: Int) {
                                vectors[count] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: length)
                                count += 1
                            }
                            var start = 0
                            for (index, end) in ends.enumerated() {
                                let field = UnsafeRawBufferPointer(rebasing: raw[start..<end])
                                start = end
                                let equals = field.firstIndex(of: 0x3D) ?? field.count
                                let value = UnsafeRawBufferPointer(rebasing: field[min(equals + 1, field.count)...])
                                if value.contains(0x0A) {
                                    add(field.baseAddress, equals)
                                    add(newline, 1)
                                    lengths[index] = UInt64(value.count).littleEndian
                                    add(lengths.baseAddress! + index, 8)
                                    add(value.baseAddress, value.count)
                                } else {
                                    add(field.baseAddress, field.count)
                                }
                                add(newline, 1)
                            }
                            add(name.baseAddress, name.count)
                            return withUnsafeMutablePointer(to: &target) { target in
                                var header = msghdr()
                                header.msg_name = UnsafeMutableRawPointer(target)
                                header.msg_namelen = socklen_t(MemoryLayout<sockaddr_un>.size)
                                header.msg_iov = vectors.baseAddress
                                header.msg_iovlen = count
                                do throws(Errno) { return .success(try UnixDatagram.send(fd, &header)) } catch {
                                    return .failure(error)
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
