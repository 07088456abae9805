import TapgridCore
import TapgridSystem

extension ConfigLoader {
    /// The most an icon font may take (Debian's is 1.7 MiB).
    public static let maxIconFontBytes = 32 << 20

    /// The icon set a config draws from (docs/panel.md "What a cell shows"): its `iconFont`, else
    /// Debian's Material Design Icons, read as the config's other files are.
    /// - Returns: the set, or nil with why: an error for a named `iconFont` that cannot be read
    ///   or is no SVG font; one warning (cells then show their labels only) for Debian's font
    ///   missing, with the package that brings it.
    /// - Parameter debianFont: where Debian's font is (a test names a missing one).
    public static func readIcons(for config: Config, debianFont: String = IconSet.debianFont) -> (icons: IconSet?, diagnostics: Diagnostics) {
        var diagnostics = Diagnostics()
        let problem: String
        switch readIconSet(config.iconFont ?? debianFont) {
        case .success(let icons): return (icons, diagnostics)
        case .failure(let failure): problem = failure.message
        }
        if config.iconFont != nil {
            diagnostics.append(Diagnostic(.error, file: config.file, "iconFont: \(problem)"))
        } else {
            diagnostics.append(Diagnostic(.warning, file: config.file,
                "icons: \(problem); cells show their labels only (install \(IconSet.debianPackage), or name an SVG font with \"iconFont\")"))
        }
        return (nil, diagnostics)
    }

    /// Reads one SVG font (a regular file of at most `maxIconFontBytes`).
    /// - Returns: its icons, or why not (`cannot read PATH: ...`, or `PATH: no <glyph> ...`).
    public static func readIconSet(_ path: String) -> Result<IconSet, IconSet.Problem> {
        do {
            let bytes = try Files.readFile(path, maxBytes: maxIconFontBytes) { notRegularProblem($0) }
            do throws(IconSet.Problem) {
                return .success(try IconSet.parse(bytes))
            } catch {
                return .failure(IconSet.Problem("\(path): \(error.message)"))
            }
        } catch {
            return .failure(IconSet.Problem(error.description))
        }
    }

    /// What `check` says of icons: nothing for a config that names none and no `iconFont`; else
    /// `readIcons`'s problem, or a warning for each icon the set lacks.
    static func iconDiagnostics(for config: Config) -> Diagnostics {
        let usesIcons = config.layouts.contains { layout in layout.tree.looks.contains { $0.icon != nil } }
        guard usesIcons || config.iconFont != nil else { return Diagnostics() }
        var (icons, diagnostics) = readIcons(for: config)
        if let icons {
            for warning in icons.warnings(for: config, source: config.iconFont ?? IconSet.debianFont) { diagnostics.append(warning) }
        }
        return diagnostics
    }
}
