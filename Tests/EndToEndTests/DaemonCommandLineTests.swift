import Foundation
import Testing

import TapgridTestSupport

/// `tapgridd`'s own command line: version, help, and `--check` giving what `tapgrid check` gives.
@Suite struct DaemonCommandLineTests {
    func tapgridd(_ arguments: [String]) throws -> (code: Int32, out: String, err: String) {
        try runProgram(daemonBinary, arguments)
    }

    @Test func versionAndHelp() throws {
        #expect(try tapgridd(["--version"]).out == "tapgridd 0.1.0\n")
        let help = try tapgridd(["-h"])
        #expect(help.code == 0)
        #expect(help.out.hasPrefix("OVERVIEW: "))
        #expect(help.out.contains("USAGE: tapgridd [--config <path>] [--socket <path>] [--check] [--verbose]"))
    }

    /// No --config, no $TAPGRID_CONFIG and nothing at the default path: say how to name a config.
    @Test(.enabled(if: !FileManager.default.fileExists(atPath: "/etc/tapgrid/tapgrid.json"), "a config is installed at the default path"))
    func missingDefaultConfigSaysHowToNameOne() throws {
        let message = "cannot read /etc/tapgrid/tapgrid.json: No such file or directory (errno 2); this is the default config: name another with --config PATH or $TAPGRID_CONFIG\n"
        let run = try runProgram(daemonBinary, [], environment: ["PATH": "/usr/bin:/bin"])
        #expect(run.code == 1)
        #expect(run.err == "tapgridd: error: " + message)
        let check = try runProgram(daemonBinary, ["--check"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(check.code == 1)
        #expect(check.err == "error: " + message)
    }

    @Test func checkReportsGeometryWarningsAndStillPasses() throws {
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        let config = #"{"layouts": {"a": {"width": 100, "height": 10, "grid": {"cols": [{"size": 80, "tag": 1}, {"size": 60, "tag": 2}, {"size": "fill", "tag": 3}]}}}}"#
        try config.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        let result = try tapgridd(["--check", "--config", dir + "/c.json"])
        #expect(result.code == 0)
        #expect(result.err.contains(#"warning: \#(dir)/c.json: layout "a", grid 1: overlaps its sibling 2"#))
        #expect(result.err.hasSuffix("\(dir)/c.json: valid, 1 layout\n"))
    }
}
