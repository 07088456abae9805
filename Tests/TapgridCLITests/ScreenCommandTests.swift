import Foundation
import Testing

@testable import TapgridCLI
import TapgridCore
import TapgridTestSupport

/// `tapgrid wake`, `tapgrid screen` and `tapgrid status`'s `screen:` line in-process: the request
/// lines sent (read by a `FakeDaemon`), what is printed of the replies, and the exit codes.
@Suite(.serialized) struct ScreenCommandTests {
    /// Runs `arguments` plus `--socket` of a fake daemon answering `reply`; returns what was
    /// printed and the request lines the daemon got.
    func against(_ arguments: [String], reply: String) throws -> (result: ProgramResult, requests: [String]) {
        let daemon = try FakeDaemon { _, _ in reply }
        let result = run(arguments + ["--socket", daemon.path])
        daemon.finish()
        return (result, daemon.state.withLock { $0.requests })
    }

    /// A second ago, and how `tapgrid` shows it: this machine's local time of day (the same day,
    /// unless the second was yesterday's).
    static let since = Date().timeIntervalSince1970.rounded(.down) - 1
    static var shown: String {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone.current
        formatter.locale = Locale(identifier: "en_US_POSIX")
        let date = Date(timeIntervalSince1970: since)
        formatter.dateFormat = Calendar.current.isDateInToday(date) ? "HH:mm:ss" : "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    static func screenReply(_ state: String, backlight: String = "null") -> String {
        #"{"ok":true,"screen":{"state":"\#(state)","since":\#(formatNumber(since)),"backlight":\#(backlight)}}"#
    }

    @Test func wakeSendsTheOpAndPrintsTheScreen() throws {
        let (result, requests) = try against(["wake"], reply: Self.screenReply("on"))
        #expect(requests == [#"{"op":"wake"}"#])
        #expect(result.out == "screen on (since \(Self.shown))\n")
        #expect(result.err == "" && result.code == 0)
        let json = try against(["wake", "--json"], reply: Self.screenReply("on"))
        #expect(json.result.out == Self.screenReply("on") + "\n")  // --json: the reply as it came
    }

    @Test(arguments: ["on", "dim", "off"])
    func screenSendsTheState(state: String) throws {
        let backlight = #"{"path":"/sys/class/backlight/panel","value":0,"error":null}"#
        let (result, requests) = try against(["screen", state], reply: Self.screenReply(state, backlight: backlight))
        #expect(requests == [#"{"op":"screen","state":"\#(state)"}"#])
        #expect(result.out == "screen \(state) (since \(Self.shown)), backlight 0 (/sys/class/backlight/panel)\n")
        #expect(result.code == 0)
    }

    /// The daemon's refusal is the error line and exit 1, as for `use`.
    @Test func aDaemonWithoutAScreenRefuses() throws {
        let (result, _) = try against(
            ["screen", "off"],
            reply: #"{"error":{"code":"bad_request","message":"the config has no \"screen\" block: there is no screen to set"}}"#)
        #expect(result.code == 1)
        #expect(result.out == "")
        #expect(result.err == #"Error: bad_request: the config has no "screen" block: there is no screen to set"# + "\n")
    }

    @Test func anUnknownStateIsAUsageError() {
        let result = run(["screen", "bright"])
        #expect(result.code == 64)
        #expect(result.err == """
            Error: The value 'bright' is invalid for '<state>'. Please provide one of 'on', 'dim' or 'off'.
            Usage: tapgrid screen <state> [--socket <path>] [--config <path>] [--json]
              See 'tapgrid screen --help' for more information.

            """)
    }

    static let status = #"{"uptime":12.5,"generation":3,"layout":"home","taps":42,"outcomes":{"dispatched":42},"children":0,"queued":0,"clients":1,"eventLog":{"path":null,"ok":true}"#

    /// The `screen:` line: the state, since when, and the backlight's value or why it cannot be written.
    @Test(arguments: [
        (#""backlight":{"path":"/sys/class/backlight/x","value":0,"error":null}"#, ", backlight 0 (/sys/class/backlight/x)"),
        (#""backlight":{"path":"/sys/class/backlight/x","value":255,"error":"open /sys/class/backlight/x/brightness: Permission denied (errno 13)"}"#,
         ", backlight: open /sys/class/backlight/x/brightness: Permission denied (errno 13)"),
        (#""backlight":{"path":"/sys/class/backlight/x","value":null,"error":null}"#, ", backlight - (/sys/class/backlight/x)"),
        (#""backlight":null"#, ""),
    ])
    func statusPrintsTheScreen(backlight: String, shown: String) throws {
        let reply = Self.status + #","screen":{"state":"off","since":\#(formatNumber(Self.since)),\#(backlight)}}"#
        let (result, requests) = try against(["status"], reply: reply)
        #expect(requests == [#"{"op":"status"}"#])
        #expect(result.out == """
            layout: home  generation: 3  uptime: 12.5s
            taps: 42  children: 0  clients: 1
            outcomes: dispatched 42
            event log: - ok
            screen: off since \(Self.shown)\(shown)

            """)
        // Without a screen block, no screen line.
        let none = try against(["status"], reply: Self.status + "}")
        #expect(!none.result.out.contains("screen"))
    }

    /// Times of the day it is now show the clock alone; earlier days their date too, all in the
    /// zone given (here two hours east of UTC, across midnight UTC).
    @Test func localTimes() {
        // 2026-12-06T23:30:00Z is 01:30 on the 7th two hours east.
        let now = 1_796_599_800.0
        let time = LocalTime(now: now, utcOffset: { _ in 7200 })
        #expect(time.text(now) == "01:30:00")
        #expect(time.text(now - 3600) == "00:30:00")
        #expect(time.text(now - 5400.5) == "2026-12-06 23:59:59")
        #expect(time.text(now - 86_400 * 365) == "2025-12-07 01:30:00")
        let utc = LocalTime(now: now, utcOffset: { _ in 0 })
        #expect(utc.text(now - 5400.5) == "21:59:59")
        #expect(utc.text(now - 86_400) == "2026-12-05 23:30:00")
    }
}
