import Testing

@testable import TapgridCore

/// Offline replay follows cell state: the recorded `set`s are applied, toggles flip as the daemon
/// flipped them (continuing from a set's value), and a grid a set disabled refuses the taps after it.
@Suite struct CellReplayTests {
    /// Four 100-wide grids: lamp toggles, fan toggles and routes `long` to menu, remove and label
    /// do not toggle (label routes nowhere).
    static let config = #"""
    {"layouts": {"panel": {"width": 400, "height": 100, "longPressMs": 300, "grid": {"cols": [
        {"name": "lamp", "size": 100, "tag": 1, "toggle": true},
        {"name": "fan", "size": 100, "tag": 2, "toggle": true},
        {"name": "remove", "size": 100, "tag": 3},
        {"name": "label", "size": 100, "tag": 4}]}}},
     "handlers": {"audit": {"type": "log"}, "menu": {"type": "log"}},
     "routes": [{"tags": [2], "handler": "menu", "on": "long"}, {"tags": [1, 2, 3], "handler": "audit"}]}
    """#

    /// A replay of `config` fed one record at a time (a class: `#expect` takes no mutating calls).
    final class Player {
        var replay: OfflineReplay

        init() throws { replay = OfflineReplay(config: try TouchReplayTests.config(CellReplayTests.config)) }

        /// A tap request at (x, 50), replayed: `"<hit> <handler> <outcome> active=<active>"`.
        func tap(_ x: Double, layout: String = "panel") -> String {
            Player.describe(replay.tap(TapRecord(seq: "1", layout: layout, x: x, y: 50)))
        }

        @discardableResult
        func apply(_ grid: String, _ state: CellState, source: String = "socket", layout: String = "panel") -> Bool {
            replay.apply(RecordedState(seq: "1", layout: layout, grid: grid, state: state, source: source))
        }

        /// A contact at (150, 50) from `down` to `up` ms: the taps it fired, with their class.
        func touch(_ down: Double, _ up: Double) -> [String] {
            var fired = replay.feed(TouchRecord(phase: .down, slot: 0, x: 150, y: 50, source: "socket", conn: 1, ms: down, current: "panel"))
            fired += replay.feed(TouchRecord(phase: .up, slot: 0, source: "socket", conn: 1, ms: up))
            return fired.map { "\($0.record.tapClass ?? "-") " + Player.describe($0.record) }
        }

        static func describe(_ record: TapRecord?) -> String {
            guard let record else { return "layout gone" }
            return "\(record.hit ?? "miss") \(record.handler ?? "none") \(record.outcome ?? "-") active=\(record.active.map(String.init) ?? "none")"
        }
    }

    @Test func togglesFlipOnEachTapAndContinueFromASetValue() throws {
        let replay = try Player()
        #expect(replay.tap(50) == "0 audit checked active=true")
        #expect(replay.tap(50) == "0 audit checked active=false")
        #expect(replay.apply("0", CellState(active: true)))
        #expect(replay.tap(50) == "0 audit checked active=false")
        #expect(replay.replay.state(layout: "panel", path: "0") == CellState(active: false))
        // A grid that does not toggle carries no active; a miss neither.
        #expect(replay.tap(250) == "2 audit checked active=none")
        #expect(replay.tap(450) == "miss none checked active=none")
        #expect(replay.tap(50, layout: "gone") == "layout gone")
    }

    /// A set that disables a grid: its taps replay as `disabled` (a toggle then flips nothing)
    /// until a set enables it again; the state's other keys stay as recorded.
    @Test func aDisabledGridRefusesTapsUntilEnabled() throws {
        let replay = try Player()
        #expect(replay.tap(250) == "2 audit checked active=none")
        replay.apply("2", CellState(text: "empty", enabled: false))
        #expect(replay.tap(250) == "2 audit disabled active=none")
        replay.apply("0", CellState(active: true, enabled: false), source: "mqtt")
        #expect(replay.tap(50) == "0 audit disabled active=none")
        #expect(replay.replay.state(layout: "panel", path: "0") == CellState(active: true, enabled: false))
        replay.apply("2", CellState(text: "empty", valueJSON: #"{"items":[1,2]}"#))
        #expect(replay.tap(250) == "2 audit checked active=none")
        #expect(replay.replay.state(layout: "panel", path: "2") == CellState(text: "empty", valueJSON: #"{"items":[1,2]}"#))
        // The label routes nowhere; disabled, it is still refused (the outcome says why first).
        replay.apply("3", CellState(enabled: false))
        #expect(replay.tap(350) == "3 none disabled active=none")
    }

    /// A toggle's own record is not applied (the replay flips toggles itself), nor is a set on
    /// a layout or path the config does not have.
    @Test func toggleRecordsAndGridsNoLongerThereAreNotApplied() throws {
        let replay = try Player()
        #expect(!replay.apply("0", CellState(active: true), source: "toggle"))
        #expect(replay.replay.state(layout: "panel", path: "0") == CellState())
        #expect(replay.tap(50) == "0 audit checked active=true")
        #expect(!replay.apply("7", CellState(enabled: false)))
        #expect(!replay.apply("0", CellState(enabled: false), layout: "gone"))
        #expect(replay.tap(50) == "0 audit checked active=false")
        // A newer daemon's source is a change made from outside: applied.
        #expect(replay.apply("0", CellState(enabled: false), source: "http"))
        #expect(replay.tap(50) == "0 audit disabled active=none")
    }

    /// The recognizer's taps share the state: a tap-class tap from a contact flips the toggle the
    /// tap requests flip, a long press flips nothing, and a disabled grid refuses both.
    @Test func touchTapsShareTheStateWithTapRequests() throws {
        let replay = try Player()
        #expect(replay.touch(1000, 1050) == ["tap 1 audit dispatched active=true"])
        #expect(replay.touch(2000, 2400) == ["long 1 menu dispatched active=none"])
        #expect(replay.tap(150) == "1 audit checked active=false")
        #expect(replay.touch(3000, 3050) == ["tap 1 audit dispatched active=true"])
        replay.apply("1", CellState(active: true, enabled: false))
        #expect(replay.touch(4000, 4050) == ["tap 1 audit disabled active=none"])
        #expect(replay.touch(5000, 5400) == ["long 1 menu disabled active=none"])
    }
}
