import Foundation
import Testing

@testable import TapgridCLI
import TapgridConfig
import TapgridCore
import TapgridTestSupport

/// `tapgrid check` and icons (docs/panel.md "What a cell shows"): Debian's Material Design Icons
/// read from its package, an `iconFont` of one's own, and what is said when either is missing.
@Suite struct IconCheckTests {
    static func config(icon: String, iconFont: String? = nil) -> String {
        let font = iconFont.map { #""iconFont": "\#($0)", "# } ?? ""
        return #"{\#(font)"layouts": {"a": {"width": 100, "height": 50, "grid": {"cols": [{"tag": 1, "icon": "\#(icon)"}]}}}}"#
    }

    static let debianFontInstalled = FileManager.default.fileExists(atPath: IconSet.debianFont)

    @Test(.enabled(if: debianFontInstalled, "needs fonts-materialdesignicons-webfont (make test installs it)"))
    func debiansFontHas1650NamedGlyphs() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: IconSet.debianFont)))
        let set = try IconSet.parse(bytes)
        #expect(set.glyphs.count == 1650)
        #expect(set.unitsPerEm == 512 && set.ascent == 448)
        #expect(set.outline("mdi:lightbulb")?.hasPrefix("M") == true)
    }

    @Test(.enabled(if: debianFontInstalled, "needs fonts-materialdesignicons-webfont (make test installs it)"))
    func anIconTheSetLacksIsAWarningWithAHint() throws {
        let dir = try folder(["t.json": Self.config(icon: "mdi:lightbulp")])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/t.json"])
        #expect(result.code == 0)
        #expect(result.out == """
            layout "a": 2 grids, 1 hittable (100x50 ltr), initial
            warning: \(dir)/t.json: layout "a", grid 0: "icon": no icon "mdi:lightbulp" in \(IconSet.debianFont); the cell shows its label alone; did you mean "mdi:lightbulb"?
            \(dir)/t.json: 0 errors, 1 warning

            """)
        let known = try folder(["t.json": Self.config(icon: "mdi:lightbulb")])
        defer { removeTempDir(known) }
        #expect(run(["check", known + "/t.json"]).out.contains("0 errors, 0 warnings"))
    }

    @Test func anIconFontOfOnesOwn() throws {
        let font = #"<svg><font><font-face units-per-em="512" ascent="448"/><glyph glyph-name="lamp" d="M0 0L10 10z"/></font></svg>"#
        let dir = try folder(["t.json": Self.config(icon: "mdi:lamb", iconFont: "icons.svg"), "icons.svg": font])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/t.json"])
        #expect(result.code == 0)
        #expect(result.out.contains(#"warning: \#(dir)/t.json: layout "a", grid 0: "icon": no icon "mdi:lamb" in \#(dir)/icons.svg; the cell shows its label alone; did you mean "mdi:lamp"?"#), "\(result.out)")
    }

    @Test func aNamedIconFontThatCannotBeReadIsAnError() throws {
        let dir = try folder(["t.json": Self.config(icon: "mdi:lamp", iconFont: "missing.svg"), "bad.json": "{}"])
        defer { removeTempDir(dir) }
        let result = run(["check", dir + "/t.json"])
        #expect(result.code == 1)
        #expect(result.out.contains("error: \(dir)/t.json: iconFont: cannot read \(dir)/missing.svg: No such file or directory (errno 2)\n"), "\(result.out)")
        let notFont = try folder(["t.json": Self.config(icon: "mdi:lamp", iconFont: "bad.txt"), "bad.txt": "hello"])
        defer { removeTempDir(notFont) }
        #expect(run(["check", notFont + "/t.json"]).out.contains("error: \(notFont)/t.json: iconFont: \(notFont)/bad.txt: no <glyph> with a glyph-name and a d: not an SVG font\n"))
    }

    /// Without the package: one warning, labels only.
    @Test func withoutDebiansFontOneWarning() throws {
        let document = try JSONParser.parse(Self.config(icon: "mdi:lamp"), lenient: false)
        var parser = ConfigParser(file: "t.json", directory: "/") { _ in .failure(Diagnostic(.error, "none")) }
        let config = try #require(parser.parse(document).config)
        let (icons, diagnostics) = ConfigLoader.readIcons(for: config, debianFont: "/nonexistent/mdi.svg")
        #expect(icons == nil)
        #expect(diagnostics.all.map(\.description) == [
            "t.json: icons: cannot read /nonexistent/mdi.svg: No such file or directory (errno 2); cells show their labels only (install fonts-materialdesignicons-webfont, or name an SVG font with \"iconFont\")"
        ])
    }
}
