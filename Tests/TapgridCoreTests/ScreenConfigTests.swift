import Testing

@testable import TapgridCore

/// The `screen` block: its defaults, every key read, and each mistake refused (or warned about)
/// with a message naming the key, compared exactly.
@Suite struct ScreenConfigTests {
    static let layout = #""layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1}]}}}"#

    /// The config with `"screen": <screen>`, parsed as `t.json` in `/etc/tapgrid`.
    func parse(_ screen: String) -> (Config?, [String]) {
        let text = #"{\#(Self.layout), "screen": \#(screen)}"#
        let document = try! JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
            .failure(Diagnostic(.error, "no files: \(path)"))
        }
        let (config, diagnostics) = parser.parse(document)
        return (config, diagnostics.all.map(\.description))
    }

    @Test func noScreenBlockMeansNoScreen() throws {
        let document = try JSONParser.parse(#"{\#(Self.layout)}"#, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { _ in .failure(Diagnostic(.error, "none")) }
        let (config, diagnostics) = parser.parse(document)
        #expect(diagnostics.all.isEmpty)
        #expect(try #require(config).screen == nil)
    }

    @Test func defaults() throws {
        let (config, messages) = parse("{}")
        #expect(messages.isEmpty)
        let screen = try #require(config?.screen)
        #expect(screen == ScreenConfig())
        #expect(screen.dimSeconds == nil && screen.offSeconds == nil)
        #expect(screen.wakeTouch == .consume)
        #expect(screen.backlight == nil)
        #expect(screen.commands == ScreenConfig.Commands())
        for state in ScreenState.allCases { #expect(screen.commands[state] == nil) }
    }

    /// The contract's example, with fractions and every key.
    @Test func everyKeyIsRead() throws {
        let (config, messages) = parse(#"""
            {"dimSeconds": 0.5, "offSeconds": 120, "wakeTouch": "pass",
             "backlight": {"path": "/sys/class/backlight/rpi_backlight/", "on": "max", "dim": 20, "off": 0},
             "commands": {"on": ["wlopm", "--on", "*"], "dim": ["true"], "off": ["wlopm", "--off", "*"]}}
            """#)
        #expect(messages.isEmpty)
        let screen = try #require(config?.screen)
        #expect(screen.dimSeconds == 0.5)
        #expect(screen.offSeconds == 120)
        #expect(screen.wakeTouch == .pass)
        let backlight = try #require(screen.backlight)
        #expect(backlight.path == "/sys/class/backlight/rpi_backlight")
        #expect(backlight.brightnessFile == "/sys/class/backlight/rpi_backlight/brightness")
        #expect(backlight.maxBrightnessFile == "/sys/class/backlight/rpi_backlight/max_brightness")
        #expect(backlight[.on] == .max && backlight[.dim] == .value(20) && backlight[.off] == .value(0))
        #expect(screen.commands[.on] == ["wlopm", "--on", "*"])
        #expect(screen.commands[.dim] == ["true"])
        #expect(screen.commands[.off] == ["wlopm", "--off", "*"])
    }

    /// Either timer may be left out; a relative backlight folder is resolved against the
    /// config's folder (a test's fake backlight); levels default to max, a fifth, 0.
    @Test func partsLeftOut() throws {
        let (onlyOff, messages) = parse(#"{"offSeconds": 60, "backlight": {"path": "fake/backlight"}}"#)
        #expect(messages.isEmpty)
        let screen = try #require(onlyOff?.screen)
        #expect(screen.dimSeconds == nil && screen.offSeconds == 60)
        #expect(screen.backlight == ScreenConfig.Backlight(path: "/etc/tapgrid/fake/backlight", on: .max, dim: .percentOfMax(20), off: .value(0)))
        let (onlyDim, dimMessages) = parse(#"{"dimSeconds": 86400, "backlight": {"path": "/b", "dim": "max", "off": 2147483647}}"#)
        #expect(dimMessages.isEmpty)
        #expect(onlyDim?.screen?.dimSeconds == 86400 && onlyDim?.screen?.offSeconds == nil)
        #expect(onlyDim?.screen?.backlight?.dim == .max && onlyDim?.screen?.backlight?.off == .value(2_147_483_647))
    }

    @Test(arguments: [
        (#"[]"#, #"t.json: screen: expected an object such as {"dimSeconds": 30, "offSeconds": 120}, found []"#),
        (#"{"dimSeconds": 0}"#, "t.json: screen.dimSeconds: expected a number of seconds > 0 (at most 86400), found 0"),
        (#"{"dimSeconds": -1}"#, "t.json: screen.dimSeconds: expected a number of seconds > 0 (at most 86400), found -1"),
        (#"{"offSeconds": "60"}"#, #"t.json: screen.offSeconds: expected a number of seconds > 0 (at most 86400), found "60""#),
        (#"{"offSeconds": 86401}"#, "t.json: screen.offSeconds: expected a number of seconds > 0 (at most 86400), found 86401"),
        (#"{"dimSeconds": 120, "offSeconds": 60}"#,
         "t.json: screen.dimSeconds: 120 is not below offSeconds (60): the screen dims before it goes off (leave dimSeconds out for a screen that goes straight off)"),
        (#"{"dimSeconds": 30, "offSeconds": 30.0}"#,
         "t.json: screen.dimSeconds: 30 is not below offSeconds (30): the screen dims before it goes off (leave dimSeconds out for a screen that goes straight off)"),
        (#"{"wakeTouch": "pas"}"#, #"t.json: screen.wakeTouch: expected "consume" or "pass", found "pas"; did you mean "pass"?"#),
        (#"{"wakeTouch": "ignore"}"#, #"t.json: screen.wakeTouch: expected "consume" or "pass", found "ignore""#),
        (#"{"wakeTouch": true}"#, #"t.json: screen.wakeTouch: expected "consume" or "pass", found true"#),
        (#"{"backlight": "/sys/class/backlight/x"}"#,
         #"t.json: screen.backlight: expected an object such as {"path": "/sys/class/backlight/rpi_backlight"}, found "/sys/class/backlight/x""#),
        (#"{"backlight": {"on": 10}}"#,
         #"t.json: screen.backlight: needs "path": the backlight's folder, such as "/sys/class/backlight/rpi_backlight""#),
        (#"{"backlight": {"path": ""}}"#, #"t.json: screen.backlight.path: expected a folder path (a non-empty string), found """#),
        (#"{"backlight": {"path": "/b", "dim": -1}}"#,
         #"t.json: screen.backlight.dim: expected a brightness: an integer from 0 to 2147483647, or "max", found -1"#),
        (#"{"backlight": {"path": "/b", "on": "MAX"}}"#,
         #"t.json: screen.backlight.on: expected a brightness: an integer from 0 to 2147483647, or "max", found "MAX""#),
        (#"{"backlight": {"path": "/b", "off": 0.5}}"#,
         #"t.json: screen.backlight.off: expected a brightness: an integer from 0 to 2147483647, or "max", found 0.5"#),
        (#"{"backlight": {"path": "/b", "on": 2147483648}}"#,
         #"t.json: screen.backlight.on: expected a brightness: an integer from 0 to 2147483647, or "max", found 2147483648"#),
        (#"{"commands": ["wlopm"]}"#, #"t.json: screen.commands: expected an object such as {"off": ["wlopm", "--off", "*"]}, found ["wlopm"]"#),
        (#"{"commands": {"off": []}}"#, "t.json: screen.commands.off: expected a non-empty array of non-empty strings, found []"),
        (#"{"commands": {"on": ["wlopm", ""]}}"#, #"t.json: screen.commands.on: expected a non-empty array of non-empty strings, found ["wlopm",""]"#),
        (#"{"commands": {"dim": "xset dpms force standby"}}"#,
         #"t.json: screen.commands.dim: expected a non-empty array of non-empty strings, found "xset dpms force standby""#),
    ] as [(String, String)])
    func mistakes(screen: String, message: String) {
        let (config, messages) = parse(screen)
        #expect(config == nil)
        #expect(messages == [message])
    }

    /// Unknown keys at each level: a warning with the key meant, else the keys known there; the
    /// config still loads.
    @Test func unknownKeysAreWarnedAbout() throws {
        let (config, messages) = parse(#"""
            {"dimSecond": 10, "brightness": 3, "backlight": {"path": "/b", "dimm": 3, "max": 9},
             "commands": {"of": ["x"], "wake": ["y"]}}
            """#)
        #expect(messages == [
            #"t.json: screen.dimSecond: unknown key ignored; did you mean "dimSeconds"?"#,
            "t.json: screen.brightness: unknown key ignored; use dimSeconds, offSeconds, wakeTouch, backlight, commands",
            #"t.json: screen.backlight.dimm: unknown key ignored; did you mean "dim"?"#,
            "t.json: screen.backlight.max: unknown key ignored; use path, on, dim, off",
            #"t.json: screen.commands.of: unknown key ignored; did you mean "off"?"#,
            "t.json: screen.commands.wake: unknown key ignored; use on, dim, off",
        ])
        let screen = try #require(config?.screen)
        #expect(screen.dimSeconds == nil)
        #expect(screen.backlight == ScreenConfig.Backlight(path: "/b"))
        #expect(screen.commands == ScreenConfig.Commands())
    }

    /// A misspelt top-level key is pointed at `screen`, which the config's keys now list.
    @Test func screenIsATopLevelKey() {
        let text = #"{\#(Self.layout), "scren": {}}"#
        let document = try! JSONParser.parse(text, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { _ in .failure(Diagnostic(.error, "none")) }
        let (config, diagnostics) = parser.parse(document)
        #expect(config?.screen == nil)
        #expect(diagnostics.all.map(\.description) == [#"t.json: scren: unknown key ignored; did you mean "screen"?"#])
    }

    /// Every mistake of the block at once: each named, none hiding another.
    @Test func everyMistakeIsNamed() {
        let (config, messages) = parse(#"{"dimSeconds": 0, "offSeconds": -2, "wakeTouch": "eat", "backlight": {"path": 1, "on": "full"}, "commands": {"off": [1]}}"#)
        #expect(config == nil)
        #expect(messages == [
            "t.json: screen.dimSeconds: expected a number of seconds > 0 (at most 86400), found 0",
            "t.json: screen.offSeconds: expected a number of seconds > 0 (at most 86400), found -2",
            #"t.json: screen.wakeTouch: expected "consume" or "pass", found "eat""#,
            "t.json: screen.backlight.path: expected a folder path (a non-empty string), found 1",
            #"t.json: screen.backlight.on: expected a brightness: an integer from 0 to 2147483647, or "max", found "full""#,
            "t.json: screen.commands.off: expected a non-empty array of non-empty strings, found [1]",
        ])
    }
}
