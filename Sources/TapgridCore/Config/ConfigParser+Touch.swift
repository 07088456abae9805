extension ConfigParser {
    static let touchKeys = ["devices", "seat", "rotation", "calibration"]

    /// `touch`: `{"devices": [...]}` or `{"seat": "seat0"}`, with optional `rotation` and
    /// `calibration`. Nil when absent or wrong (an error then says why).
    ///
    /// Device paths must be absolute: they name nodes under `/dev`, never files next to the
    /// config, so a relative one (`"event5"`) is a mistake to point out rather than a path to
    /// resolve against the config's folder. They are kept as written (a `/dev/input/by-path/`
    /// link is not resolved: its target changes when the device is plugged in elsewhere).
    mutating func parseTouch(_ value: JSONValue?) -> TouchConfig? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            error("touch", #"expected an object such as {"devices": ["/dev/input/by-path/...-event"]} or {"seat": "seat0"}, found "# + shown(value))
            return nil
        }
        for member in members where !ConfigParser.touchKeys.contains(member.key) {
            let hint = didYouMean(member.key, among: ConfigParser.touchKeys)
            warning("touch.\(member.key)", "unknown key ignored" + hintOrList(hint, "use devices, seat, rotation or calibration"))
        }
        let before = diagnostics.errors.count
        var source: TouchConfig.Source?
        switch (value["devices"], value["seat"]) {
        case (nil, nil):
            error("touch", #"needs "devices" (a list of device paths) or "seat" (a udev seat such as "seat0")"#)
        case (.some, .some):
            error("touch", #"give "devices" or "seat", not both"#)
        case (let devices?, nil):
            source = parseTouchDevices(devices).map { .devices($0) }
        case (nil, let seat?):
            if case .string(let name) = seat, !name.isEmpty {
                source = .seat(name)
            } else {
                error("touch.seat", #"expected the name of a udev seat such as "seat0", found "# + shown(seat))
            }
        }
        var touch = TouchConfig(source: source ?? .seat(""))
        if let rotation = value["rotation"] {
            if case .number(let n) = rotation, let degrees = n.int64, let known = TouchRotation(rawValue: Int(degrees)) {
                touch.rotation = known
            } else {
                error("touch.rotation", "expected 0, 90, 180 or 270 (degrees clockwise), found " + shown(rotation))
            }
        }
        if let calibration = value["calibration"] {
            if let matrix = parseTouchMatrix(calibration) {
                touch.calibration = matrix
                if matrix.determinant == 0 {
                    warning("touch.calibration", "\(shown(calibration)) squeezes the whole screen onto a line or a point (determinant 0): every touch lands there")
                }
            } else {
                error("touch.calibration", "expected six finite numbers [a, b, c, d, e, f] (libinput's calibration matrix), found " + shown(calibration))
            }
        }
        return source == nil || diagnostics.errors.count > before ? nil : touch
    }

    mutating func parseTouchDevices(_ value: JSONValue) -> [String]? {
        guard case .array(let elements) = value, !elements.isEmpty else {
            error("touch.devices", #"expected a non-empty array of device paths such as ["/dev/input/by-path/...-event"], found "# + shown(value))
            return nil
        }
        var paths: [String] = []
        /// Each path's first index in the array, for the duplicate's message.
        var seen: [String: Int] = [:]
        var ok = true
        for (index, element) in elements.enumerated() {
            let path = "touch.devices[\(index)]"
            guard case .string(let device) = element, !device.isEmpty else {
                error(path, "expected a device path (a non-empty string), found " + shown(element))
                ok = false
                continue
            }
            guard device.hasPrefix("/") else {
                error(path, #"expected an absolute device path such as "/dev/input/by-path/...-event", found "# + shown(element))
                ok = false
                continue
            }
            if let first = seen[device] {
                error(path, "\(shown(element)) is already listed (touch.devices[\(first)])")
                ok = false
                continue
            }
            seen[device] = index
            paths.append(device)
        }
        return ok ? paths : nil
    }

    func parseTouchMatrix(_ value: JSONValue) -> TouchMatrix? {
        guard case .array(let elements) = value, elements.count == 6 else { return nil }
        var numbers: [Double] = []
        for element in elements {
            guard case .number(let n) = element, n.double.isFinite else { return nil }
            numbers.append(n.double)
        }
        return TouchMatrix(numbers)
    }
}
