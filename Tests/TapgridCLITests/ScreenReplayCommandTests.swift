import Foundation
import Testing

@testable import TapgridCLI
import TapgridCore
import TapgridTestSupport

/// Offline `replay` with the config's `screen` block: a contact the screen would now use up is held
/// back (its recorded taps differ as used up), a recorded waking touch the screen would now press
/// differs, `screen` records made by ops are made again, and screen and wake records are read
/// without failing (a broken one is unreadable).
@Suite struct ScreenReplayCommandTests {
    /// Two keys, every tap to one log handler; `screen` as given.
    static func config(screen: String?) -> String {
        """
        {"layouts": {"panel": {"width": 200, "height": 100, "grid": {"cols": [
            {"name": "lamp", "size": 100, "tag": 1}, {"name": "fan", "size": "fill", "tag": 2}]}}},
         "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]\(screen.map { #", "screen": "# + $0 } ?? "")}
        """
    }

    static let screen = #"{"dimSeconds": 30, "offSeconds": 120}"#

    /// Recorded by a daemon without a screen block, then one whose screen woke at 10:01:02 and
    /// was switched off by an op at 10:01:03.
    static let events = """
        {"time":"2026-12-06T10:00:00.000Z","run":"r","event":"touch","phase":"down","slot":0,"x":50,"y":50,"source":"socket","conn":2,"ms":1000,"current":"panel"}
        {"time":"2026-12-06T10:00:00.050Z","run":"r","event":"touch","phase":"up","slot":0,"source":"socket","conn":2,"ms":1050}
        {"time":"2026-12-06T10:00:00.050Z","run":"r","seq":1,"layout":"panel","generation":1,"x":50,"y":50,"hit":"0","name":"lamp","tag":1,"actionData":null,"handler":"audit","outcome":"dispatched","class":"tap","source":"socket"}
        {"time":"2026-12-06T10:01:00.000Z","run":"r","event":"touch","phase":"down","slot":0,"x":150,"y":50,"source":"socket","conn":3,"ms":61000,"current":"panel"}
        {"time":"2026-12-06T10:01:00.050Z","run":"r","event":"touch","phase":"up","slot":0,"source":"socket","conn":3,"ms":61050}
        {"time":"2026-12-06T10:01:00.050Z","run":"r","seq":2,"layout":"panel","generation":1,"x":150,"y":50,"hit":"1","name":"fan","tag":2,"actionData":null,"handler":"audit","outcome":"dispatched","class":"tap","source":"socket"}
        {"time":"2026-12-06T10:01:01.000Z","run":"r","event":"touch","phase":"down","slot":0,"x":50,"y":50,"source":"socket","conn":4,"ms":62000,"current":"panel"}
        {"time":"2026-12-06T10:01:01.050Z","run":"r","event":"touch","phase":"up","slot":0,"source":"socket","conn":4,"ms":62050}
        {"time":"2026-12-06T10:01:01.050Z","run":"r","seq":3,"layout":"panel","generation":1,"x":50,"y":50,"hit":"0","name":"lamp","tag":1,"actionData":null,"handler":"audit","outcome":"dispatched","class":"tap","source":"socket"}
        {"time":"2026-12-06T10:01:02.000Z","run":"r","seq":4,"event":"wake","source":"socket","conn":5,"x":50,"y":50}
        {"time":"2026-12-06T10:01:03.000Z","run":"r","seq":5,"event":"screen","state":"off","reason":"op"}
        {"time":"2026-12-06T10:01:04.000Z","run":"r","seq":6,"event":"wake","source":"Fake Touchscreen","conn":null,"x":150,"y":50}
        {"time":"2026-12-06T10:01:04.000Z","run":"r","seq":7,"event":"screen","state":"on","reason":"touch"}
        {"time":"2026-12-06T10:01:05.000Z","run":"r","seq":8,"event":"screen","state":"bright","reason":"op"}

        """

    func replay(screen: String?, json: Bool = false) throws -> ProgramResult {
        let dir = try folder(["tapgrid.json": Self.config(screen: screen), "e.jsonl": Self.events])
        defer { removeTempDir(dir) }
        return run(["replay", dir + "/e.jsonl", "--config", dir + "/tapgrid.json"] + (json ? ["--json"] : []))
    }

    /// With the screen block, the contact a minute after the last one finds the screen dim: held
    /// back, its tap differs; the next contact presses. The first wake finds the screen lit (the
    /// held-back contact woke it a second before); the second, after the op's `off`, is used up.
    @Test func theScreenHoldsBackContactsAndPressesWakes() throws {
        let result = try replay(screen: Self.screen)
        #expect(result.out == """
            line 10 seq 4 (50, 50) wake: used up -> pressed (the screen would be on)
            line 14: unreadable: not a screen record (needs seq, "state" on, dim or off, and reason)
            line 6 seq 2 (150, 50) panel: tap 1 tag 2 -> used up: this touch would now wake the screen
            3 taps, 2 differ, 1 unreadable

            """)
        #expect(result.err == "")
        #expect(result.code == 1)
        let json = try replay(screen: Self.screen, json: true)
        #expect(json.out == """
            {"line": 10, "seq": 4, "event": "wake", "source": "socket", "x": 50, "y": 50, "recorded": "used up", "replayed": "pressed", "why": "the screen would be on"}
            {"line": 14, "unreadable": "not a screen record (needs seq, \\"state\\" on, dim or off, and reason)"}
            {"line": 6, "seq": 2, "x": 150, "y": 50, "layout": "panel", "recorded": {"hit": "1", "tag": 2, "actionData": null, "handler": "audit"}, "replayed": {"hit": null, "tag": null, "actionData": null, "handler": null, "problem": "used up: this touch would now wake the screen"}}
            {"taps": 3, "differ": 2, "unreadable": 1}

            """)
    }

    /// Without a screen block every contact presses, and both recorded wakes would be pressed.
    @Test func withoutAScreenEveryWakeWouldBePressed() throws {
        let result = try replay(screen: nil)
        #expect(result.out == """
            line 10 seq 4 (50, 50) wake: used up -> pressed (the config has no screen block)
            line 12 seq 6 (150, 50) wake: used up -> pressed (the config has no screen block)
            line 14: unreadable: not a screen record (needs seq, "state" on, dim or off, and reason)
            3 taps, 2 differ, 1 unreadable

            """)
        #expect(result.code == 1)
    }

    /// `wakeTouch` `pass`: nothing is held back, and a recorded wake would be pressed.
    @Test func withPassEveryContactPresses() throws {
        let result = try replay(screen: #"{"dimSeconds": 30, "offSeconds": 120, "wakeTouch": "pass"}"#)
        #expect(result.out == """
            line 10 seq 4 (50, 50) wake: used up -> pressed (wakeTouch is "pass")
            line 12 seq 6 (150, 50) wake: used up -> pressed (wakeTouch is "pass")
            line 14: unreadable: not a screen record (needs seq, "state" on, dim or off, and reason)
            3 taps, 2 differ, 1 unreadable

            """)
    }

    /// The first contact, the op's `off` and the wake it took: the screen replays them the same, exit 0.
    @Test func aLogItsScreenReplaysTheSameExitsZero() throws {
        let events = Self.events.split(separator: "\n").enumerated()
            .filter { ![3, 4, 5, 6, 7, 8, 9, 13].contains($0.offset) }.map { $0.element + "\n" }.joined()
        let dir = try folder(["tapgrid.json": Self.config(screen: Self.screen), "e.jsonl": events])
        defer { removeTempDir(dir) }
        let result = run(["replay", dir + "/e.jsonl", "--config", dir + "/tapgrid.json"])
        #expect(result.out == "1 tap, 0 differ\n")
        #expect(result.code == 0)
    }
}
