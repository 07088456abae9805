import Testing

@testable import TapgridCore

/// `touch` in the config: what it becomes, and the exact message for each mistake.
@Suite struct TouchConfigTests {
    static let layout = #""layouts": {"a": {"width": 800, "height": 480, "grid": {"cols": [{"tag": 1}]}}}"#

    func parse(_ touch: String) -> (Config?, [String]) {
        let document = try! JSONParser.parse(#"{\#(Self.layout), "touch": \#(touch)}"#, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in
            .failure(Diagnostic(.error, "no files here: \(path)"))
        }
        let (config, diagnostics) = parser.parse(document)
        return (config, diagnostics.all.map(\.description))
    }

    @Test func devicesRotationAndCalibration() throws {
        let (config, messages) = parse(#"{"devices": ["/dev/input/by-path/platform-fake-event", "/dev/input/event7"], "rotation": 90, "calibration": [1, 0, 0.25, 0, 1, 0]}"#)
        #expect(messages.isEmpty)
        let touch = try #require(config?.touch)
        #expect(touch.source == .devices(["/dev/input/by-path/platform-fake-event", "/dev/input/event7"]))
        #expect(touch.rotation == .clockwise90)
        #expect(touch.calibration == TouchMatrix(1, 0, 0.25, 0, 1, 0))
        // Calibration first, then the rotation: (0.5, 0.5) -> (0.75, 0.5) -> (0.5, 0.75).
        let point = touch.mapping.layoutPoint(x: 0.5, y: 0.5, width: 800, height: 480)
        #expect(point.x == 400 && point.y == 360)
    }

    @Test func seatWithDefaults() throws {
        let (config, messages) = parse(#"{"seat": "seat0"}"#)
        #expect(messages.isEmpty)
        let touch = try #require(config?.touch)
        #expect(touch == TouchConfig(source: .seat("seat0"), rotation: .none, calibration: .identity))
    }

    @Test func noTouchKeyMeansNoTouchscreens() throws {
        let document = try JSONParser.parse(#"{\#(Self.layout)}"#, lenient: true)
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { _ in .failure(Diagnostic(.error, "none")) }
        #expect(try #require(parser.parse(document).config).touch == nil)
    }

    @Test(arguments: [
        (#"["/dev/input/event5"]"#,
         #"t.json: touch: expected an object such as {"devices": ["/dev/input/by-path/...-event"]} or {"seat": "seat0"}, found ["/dev/input/event5"]"#),
        (#"{"rotation": 90}"#, #"t.json: touch: needs "devices" (a list of device paths) or "seat" (a udev seat such as "seat0")"#),
        (#"{"devices": ["/dev/input/event5"], "seat": "seat0"}"#, #"t.json: touch: give "devices" or "seat", not both"#),
        (#"{"devices": "/dev/input/event5"}"#,
         #"t.json: touch.devices: expected a non-empty array of device paths such as ["/dev/input/by-path/...-event"], found "/dev/input/event5""#),
        (#"{"devices": []}"#, #"t.json: touch.devices: expected a non-empty array of device paths such as ["/dev/input/by-path/...-event"], found []"#),
        (#"{"devices": ["/dev/input/event5", 6]}"#, #"t.json: touch.devices[1]: expected a device path (a non-empty string), found 6"#),
        (#"{"devices": [""]}"#, #"t.json: touch.devices[0]: expected a device path (a non-empty string), found """#),
        (#"{"devices": ["event5"]}"#,
         #"t.json: touch.devices[0]: expected an absolute device path such as "/dev/input/by-path/...-event", found "event5""#),
        (#"{"devices": ["/dev/input/event5", "/dev/input/event6", "/dev/input/event5"]}"#,
         #"t.json: touch.devices[2]: "/dev/input/event5" is already listed (touch.devices[0])"#),
        (#"{"seat": ""}"#, #"t.json: touch.seat: expected the name of a udev seat such as "seat0", found """#),
        (#"{"seat": 0}"#, #"t.json: touch.seat: expected the name of a udev seat such as "seat0", found 0"#),
        (#"{"seat": "seat0", "rotation": 45}"#, #"t.json: touch.rotation: expected 0, 90, 180 or 270 (degrees clockwise), found 45"#),
        (#"{"seat": "seat0", "rotation": -90}"#, #"t.json: touch.rotation: expected 0, 90, 180 or 270 (degrees clockwise), found -90"#),
        (#"{"seat": "seat0", "rotation": 360}"#, #"t.json: touch.rotation: expected 0, 90, 180 or 270 (degrees clockwise), found 360"#),
        (#"{"seat": "seat0", "rotation": "90"}"#, #"t.json: touch.rotation: expected 0, 90, 180 or 270 (degrees clockwise), found "90""#),
        (#"{"seat": "seat0", "rotation": 90.5}"#, #"t.json: touch.rotation: expected 0, 90, 180 or 270 (degrees clockwise), found 90.5"#),
        (#"{"seat": "seat0", "calibration": [1, 0, 0, 0, 1]}"#,
         #"t.json: touch.calibration: expected six finite numbers [a, b, c, d, e, f] (libinput's calibration matrix), found [1,0,0,0,1]"#),
        (#"{"seat": "seat0", "calibration": [1, 0, 0, 0, 1, "0"]}"#,
         #"t.json: touch.calibration: expected six finite numbers [a, b, c, d, e, f] (libinput's calibration matrix), found [1,0,0,0,1,"0"]"#),
        (#"{"seat": "seat0", "calibration": "identity"}"#,
         #"t.json: touch.calibration: expected six finite numbers [a, b, c, d, e, f] (libinput's calibration matrix), found "identity""#),
    ])
    func errorsNameTheKey(touch: String, message: String) {
        let (config, messages) = parse(touch)
        #expect(config == nil)
        #expect(messages == [message], "\(messages)")
    }

    @Test func unknownKeysAndAFlatMatrixWarn() throws {
        let (config, messages) = parse(#"{"seat": "seat0", "rotaton": 90, "output": "HDMI-A-1", "calibration": [0, 0, 0.5, 0, 0, 0.5]}"#)
        #expect(config?.touch?.source == .seat("seat0"))
        #expect(messages == [
            #"t.json: touch.rotaton: unknown key ignored; did you mean "rotation"?"#,
            #"t.json: touch.output: unknown key ignored; use devices, seat, rotation or calibration"#,
            #"t.json: touch.calibration: [0,0,0.5,0,0,0.5] squeezes the whole screen onto a line or a point (determinant 0): every touch lands there"#,
        ])
    }
}
