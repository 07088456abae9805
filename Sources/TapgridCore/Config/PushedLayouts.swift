/// Layouts pushed at run time with `load` (docs/cell-state.md "Pushed layouts"), layered over the config's:
/// a pushed layout adds a name or hides the config's layout of that name until `unload`. Kept
/// over reloads (each is checked and routed again against the new config's handlers and
/// routes). A value: the daemon holds one and swaps in `combined(with:)`.
public struct PushedLayouts: Sendable {
    private struct Entry: Sendable {
        var definition: JSONValue
        var layout: LoadedLayout
    }

    private var entries: [String: Entry] = [:]

    public init() {}

    /// The pushed layouts' names, sorted.
    public var names: [String] { entries.keys.sorted() }

    public var isEmpty: Bool { entries.isEmpty }

    /// What a `load` did.
    public enum LoadResult: Sendable {
        /// Checked and kept: swap in `combined(with:)`.
        case loaded
        /// The same definition is already pushed under that name: nothing changes.
        case unchanged
        /// Refused, with every error (named from `load.definition`); nothing changes.
        case refused([Diagnostic])
    }

    /// Checks `definition` as a config layout (at most `ControlRequest.maxDefinitionBytes` as
    /// compact JSON) and keeps it as `name`, routed with `config`'s handlers and routes.
    public mutating func load(_ name: String, definition: JSONValue, config: Config) -> LoadResult {
        if let current = entries[name], current.definition == definition { return .unchanged }
        let (layout, diagnostics) = Self.check(name, definition: definition, config: config)
        guard let layout else { return .refused(diagnostics.errors) }
        entries[name] = Entry(definition: definition, layout: layout)
        return .loaded
    }

    /// What `load` checks, without keeping anything (`tapgrid load --check` runs it offline, so
    /// it says what the daemon would): the size (at most `ControlRequest.maxDefinitionBytes` as
    /// compact JSON), the name, then `ConfigParser.parsePushedLayout` against `config`.
    /// - Returns: the layout (nil on any error) and every error and warning, named from `load`.
    public static func check(
        _ name: String, definition: JSONValue, config: Config
    ) -> (layout: LoadedLayout?, diagnostics: Diagnostics) {
        var refused = Diagnostics()
        var compact: [UInt8] = []
        JSONWriter.appendValue(definition, to: &compact)
        if compact.count > ControlRequest.maxDefinitionBytes {
            refused.error("load.definition: \(compact.count) bytes as compact JSON; at most \(ControlRequest.maxDefinitionBytes) (1 MiB)")
            return (nil, refused)
        }
        if name.isEmpty {
            refused.error("load.layout: a layout needs a non-empty name")
            return (nil, refused)
        }
        return ConfigParser.parsePushedLayout(name: name, definition: definition, config: config)
    }

    /// Forgets the pushed layout `name`. - Returns: false when no layout of that name was pushed.
    public mutating func unload(_ name: String) -> Bool { entries.removeValue(forKey: name) != nil }

    /// `config` with the pushed layouts in: each replaces the config's layout of its name or is
    /// added (layouts stay sorted by name).
    public func combined(with config: Config) -> Config {
        guard !entries.isEmpty else { return config }
        var combined = config
        combined.layouts = config.layouts.filter { entries[$0.name] == nil } + entries.values.map(\.layout)
        combined.layouts.sort { $0.name < $1.name }
        return combined
    }

    /// Checks and routes every pushed layout again against a newly loaded config.
    /// - Returns: the names dropped because they no longer pass, with why.
    public mutating func reroute(for config: Config) -> [(name: String, errors: [Diagnostic])] {
        var dropped: [(String, [Diagnostic])] = []
        for name in names {
            let entry = entries[name]!
            let (layout, diagnostics) = ConfigParser.parsePushedLayout(name: name, definition: entry.definition, config: config)
            if let layout {
                entries[name]!.layout = layout
            } else {
                entries[name] = nil
                dropped.append((name, diagnostics.errors))
            }
        }
        return dropped
    }
}
