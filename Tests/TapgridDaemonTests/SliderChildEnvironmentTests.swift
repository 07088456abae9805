import Testing

@testable import TapgridCore
@testable import TapgridDaemon

/// A slider's tap gives its handler child `TAPGRID_CLASS` and `TAPGRID_VALUE` (docs/touch.md
/// "Sliders"); every other tap's environment is as before.
@Suite struct SliderChildEnvironmentTests {
    @Test func aSlidersClassAndValue() {
        var slider = request(shellHandler(), .string("true"), seq: 7)
        slider.cell = CellState(valueJSON: "40")
        slider.slider = (.change, 42.5)
        let entries = ChildEnvironment.entries(inherited: [], for: slider)
        #expect(Array(entries.suffix(2)) == ["TAPGRID_VALUE=42.5", "TAPGRID_CLASS=change"])
        #expect(!entries.contains("TAPGRID_VALUE=40"))

        var plain = request(shellHandler(), .string("true"), seq: 8)
        plain.cell = CellState(valueJSON: #"{"a":1}"#)
        let plainEntries = ChildEnvironment.entries(inherited: [], for: plain)
        #expect(plainEntries.last == #"TAPGRID_VALUE={"a":1}"#)
        #expect(!plainEntries.contains { $0.hasPrefix("TAPGRID_CLASS=") })
    }
}
