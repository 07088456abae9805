import CInput
@preconcurrency import Glibc
import TapgridSystem

/// What libinput's callbacks learn while it runs: why a device failed to open, and what it
/// logged. libinput calls `open_restricted`, `close_restricted` and the log handler
/// synchronously from inside its own functions (`libinput_path_add_device`,
/// `libinput_udev_assign_seat`, `libinput_dispatch`), on the reader's thread; the reader reads
/// this afterwards. Reached from C through the context's user data (unretained: the reader owns
/// it and outlives the context).
final class LibinputHooks {
    /// Opens that failed since the reader last looked: the node libinput asked for and the errno.
    var openFailures: [(node: String, error: Errno)] = []
    /// Messages libinput logged at error priority since the reader last looked (at most
    /// `maxMessages`; a storm of them is cut short rather than stored).
    var messages: [String] = []
    static let maxMessages = 32

    /// The `struct libinput_interface` libinput keeps a pointer to (so it lives at a fixed
    /// address until the context is gone).
    static func makeInterface() -> UnsafeMutablePointer<libinput_interface> {
        let interface = UnsafeMutablePointer<libinput_interface>.allocate(capacity: 1)
        interface.initialize(to: libinput_interface(
            open_restricted: { path, flags, userData in
                guard let path, let userData else { return -EINVAL }
                let hooks = Unmanaged<LibinputHooks>.fromOpaque(userData).takeUnretainedValue()
                let node = String(cString: path)
                do throws(SystemError) {
                    return try DeviceNodes.openInput(node, flags: flags).release()
                } catch {
                    hooks.openFailures.append((node, error.errno))
                    return -error.errno.rawValue
                }
            },
            close_restricted: { fd, _ in FD.close(fd) }))
        return interface
    }

    /// Sends libinput's messages of error priority to `messages` (the default handler would
    /// print them on stderr, outside the daemon's log). The corresponding C functions are
    /// `libinput_log_set_priority` and `libinput_log_set_handler`; the handler formats with
    /// `vsnprintf`.
    static func captureLog(of context: OpaquePointer) {
        libinput_log_set_priority(context, LIBINPUT_LOG_PRIORITY_ERROR)
        libinput_log_set_handler(context) { context, priority, format, arguments in
            guard let context, let format, let arguments, let userData = libinput_get_user_data(context) else { return }
            let hooks = Unmanaged<LibinputHooks>.fromOpaque(userData).takeUnretainedValue()
            guard hooks.messages.count < LibinputHooks.maxMessages else { return }
            var buffer = [UInt8](repeating: 0, count: 512)
            _ = buffer.withUnsafeMutableBufferPointer { raw in
                raw.withMemoryRebound(to: CChar.self) { vsnprintf($0.baseAddress, $0.count, format, arguments) }
            }
            var message = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
            while message.last == "\n" || message.last == " " { message.removeLast() }
            if !message.isEmpty { hooks.messages.append(message) }
        }
    }
}
