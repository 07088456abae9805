import Testing

@testable import TapgridCore
@testable import TapgridDaemon

/// Where `cells.json` goes (docs/cell-state.md "Cell state across restarts"): beside the event log, and where the log would
/// be by default when it is off.
@Suite struct CellsFilePathTests {
    static let cases: [(EventLogSetting, [String: String], String)] = [
        (.path("/srv/panel/events.jsonl"), ["STATE_DIRECTORY": "/var/lib/tapgrid"], "/srv/panel/cells.json"),
        (.path("/events.jsonl"), [:], "/cells.json"),
        (.standard, ["STATE_DIRECTORY": "/var/lib/tapgrid:/var/lib/other", "HOME": "/home/k"], "/var/lib/tapgrid/cells.json"),
        (.off, ["STATE_DIRECTORY": "/var/lib/tapgrid"], "/var/lib/tapgrid/cells.json"),
        (.off, ["XDG_STATE_HOME": "/home/k/.state", "HOME": "/home/k"], "/home/k/.state/tapgrid/cells.json"),
        (.off, ["XDG_STATE_HOME": "relative", "HOME": "/home/k"], "/home/k/.local/state/tapgrid/cells.json"),
        (.off, [:], "/var/lib/tapgrid/cells.json"),
    ]

    @Test(arguments: cases)
    func besideTheEventLog(_ setting: EventLogSetting, _ environment: [String: String], _ expected: String) {
        #expect(CellsFile.resolvePath(setting, environment: environment) == expected)
    }
}
