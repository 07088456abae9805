extension ConfigParser {
    static let screenKeys = ["dimSeconds", "offSeconds", "wakeTouch", "backlight", "commands"]
    static let backlightKeys = ["path", "on", "dim", "off"]
    static let screenCommandKeys = ["on", "dim", "off"]

    /// `screen`: the idle timers, the waking touch, the backlight and the commands
    /// (docs/configuration.md, the `screen` block). Nil when absent or wrong (an error then says why).
    mutating func parseScreen(_ value: JSONValue?) -> ScreenConfig? {
        guard let value else { return nil }
        guard case .object(let members) = value else {
            error("screen", #"expected an object such as {"dimSeconds": 30, "offSeconds": 120}, found "# + shown(value))
            return nil
        }
        warnAboutUnknownKeys(members, path: "screen", known: ConfigParser.screenKeys)
        let before = diagnostics.errors.count
        var screen = ScreenConfig()
        screen.dimSeconds = positive(value["dimSeconds"], path: "screen.dimSeconds", allowZero: false)
        screen.offSeconds = positive(value["offSeconds"], path: "screen.offSeconds", allowZero: false)
        if let dim = screen.dimSeconds, let off = screen.offSeconds, dim >= off {
            error("screen.dimSeconds", "\(shown(value["dimSeconds"]!)) is not below offSeconds (\(shown(value["offSeconds"]!))): "
                + "the screen dims before it goes off (leave dimSeconds out for a screen that goes straight off)")
        }
        if let wake = value["wakeTouch"] {
            let names = ScreenConfig.WakeTouch.allCases.map(\.rawValue)
            if case .string(let name) = wake, let known = ScreenConfig.WakeTouch(rawValue: name) {
                screen.wakeTouch = known
            } else {
                var hint = ""
                if case .string(let name) = wake { hint = didYouMean(name, among: names) }
                error("screen.wakeTouch", "expected " + names.map { jsonEscaped($0) }.joined(separator: " or ") + ", found " + shown(wake) + hint)
            }
        }
        if let backlight = value["backlight"] { screen.backlight = parseBacklight(backlight) }
        if let commands = value["commands"] { screen.commands = parseScreenCommands(commands) }
        return diagnostics.errors.count > before ? nil : screen
    }

    /// `backlight`: `path` (required, a folder) and the `on`, `dim` and `off` levels.
    mutating func parseBacklight(_ value: JSONValue) -> ScreenConfig.Backlight? {
        guard case .object(let members) = value else {
            error("screen.backlight", #"expected an object such as {"path": "/sys/class/backlight/rpi_backlight"}, found "# + shown(value))
            return nil
        }
        warnAboutUnknownKeys(members, path: "screen.backlight", known: ConfigParser.backlightKeys)
        var backlight = ScreenConfig.Backlight(path: "")
        switch value["path"] {
        case .string(let text)? where !text.isEmpty && !text.utf8.contains(0):
            backlight.path = resolvePath(text)
        case let other?:
            error("screen.backlight.path", "expected a folder path (a non-empty string), found " + shown(other))
        case nil:
            error("screen.backlight", #"needs "path": the backlight's folder, such as "/sys/class/backlight/rpi_backlight""#)
        }
        if let level = value["on"].flatMap({ backlightLevel($0, path: "screen.backlight.on") }) { backlight.on = level }
        if let level = value["dim"].flatMap({ backlightLevel($0, path: "screen.backlight.dim") }) { backlight.dim = level }
        if let level = value["off"].flatMap({ backlightLevel($0, path: "screen.backlight.off") }) { backlight.off = level }
        return backlight
    }

    /// A level: an integer from 0 (sysfs takes an `int`) or `"max"`.
    mutating func backlightLevel(_ value: JSONValue, path: String) -> BacklightLevel? {
        if case .string("max") = value { return .max }
        if case .number(let n) = value, let int = n.int64, int >= 0, int <= Int64(Int32.max) { return .value(Int(int)) }
        error(path, #"expected a brightness: an integer from 0 to 2147483647, or "max", found "# + shown(value))
        return nil
    }

    /// `commands`: an argv per state, each a non-empty array of non-empty strings.
    mutating func parseScreenCommands(_ value: JSONValue) -> ScreenConfig.Commands {
        var commands = ScreenConfig.Commands()
        guard case .object(let members) = value else {
            error("screen.commands", #"expected an object such as {"off": ["wlopm", "--off", "*"]}, found "# + shown(value))
            return commands
        }
        warnAboutUnknownKeys(members, path: "screen.commands", known: ConfigParser.screenCommandKeys)
        commands.on = stringArray(value["on"], path: "screen.commands.on")
        commands.dim = stringArray(value["dim"], path: "screen.commands.dim")
        commands.off = stringArray(value["off"], path: "screen.commands.off")
        return commands
    }

    /// A warning for each member not in `known`: the key it was probably meant to be, else the
    /// keys known there.
    mutating func warnAboutUnknownKeys(_ members: [JSONMember], path: String, known: [String]) {
        for member in members where !known.contains(member.key) {
            let hint = didYouMean(member.key, among: known)
            warning("\(path).\(member.key)", "unknown key ignored" + hintOrList(hint, "use " + known.joined(separator: ", ")))
        }
    }
}
