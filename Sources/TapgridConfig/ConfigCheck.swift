import TapgridArguments
import TapgridCore

extension ConfigLoader {
    /// Loads a config for `tapgrid check` and `tapgridd --check`: the load's diagnostics plus the
    /// geometry warnings of every layout that resolved (negative sizes, overlapping siblings).
    public static func check(
        path: String, missingDefaultHint: String = DefaultPaths.missingConfigHint(.configOption)
    ) -> (config: Config?, diagnostics: Diagnostics) {
        check(path: path, missingHint: path == DefaultPaths.systemConfig ? missingDefaultHint : nil)
    }

    /// The same, with `missingHint` said after "no such file" whatever the path.
    public static func check(path: String, missingHint: String?) -> (config: Config?, diagnostics: Diagnostics) {
        var (config, diagnostics) = load(path: path, missingHint: missingHint)
        for layout in config?.layouts ?? [] {
            for warning in layout.resolved.geometryWarnings(layout: layout.name) {
                var warning = warning
                warning.file = path
                diagnostics.append(warning)
            }
        }
        return (config, diagnostics)
    }
}
