import Foundation
import Testing

@testable import TapgridCLI
import TapgridCore
import TapgridTestSupport

/// Offline `replay` of a slider's taps (docs/touch.md "Sliders"): a plain tap on a slider is
/// recorded as a `release` and replayed as the tap request it was; a drag's change and release
/// are replayed through the recognizer, each value worked out again from its point.
@Suite struct SliderReplayCommandTests {
    static let config = #"""
    {"layouts": {"panel": {"width": 400, "height": 100, "grid": {"cols": [
        {"size": 200, "name": "volume", "tag": 1, "slider": {"min": 0, "max": 100, "step": 1}},
        {"size": 200, "name": "plain", "tag": 2}]}}},
     "handlers": {"volume": {"type": "log"}, "audit": {"type": "log"}},
     "routes": [{"tags": [1], "handler": "volume", "on": ["change", "release"]}, {"handler": "audit"}]}
    """#

    /// As tapgridd 5efed0d wrote it: a plain tap on the slider, one on the plain grid, a drag.
    static let events = """
        {"time":"2026-12-06T08:44:39.503Z","run":"r","seq":1,"layout":"panel","generation":1,"x":50,"y":50,"hit":"0","name":"volume","tag":1,"actionData":null,"handler":"volume","outcome":"dispatched","class":"release","value":25}
        {"time":"2026-12-06T08:44:39.516Z","run":"r","seq":2,"layout":"panel","generation":1,"x":300,"y":50,"hit":"1","name":"plain","tag":2,"actionData":null,"handler":"audit","outcome":"dispatched"}
        {"time":"2026-12-06T08:44:39.751Z","run":"r","event":"touch","phase":"down","slot":0,"x":20,"y":50,"source":"socket","conn":3,"ms":1000,"current":"panel"}
        {"time":"2026-12-06T08:44:39.752Z","run":"r","event":"touch","phase":"move","slot":0,"x":60,"y":50,"source":"socket","conn":3,"ms":1001}
        {"time":"2026-12-06T08:44:39.752Z","run":"r","seq":3,"layout":"panel","generation":1,"x":60,"y":50,"hit":"0","name":"volume","tag":1,"actionData":null,"handler":"volume","outcome":"dispatched","class":"change","source":"socket","value":30}
        {"time":"2026-12-06T08:44:39.752Z","run":"r","event":"touch","phase":"up","slot":0,"x":100,"y":50,"source":"socket","conn":3,"ms":1002}
        {"time":"2026-12-06T08:44:39.752Z","run":"r","seq":4,"layout":"panel","generation":1,"x":100,"y":50,"hit":"0","name":"volume","tag":1,"actionData":null,"handler":"volume","outcome":"dispatched","class":"release","source":"socket","value":50}

        """

    @Test func aRecordedDragAndPlainTapsReplayClean() throws {
        let dir = try folder(["tapgrid.json": Self.config, "e.jsonl": Self.events])
        defer { removeTempDir(dir) }
        let result = run(["replay", dir + "/e.jsonl", "--config", dir + "/tapgrid.json"])
        #expect(result.out == "4 taps, 0 differ\n")
        #expect(result.code == 0)
    }
}
