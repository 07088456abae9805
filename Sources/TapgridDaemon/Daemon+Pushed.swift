import TapgridCore
import TapgridSystem

/// Layouts pushed with `load` and taken back with `unload` (docs/cell-state.md "Pushed layouts"),
/// kept over reloads and layered over the config's own: each is a config swap in all but the file.
extension Daemon {
    var pushedLayouts: [String] { pushed.names }

    func load(layout name: String, definition: JSONValue) -> PushOutcome {
        switch pushed.load(name, definition: definition, config: baseConfig) {
        case .unchanged: return .unchanged(generation: generation)
        case .refused(let errors):
            let text = errors.map(\.description).joined(separator: "\n")
            log.info("load of layout \(name) refused: \(text)")
            return .refused(.configError, text)
        case .loaded:
            swapInPushed()
            log.info("layout \(name) loaded: generation \(generation)", kind: .reload)
            return .done(generation: generation)
        }
    }

    func unload(layout name: String) -> PushOutcome {
        guard pushed.unload(name) else {
            let names = pushed.names
            return .refused(.unknownLayout, "layout \(jsonEscaped(name)) was not pushed; "
                + (names.isEmpty ? "no layout is" : "the pushed layouts are " + names.map(jsonEscaped).joined(separator: ", ")))
        }
        swapInPushed()
        log.info("layout \(name) unloaded: generation \(generation), layout \(output.engine.currentLayoutName)", kind: .reload)
        return .done(generation: generation)
    }

    /// Swaps in the config with the pushed layouts as they now are: a config load in all but
    /// the file (the generation goes up, contacts in flight end, cell state follows by path).
    func swapInPushed() {
        output.engine.swap(to: pushed.combined(with: baseConfig), generation: generation + 1)
        output.recordEndedContacts(now: output.clock.monotonic)
        touch.reschedule()
    }
}
