import Testing

@testable import TapgridCore

/// Replaying touch records runs the recognizer again on their timing.
@Suite struct TouchReplayTests {
    static func config(_ text: String) throws -> Config {
        var parser = ConfigParser(file: "t.json", directory: "/etc/tapgrid") { path in .failure(Diagnostic(.error, "no \(path)")) }
        let (loaded, diagnostics) = parser.parse(try JSONParser.parse(text, lenient: true))
        #expect(diagnostics.errors.isEmpty, "\(diagnostics.all)")
        return try #require(loaded)
    }

    /// A press held 400 ms on B (tag 2, long), a quick tap on A, two taps on D (double), one on D.
    static let records: [TouchRecord] = [
        TouchRecord(phase: .down, slot: 0, x: 30, y: 50, source: "socket", conn: 4, ms: 1000, current: "pad"),
        TouchRecord(phase: .up, slot: 0, source: "socket", conn: 4, ms: 1400),
        TouchRecord(phase: .down, slot: 0, x: 10, y: 50, source: "Fake Touchscreen", ms: 2000, current: "pad"),
        TouchRecord(phase: .up, slot: 0, x: 11, y: 50, source: "Fake Touchscreen", ms: 2050),
        TouchRecord(phase: .down, slot: 0, x: 70, y: 50, source: "socket", conn: 4, ms: 3000, current: "pad"),
        TouchRecord(phase: .up, slot: 0, source: "socket", conn: 4, ms: 3050),
        TouchRecord(phase: .down, slot: 0, x: 70, y: 50, source: "socket", conn: 4, ms: 3100, current: "pad"),
        TouchRecord(phase: .up, slot: 0, source: "socket", conn: 4, ms: 3150),
        TouchRecord(phase: .down, slot: 1, x: 70, y: 50, source: "socket", conn: 4, ms: 4000, current: "pad"),
        TouchRecord(phase: .up, slot: 1, source: "socket", conn: 4, ms: 4020),
        TouchRecord(phase: .down, slot: 1, x: 10, y: 50, source: "socket", conn: 4, ms: 4500, current: "pad"),
    ]

    func replay(_ config: Config) -> [String] {
        var replay = OfflineReplay(config: config)
        var taps: [TapRecord] = []
        for record in Self.records { taps += replay.feed(record).map(\.record) }
        taps += replay.finish().map(\.record)
        return taps.map { "\($0.tapClass ?? "-") \($0.hit ?? "miss") \($0.handler ?? "none")" }
    }

    @Test func theRecognizerRunsAgainOnTheRecordedTiming() throws {
        let config = try Self.config(TouchRecognizerTests.config)
        // The single tap on D fires when its window ends (4270), before the last down (4500).
        #expect(replay(config) == ["tap 1 audit", "tap 0 audit", "double 3 zoom", "tap 3 audit"])
        // With a long press of 300 ms, the 400 ms press on B is a long press.
        let shorter = try Self.config(TouchRecognizerTests.config.replacingOccurrences(
            of: #""pad": {"width": 100,"#, with: #""pad": {"longPressMs": 300, "width": 100,"#))
        #expect(replay(shorter) == ["long 1 menu", "tap 0 audit", "double 3 zoom", "tap 3 audit"])
    }
}
