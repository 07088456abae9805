import Foundation
import Testing

import TapgridTestSupport

/// The built `tapgrid` binary, run as a user would: stdout, stderr and exit code.
@Suite struct CLIBinaryTests {
    fileprivate static let root = packageRoot
    fileprivate static let binary = cliBinary
    fileprivate static let example = root.appendingPathComponent("examples/tapgrid.json").path

    /// Runs the built `tapgrid` with a minimal environment plus `environment`.
    fileprivate func tapgrid(_ arguments: [String], environment: [String: String] = [:]) throws -> (code: Int32, out: String, err: String) {
        try runProgram(CLIBinaryTests.binary, arguments, environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 })
    }

    @Test func helpGoesToStdoutAndExitsZero() throws {
        let result = try tapgrid(["--help"])
        #expect(result.code == 0)
        #expect(result.out.hasPrefix("OVERVIEW: "))
        #expect(result.out.contains("\nUSAGE: tapgrid <subcommand>\n"))
        #expect(result.out.contains("\nOPTIONS:\n"))
        #expect(result.out.contains("\nSUBCOMMANDS:\n"))
        #expect(result.err.isEmpty)
        let sub = try tapgrid(["help", "show"])
        #expect(sub.code == 0)
        #expect(sub.out.contains("USAGE: tapgrid show"))
    }

    @Test func versionPrintsTheVersion() throws {
        let result = try tapgrid(["--version"])
        #expect(result.code == 0)
        #expect(result.out.hasPrefix("tapgrid 0."))
    }

    @Test(arguments: [
        (["show", "--format", "pdf"], "Error: The value 'pdf' is invalid for '--format <format>'"),
        (["hit", "1"], "Error: Missing expected argument '<y>'"),
        (["frobnicate"], "Error: Unknown subcommand 'frobnicate'; the subcommands are 'tap', "),
        (["stauts"], "Error: Unknown subcommand 'stauts'; did you mean 'status'?\n"),
        (["hit", "1", "2", "--socket", "/s", "--config", "c.json"],
         "Error: '--socket <path>' and '--config <path>' cannot be combined; use one or the other\n"),
        (["check", "--bogus"], "Error: Unknown option '--bogus'"),
        (["tap", "1", "2", "--socket"], "Error: Missing value for '--socket <path>'"),
    ])
    func usageErrorsExit64(arguments: [String], message: String) throws {
        let result = try tapgrid(arguments)
        #expect(result.code == 64)
        #expect(result.out.isEmpty)
        #expect(result.err.hasPrefix(message))
        #expect(result.err.contains("\nUsage: tapgrid"))
    }

    @Test func checkTheExampleConfig() throws {
        let result = try tapgrid(["check", CLIBinaryTests.example])
        #expect(result.code == 0)
        #expect(result.out.contains(#"layout "home": 16 grids, 11 hittable (800x480 ltr), initial"#))
        #expect(result.out.contains(#"layout "settings": "#))
        #expect(result.out.hasSuffix(": 0 errors, 0 warnings\n"))
    }

    @Test func checkUsesTAPGRID_CONFIG() throws {
        let result = try tapgrid(["check"], environment: ["TAPGRID_CONFIG": CLIBinaryTests.example])
        #expect(result.code == 0)
        let missing = try tapgrid(["check"], environment: ["TAPGRID_CONFIG": "/nonexistent.json"])
        #expect(missing.code == 1)
        #expect(missing.out.contains("error: cannot read /nonexistent.json: No such file or directory (errno 2)"))
    }

    @Test func checkFailsOnABrokenConfig() throws {
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        let config = #"{"layouts": {"a": {"width": 10, "height": 10, "grid": {"rows": [{"size": -5, "tag": 1}], "cols": []}}}, "routes": [{"handler": "nope"}]}"#
        try config.write(toFile: dir + "/c.json", atomically: true, encoding: .utf8)
        let result = try tapgrid(["check", dir + "/c.json"])
        #expect(result.code == 1)
        #expect(result.out.contains(#"layout "a", grid (root): "rows" and "cols" in one grid"#))
        #expect(result.out.contains(#"layout "a", grid 0: "size": -5 is not a size"#))
        #expect(result.out.contains(#"routes[0].handler: "nope" is not a handler; the handlers are none"#))
    }

    @Test func showJSONAndHitOfTheExample() throws {
        let show = try tapgrid(["show", CLIBinaryTests.example, "--format=json", "--layout", "settings"])
        #expect(show.code == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(show.out.utf8)) as? [String: Any])
        #expect(object["layout"] as? String == "settings")
        let grids = try #require(object["grids"] as? [[String: Any]])
        #expect(grids.count == 14)
        let hit = try tapgrid(["hit", "--config", CLIBinaryTests.example, "--json", "--", "700", "30"])
        #expect(hit.code == 0)
        #expect(hit.out == #"{"layout": "home", "hit": {"path": "0/1", "name": "settings", "tag": 20, "actionData": "settings"}, "handler": "pages", "outcome": "checked"}"# + "\n")
        let miss = try tapgrid(["hit", "-5", "30", "--config", CLIBinaryTests.example])
        #expect(miss.out == "home: miss\n")
    }

    /// The README shows docs/example.svg: it must be what `show` draws for the example today.
    @Test func theREADMEPictureIsUpToDate() throws {
        let result = try tapgrid(["show", CLIBinaryTests.example, "--format", "svg"])
        #expect(result.code == 0)
        let committed = try String(contentsOfFile: CLIBinaryTests.root.appendingPathComponent("docs/example.svg").path, encoding: .utf8)
        #expect(committed == result.out, "docs/example.svg is stale: run `make example-svg`")
    }

    @Test func svgRendersToAFile() throws {
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        let output = dir + "/home.svg"
        let result = try tapgrid(["show", CLIBinaryTests.example, "--format", "svg", "--output", output])
        #expect(result.code == 0)
        let text = try String(contentsOfFile: output, encoding: .utf8)
        #expect(text.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="800" height="480""#))
        #expect(text.contains(">Settings</text>"))  // its "text"
        #expect(text.contains(">sleep</text>"))  // a matrix cell, named by the matrix's "names"
        // The header row's bottom-borderline (thick 2 at scale 1) along its bottom edge.
        #expect(text.contains(##"<rect x="0" y="58" width="800" height="2" fill="#D1D1D1" fill-opacity="1"/>"##))
    }
}
