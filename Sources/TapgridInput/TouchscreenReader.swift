import CInput
import TapgridSystem

/// Reads touchscreens through libinput: one libinput context, its one descriptor for the
/// caller's event loop (`fd`), and `read` to turn what libinput queued into plain Swift values.
///
/// Loop-owned: no thread, never blocks (every device is opened `O_NONBLOCK`); call `read` when
/// `fd` is readable. Two backends, as `touch` in the config chooses:
/// - `.paths`: `libinput_path_create_context` + `libinput_path_add_device` per configured path.
///   A path that is missing, cannot be opened, or whose device vanished (`DEVICE_REMOVED`:
///   unplugged, suspended) is tried again every `retryInterval` through `retry` (the caller's
///   timer): the path backend has no hotplug of its own, and a timer needs no inotify watch on
///   folders that udev recreates (`/dev/input/by-path`). A device that is not a touchscreen is
///   dropped for good.
/// - `.seat`: `libinput_udev_create_context` + `libinput_udev_assign_seat`: every touchscreen of
///   the seat, followed by libinput through udev as they come and go. Other input devices of
///   the seat are switched off at once (`LIBINPUT_CONFIG_SEND_EVENTS_DISABLED`, which closes
///   them).
///
/// Contacts are held until their frame (`LIBINPUT_EVENT_TOUCH_FRAME`) ends, then handed out in
/// order; `up` and `cancel` carry the slot's last position (libinput gives none for them).
public final class TouchscreenReader {
    public enum Backend: Sendable, Equatable {
        /// `touch.devices`: these device paths, through the path backend.
        case paths([String])
        /// `touch.seat`: every touchscreen of this udev seat, through the udev backend.
        case seat(String)
    }

    /// How often the path backend tries a missing configured path again (`retry`).
    public static let retryInterval: Duration = .seconds(2)

    public let backend: Backend
    /// `libinput_get_fd`: readable when libinput has something to dispatch.
    public let fd: CInt

    /// `struct libinput *`.
    private let context: OpaquePointer
    /// `struct udev *`: the udev backend's, and for the path backend the one that checks a device
    /// is set up before libinput gets it; also tells touchscreens among failed nodes.
    private let udev: OpaquePointer
    private let interface: UnsafeMutablePointer<libinput_interface>
    private let hooks = LibinputHooks()

    // The per-event state is `@exclusivity(unchecked)`: the reader is loop-owned (one thread,
    // never re-entered: libinput calls back only into `hooks`), and a checked `var` of a class
    // costs a runtime exclusivity check (~85 instructions) on every access, several per contact.

    /// Open touchscreens; a device's user data is its index + 1 here.
    @exclusivity(unchecked) private var entries: [Entry?] = []
    /// `entries[i].info.name`, apart: what each contact carries, without copying the entry.
    @exclusivity(unchecked) private var names: [String] = []
    private var freeEntries: [Int] = []
    /// The configured paths (path backend), in order.
    private var paths: [ConfiguredPath] = []
    /// How many of `paths` are `.waiting`.
    private var waitingPaths = 0
    /// Per seat slot: the last position and whose it is.
    @exclusivity(unchecked) private var slots: [Slot] = []
    /// The contacts of the frame in flight.
    @exclusivity(unchecked) private var pending: [TouchSample] = []
    /// Events found outside `read` (problems while adding paths), handed out by the next `read`.
    @exclusivity(unchecked) private var queued: [TouchscreenEvent] = []
    /// Per subject (a path, a node, a seat): the cause last reported, so each is reported once.
    private var reported: [String: TouchscreenProblem.Cause] = [:]
    private var reportedMessages: Set<String> = []
    private var seatChecked = false

    private struct Entry {
        var device: OpaquePointer
        var info: TouchscreenDevice
        /// Index in `paths` when opened for a configured path.
        var pathIndex: Int?
    }

    private struct ConfiguredPath {
        enum State {
            case waiting, added(OpaquePointer), ignored
            var isWaiting: Bool { if case .waiting = self { true } else { false } }
        }
        var path: String
        var state: State
    }

    /// Sets a configured path's state, keeping `waitingPaths` in step.
    private func setPath(_ index: Int, _ state: ConfiguredPath.State) {
        waitingPaths += (state.isWaiting ? 1 : 0) - (paths[index].state.isWaiting ? 1 : 0)
        paths[index].state = state
    }

    private struct Slot {
        var x = 0.0, y = 0.0
        var entry = -1
        var down = false
    }

    /// Creates the libinput context and adds the devices (path backend) or the seat (udev
    /// backend). Devices that cannot be opened are not errors: `read` reports them as
    /// `.problem`s (call it once right away: libinput queues `DEVICE_ADDED` without making `fd`
    /// readable).
    /// - Throws: `InputError` naming `udev_new`, `libinput_path_create_context`,
    ///   `libinput_udev_create_context` or `libinput_udev_assign_seat` when the context itself
    ///   cannot be made.
    public init(backend: Backend) throws(InputError) {
        self.backend = backend
        guard let madeUdev = udev_new() else { throw InputError("udev_new", detail: "cannot create a udev context") }
        interface = LibinputHooks.makeInterface()
        let userData = Unmanaged.passUnretained(hooks).toOpaque()
        switch backend {
        case .paths(let list):
            guard let made = libinput_path_create_context(interface, userData) else {
                udev_unref(madeUdev)
                interface.deallocate()
                throw InputError("libinput_path_create_context", detail: "cannot create a libinput context")
            }
            udev = madeUdev
            context = made
            paths = list.map { ConfiguredPath(path: $0, state: .waiting) }
            waitingPaths = list.count
        case .seat(let seat):
            guard let made = libinput_udev_create_context(interface, userData, madeUdev) else {
                udev_unref(madeUdev)
                interface.deallocate()
                throw InputError("libinput_udev_create_context", detail: "cannot create a libinput context")
            }
            udev = madeUdev
            context = made
            LibinputHooks.captureLog(of: made)
            guard libinput_udev_assign_seat(made, seat) == 0 else {
                let messages = hooks.messages.joined(separator: "; ")
                var detail = "cannot read the devices of seat \"\(seat)\"" + (messages.isEmpty ? "" : ": " + messages)
                // The usual cause: no netlink socket for udev's monitor (a sandbox's
                // RestrictAddressFamilies=); libinput only says so at info priority.
                if let monitor = udev_monitor_new_from_netlink(madeUdev, "udev") {
                    udev_monitor_unref(monitor)
                } else {
                    detail = "cannot follow seat \"\(seat)\": udev's monitor needs a netlink socket, which is not allowed here; under systemd add RestrictAddressFamilies=AF_UNIX AF_NETLINK and PrivateNetwork=no, or list the devices"
                }
                libinput_unref(made)
                udev_unref(madeUdev)
                interface.deallocate()
                throw InputError("libinput_udev_assign_seat", detail: detail)
            }
        }
        fd = libinput_get_fd(context)
        if case .paths = backend {
            LibinputHooks.captureLog(of: context)
            for index in paths.indices { add(pathAt: index) }
        }
    }

    deinit {
        // libinput_unref closes every open device through close_restricted.
        libinput_unref(context)
        udev_unref(udev)
        interface.deinitialize(count: 1)
        interface.deallocate()
    }

    /// The touchscreens open now.
    public var devices: [TouchscreenDevice] { entries.compactMap { $0?.info } }

    /// Whether configured paths wait to be tried again (path backend): arm a timer for `retry`.
    public var isWaitingForDevices: Bool { waitingPaths > 0 }

    /// Lets libinput read its devices (`libinput_dispatch`), then hands out what it queued
    /// (`libinput_get_event` until empty), in order: contacts at the end of their frame, devices
    /// added and removed, problems.
    /// - Throws: `InputError` naming `libinput_dispatch` when libinput itself fails (not for a
    ///   device that fails: that one is removed and reported).
    public func read(_ handle: (TouchscreenEvent) -> Void) throws(InputError) {
        if !queued.isEmpty {
            for event in queued { handle(event) }
            queued.removeAll()
        }
        let result = libinput_dispatch(context)
        if result < 0 { throw InputError("libinput_dispatch", Errno(-result)) }
        while let event = libinput_get_event(context) {
            process(event, handle)
            libinput_event_destroy(event)
        }
        reportHookFindings(handle)
        if !seatChecked, case .seat(let seat) = backend {
            seatChecked = true
            if entries.allSatisfy({ $0 == nil }) {
                report(TouchscreenProblem(subject: seat, cause: .noTouchscreen, retrying: false), handle)
            }
        }
    }

    /// `read` collecting into an array (tests, start-up).
    public func read() throws(InputError) -> [TouchscreenEvent] {
        var events: [TouchscreenEvent] = []
        try read { events.append($0) }
        return events
    }

    /// Tries the configured paths that are waiting again (`libinput_path_add_device`), then
    /// `read`s, so a device that came back is `.added` at once. Call every `retryInterval` while
    /// `isWaitingForDevices`. A path that still fails is reported only if its cause changed.
    public func retry(_ handle: (TouchscreenEvent) -> Void) throws(InputError) {
        for index in paths.indices where paths[index].state.isWaiting { add(pathAt: index) }
        try read(handle)
    }

    // MARK: - Adding configured paths

    /// `libinput_path_add_device` for `paths[index]`. The path is looked at first (`stat`), so
    /// a missing one is reported as missing rather than as libinput's "Invalid path".
    private func add(pathAt index: Int) {
        let path = paths[index].path
        let number: UInt64
        do throws(Errno) {
            number = try DeviceNodes.deviceNumber(path)
        } catch {
            queue(problem: path, cause(of: error, doing: "cannot examine it"), retrying: true)
            return
        }
        // libinput waits up to 2 s (blocking) for udev to finish with a new device, and then gives
        // up: without systemd-udevd that would stall the loop on every retry, so look first.
        if let device = udev_device_new_from_devnum(udev, CChar(UInt8(ascii: "c")), dev_t(number)) {
            let initialized = udev_device_get_is_initialized(device) != 0
            udev_device_unref(device)
            guard initialized else {
                queue(problem: path, .unusable("udev has not set it up yet (is systemd-udevd running?)"), retrying: true)
                return
            }
        }
        hooks.openFailures.removeAll()
        guard let device = libinput_path_add_device(context, path) else {
            let failure = hooks.openFailures.last
            hooks.openFailures.removeAll()
            if let failure {
                queue(problem: path, cause(of: failure.error, doing: "cannot open \(failure.node)"), retrying: true)
            } else {
                queue(problem: path, .unusable("libinput cannot use it (libinput_path_add_device failed)"), retrying: true)
            }
            return
        }
        setPath(index, .added(device))
    }

    private func cause(of error: Errno, doing what: String) -> TouchscreenProblem.Cause {
        if DeviceNodes.isPermissionProblem(error) { return .permission(error) }
        if DeviceNodes.isMissing(error) { return .missing(error) }
        return .unusable("\(what): \(error)")
    }

    private func queue(problem subject: String, _ cause: TouchscreenProblem.Cause, retrying: Bool) {
        report(TouchscreenProblem(subject: subject, cause: cause, retrying: retrying)) { queued.append($0) }
    }

    /// Hands out `problem` unless the same cause was already reported for its subject.
    private func report(_ problem: TouchscreenProblem, _ handle: (TouchscreenEvent) -> Void) {
        guard reported[problem.subject] != problem.cause else { return }
        reported[problem.subject] = problem.cause
        handle(.problem(problem))
    }

    // MARK: - libinput's events

    private func process(_ event: OpaquePointer, _ handle: (TouchscreenEvent) -> Void) {
        let type = libinput_event_get_type(event)
        switch type {
        case LIBINPUT_EVENT_TOUCH_DOWN, LIBINPUT_EVENT_TOUCH_MOTION:
            guard let touch = libinput_event_get_touch_event(event),
                let entry = entryIndex(libinput_event_get_device(event))
            else { return }
            let slot = libinput_event_touch_get_seat_slot(touch)
            guard slot >= 0 else { return }
            let x = libinput_event_touch_get_x_transformed(touch, 1)
            let y = libinput_event_touch_get_y_transformed(touch, 1)
            if slots.count <= Int(slot) { slots.append(contentsOf: repeatElement(Slot(), count: Int(slot) + 1 - slots.count)) }
            slots[Int(slot)] = Slot(x: x, y: y, entry: entry, down: true)
            pending.append(TouchSample(
                phase: type == LIBINPUT_EVENT_TOUCH_DOWN ? .down : .move, slot: slot, x: x, y: y,
                timeMicroseconds: libinput_event_touch_get_time_usec(touch), device: names[entry]))
        case LIBINPUT_EVENT_TOUCH_UP, LIBINPUT_EVENT_TOUCH_CANCEL:
            guard let touch = libinput_event_get_touch_event(event) else { return }
            let slot = Int(libinput_event_touch_get_seat_slot(touch))
            guard slot >= 0, slot < slots.count, slots[slot].down else { return }
            slots[slot].down = false
            pending.append(TouchSample(
                phase: type == LIBINPUT_EVENT_TOUCH_UP ? .up : .cancel, slot: Int32(slot), x: slots[slot].x,
                y: slots[slot].y, timeMicroseconds: libinput_event_touch_get_time_usec(touch), device: names[slots[slot].entry]))
        case LIBINPUT_EVENT_TOUCH_FRAME:
            flushFrame(handle)
        case LIBINPUT_EVENT_DEVICE_ADDED:
            if let device = libinput_event_get_device(event) { deviceAdded(device, handle) }
        case LIBINPUT_EVENT_DEVICE_REMOVED:
            if let device = libinput_event_get_device(event) { deviceRemoved(device, handle) }
        default:
            break
        }
    }

    private func flushFrame(_ handle: (TouchscreenEvent) -> Void) {
        guard !pending.isEmpty else { return }
        for sample in pending { handle(.contact(sample)) }
        pending.removeAll(keepingCapacity: true)
    }

    /// The entry of `device` (its user data), nil for a device that is not one of ours.
    private func entryIndex(_ device: OpaquePointer?) -> Int? {
        guard let device, let data = libinput_device_get_user_data(device) else { return nil }
        let index = Int(bitPattern: data) - 1
        return index >= 0 && index < names.count ? index : nil
    }

    private func deviceAdded(_ device: OpaquePointer, _ handle: (TouchscreenEvent) -> Void) {
        let name = String(cString: libinput_device_get_name(device))
        let node = "/dev/input/" + String(cString: libinput_device_get_sysname(device))
        let pathIndex = paths.firstIndex { if case .added(let added) = $0.state { added == device } else { false } }
        let subject = pathIndex.map { paths[$0].path } ?? node
        var refusal: TouchscreenProblem.Cause?
        if libinput_device_has_capability(device, LIBINPUT_DEVICE_CAP_TOUCH) == 0 {
            refusal = .notATouchscreen(name: name)
        } else if let same = entries.first(where: { $0?.info.node == node }), let same {
            refusal = .duplicate(of: same.info.description)
        }
        if let refusal {
            if let pathIndex {
                // A configured path: say why, and let it go for good.
                setPath(pathIndex, .ignored)
                report(TouchscreenProblem(subject: subject, cause: refusal, retrying: false), handle)
                libinput_path_remove_device(device)
            } else {
                // The udev backend's other devices of the seat: closed, quietly.
                _ = libinput_device_config_send_events_set_mode(device, LIBINPUT_CONFIG_SEND_EVENTS_DISABLED.rawValue)
            }
            return
        }
        var width = 0.0, height = 0.0
        let sized = libinput_device_get_size(device, &width, &height) == 0
        let info = TouchscreenDevice(
            name: name, node: node, configuredPath: pathIndex.map { paths[$0].path },
            widthMillimeters: sized ? width : nil, heightMillimeters: sized ? height : nil,
            touchCount: Int(max(0, libinput_device_touch_get_touch_count(device))))
        let index: Int
        if let free = freeEntries.popLast() {
            index = free
            entries[index] = Entry(device: device, info: info, pathIndex: pathIndex)
            names[index] = name
        } else {
            index = entries.count
            entries.append(Entry(device: device, info: info, pathIndex: pathIndex))
            names.append(name)
        }
        libinput_device_set_user_data(device, UnsafeMutableRawPointer(bitPattern: index + 1))
        reported[subject] = nil
        if case .seat(let seat) = backend { reported[seat] = nil }
        handle(.added(info))
    }

    private func deviceRemoved(_ device: OpaquePointer, _ handle: (TouchscreenEvent) -> Void) {
        guard let index = entryIndex(device), let entry = entries[index] else { return }
        // A frame cut short, then every finger still down on it: their contacts are void.
        flushFrame(handle)
        let now = Clock.monotonicNanos() / 1_000
        for slot in slots.indices where slots[slot].down && slots[slot].entry == index {
            slots[slot].down = false
            handle(.contact(TouchSample(
                phase: .cancel, slot: Int32(slot), x: slots[slot].x, y: slots[slot].y, timeMicroseconds: now,
                device: entry.info.name)))
        }
        libinput_device_set_user_data(device, nil)
        entries[index] = nil
        freeEntries.append(index)
        if let pathIndex = entry.pathIndex { setPath(pathIndex, .waiting) }
        handle(.removed(entry.info))
    }

    // MARK: - What the callbacks saw

    /// Open failures the udev backend met (reported for touchscreens only: the seat's keyboards
    /// and mice are none of our business) and libinput's error messages (each once).
    private func reportHookFindings(_ handle: (TouchscreenEvent) -> Void) {
        if !hooks.openFailures.isEmpty {
            let failures = hooks.openFailures
            hooks.openFailures.removeAll()
            if case .seat = backend {
                for failure in failures where isTouchscreenNode(failure.node) {
                    report(TouchscreenProblem(
                        subject: failure.node, cause: cause(of: failure.error, doing: "cannot open it"), retrying: false), handle)
                }
            }
        }
        if !hooks.messages.isEmpty {
            let messages = hooks.messages
            hooks.messages.removeAll()
            // Once per message with its numbers taken out: "lagging behind by 26ms" and "by 31ms"
            // are one cause.
            for message in messages where reportedMessages.count < 256 && reportedMessages.insert(Self.withoutNumbers(message)).inserted {
                handle(.problem(TouchscreenProblem(subject: "libinput", cause: .libinput(message), retrying: false)))
            }
        }
    }

    /// `message` with every run of digits as `N`.
    static func withoutNumbers(_ message: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(message.utf8.count)
        var inNumber = false
        for byte in message.utf8 {
            let digit = byte >= 0x30 && byte <= 0x39
            if !digit {
                out.append(byte)
            } else if !inNumber {
                out.append(0x4E)  // N
            }
            inNumber = digit
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether udev tags the node as a touchscreen (`ID_INPUT_TOUCHSCREEN=1`). The corresponding
    /// C functions are `udev_device_new_from_devnum` and `udev_device_get_property_value`.
    private func isTouchscreenNode(_ node: String) -> Bool {
        guard let number = try? DeviceNodes.deviceNumber(node),
            let device = udev_device_new_from_devnum(udev, CChar(UInt8(ascii: "c")), dev_t(number))
        else { return false }
        defer { udev_device_unref(device) }
        guard let value = udev_device_get_property_value(device, "ID_INPUT_TOUCHSCREEN") else { return false }
        return String(cString: value) == "1"
    }
}
