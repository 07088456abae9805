/// Cell state (docs/cell-state.md "Cell state"): what `set` changes, what a toggle grid's tap flips, what a
/// disabled grid's tap is refused with, and how state follows a grid across reloads and pushed
/// layouts (by layout name and grid path).
extension TapEngine {
    /// Where a `set` could not go.
    public enum CellFailure: Error, Sendable, Equatable {
        /// `unknown_layout`, with its message.
        case unknownLayout(String)
        /// `unknown_grid`, with its message.
        case unknownGrid(String)
        /// `bad_request`: a `value` a slider cannot take (not a number, or off its scale), with
        /// its message naming the range.
        case badValue(String)
    }

    /// A state change the caller records (`{"event": "state", ...}`) and persists.
    public struct CellUpdate: Sendable, Equatable {
        /// Its sequence number, from the taps' counter.
        public var seq: UInt64
        public var layout: Int
        public var grid: Int
        /// The grid's whole state after the change.
        public var state: CellState
        public init(seq: UInt64, layout: Int, grid: Int, state: CellState) {
            self.seq = seq
            self.layout = layout
            self.grid = grid
            self.state = state
        }
    }

    static func cellKey(_ layout: Int, _ grid: Int) -> UInt64 { UInt64(layout) << 32 | UInt64(grid) }

    /// The grid's state (all null when none was set).
    public func cellState(layout: Int, grid: Int) -> CellState { cells[Self.cellKey(layout, grid)] ?? CellState() }

    /// Whether any grid of any layout has state.
    public var hasCellState: Bool { !cells.isEmpty }

    /// The grid `reference` names in `layout`: a grid's `name` (the first in declaration order),
    /// else a path (`"0/1"`, `""` for the root).
    /// - Returns: the grid index, or the `unknown_grid` message naming the layout's grids.
    public func grid(_ reference: String, in layout: Int) -> Result<Int, CellFailure> {
        if let grid = active.layouts[layout].tree.grid(named: reference) { return .success(grid) }
        if reference.allSatisfy({ $0 == "/" || $0.isASCII && $0.isNumber }),
           let grid = active.layouts[layout].tree.index(ofPath: reference) {
            return .success(grid)
        }
        let tree = active.layouts[layout].tree
        let names = tree.preorder().compactMap { tree.info(of: $0)?.name }
        let listed = names.isEmpty
            ? "it has no named grids (name one by its path, such as \"0/1\")"
            : "its grids are " + names.prefix(20).map(jsonEscaped).joined(separator: ", ") + (names.count > 20 ? ", ..." : "")
        return .failure(.unknownGrid(
            "unknown grid \(jsonEscaped(reference)) in layout \(jsonEscaped(active.layouts[layout].name)); \(listed)"))
    }

    /// Applies a `set`: `layout` nil means the current one.
    /// - Returns: the change to record, nil when the state was already so (nothing recorded), or
    ///   why the request names no grid.
    public mutating func set(layout name: String?, grid reference: String, _ change: CellChange) -> Result<(grid: Int, layout: Int, update: CellUpdate?), CellFailure> {
        guard let layout = layoutIndex(for: name) else { return .failure(.unknownLayout(active.unknownLayout(name!))) }
        let grid: Int
        switch self.grid(reference, in: layout) {
        case .failure(let failure): return .failure(failure)
        case .success(let found): grid = found
        }
        var change = change
        if case .set(let text) = change.valueJSON, let slider = active.slider(layout: layout, grid: grid) {
            switch sliderValue(text, slider.spec, grid: reference, layout: layout) {
            case .failure(let failure): return .failure(failure)
            case .success(let value): change.valueJSON = .set(value)
            }
        }
        let key = Self.cellKey(layout, grid)
        guard updateCell(key, { change.apply(to: &$0) }) else { return .success((grid, layout, nil)) }
        seq += 1
        return .success((grid, layout, CellUpdate(seq: seq, layout: layout, grid: grid, state: cells[key] ?? CellState())))
    }

    /// A `set`'s `value` (compact JSON) for a slider (docs/touch.md "Sliders"): a number within
    /// [min, max], rounded to `step` from min.
    /// - Returns: the rounded value's JSON, or the `bad_request` message naming the range.
    func sliderValue(_ text: String, _ spec: SliderSpec, grid reference: String, layout: Int) -> Result<String, CellFailure> {
        let parsed = try? JSONParser.parse(Array(text.utf8), lenient: false)
        let range = "from \(formatNumber(spec.min)) to \(formatNumber(spec.max))"
        let slider = "slider \(jsonEscaped(reference)) in layout \(jsonEscaped(active.layouts[layout].name))"
        guard case .number(let number)? = parsed else {
            return .failure(.badValue("\"value\" must be a number \(range) for \(slider), not \(parsed?.typeDescription ?? "a value")"))
        }
        let value = number.double
        guard value >= spec.min, value <= spec.max else {
            return .failure(.badValue("\"value\" \(formatNumber(value)) is off the scale of \(slider): expected a number \(range)"))
        }
        return .success(formatNumber(spec.rounded(value)))
    }

    /// Stores a grid's state whole (reloads, replay), as `updateCell` keeps it.
    mutating func store(_ state: CellState, layout: Int, grid: Int) {
        _ = updateCell(Self.cellKey(layout, grid)) { stored in
            stored = state
            return true
        }
    }

    /// Changes a grid's state in place (`set`, the tap path's toggles and slider values): the
    /// state is neither copied out nor back, which a toggle would otherwise pay for each of its
    /// strings. Keeps `disabledCells` and `cellRules` in step and drops a state left all null.
    /// - Parameter change: changes the state; returns false when it left it as it was.
    /// - Returns: what `change` returned.
    @inline(__always)
    mutating func updateCell(_ key: UInt64, _ change: (inout CellState) -> Bool) -> Bool {
        var wasDisabled = false
        var isDisabled = false
        var isEmpty = false
        let changed = { (state: inout CellState) -> Bool in
            wasDisabled = state.isDisabled
            let changed = change(&state)
            isDisabled = state.isDisabled
            isEmpty = state.isEmpty
            return changed
        }(&cells[key, default: CellState()])
        if isEmpty { cells[key] = nil }
        guard changed else { return false }
        if wasDisabled != isDisabled {
            disabledCells += isDisabled ? 1 : -1
            // The tap path checks cells only while `cellRules` is set.
            cellRules = disabledCells > 0 || active.hasToggles || active.hasSliders
        }
        cellsVersion &+= 1
        return true
    }

    /// The tap path's cell rules, run only while `cellRules` is set.
    /// - Returns: true when the grid is disabled (the tap is refused, nothing flips); otherwise a
    ///   `tap`-class tap on a toggle grid has flipped its `active` (`decision.toggledActive`).
    ///   A plain tap on a slider is a `release` at its point (x, y), with its value; a slider's
    ///   `change` or `release` makes its value the grid's state `value` (`decision.storedValue`
    ///   when that changed it).
    mutating func applyCellRules(_ decision: inout TapDecision, target: TapTarget, x: Double, y: Double) -> Bool {
        if decision.tapClass == .tap && !decision.fromContact, let slider = active.slider(layout: decision.layout, grid: target.grid) {
            decision.tapClass = .release
            decision.value = slider.value(atX: x, y: y)
        }
        let key = Self.cellKey(decision.layout, target.grid)
        if disabledCells > 0, cells[key]?.isDisabled == true { return true }
        if let value = decision.value {
            // A slider's change or release: its value is the grid's state `value`, routed or not.
            let text = formatNumber(value)
            decision.storedValue = updateCell(key) { state in
                guard state.valueJSON != text else { return false }
                state.valueJSON = text
                return true
            }
            return false
        }
        guard decision.tapClass == .tap, target.info >= 0, active.layouts[decision.layout].tree.infos[target.info].toggle
        else { return false }
        var flipped = false
        _ = updateCell(key) { state in
            flipped = !(state.active ?? false)
            state.active = flipped
            return true
        }
        decision.toggledActive = flipped
        return false
    }

    // MARK: - Replay

    /// A recorded tap replayed (`tapgrid replay`): hit-tested as `check` does, then put through
    /// the cell rules a `tap`-class tap meets in `tap()`: on a disabled grid it is `.disabled`;
    /// on a toggle grid it flips `active` (`toggledActive`), before routing as the daemon does,
    /// so also when the daemon then found it unrouted or suppressed. Nothing is routed, numbered
    /// or counted, and nothing is to be recorded: the outcome is `.checked` otherwise.
    public mutating func replayTap(layout: Int, x: Double, y: Double) -> TapDecision {
        var decision = check(layout: layout, x: x, y: y)
        if cellRules, let target = decision.target, applyCellRules(&decision, target: target, x: x, y: y) { decision.outcome = .disabled }
        return decision
    }

    /// Puts a grid, named by layout and path, in the state a recorded state record left it in
    /// (replay): nothing numbered or recorded.
    /// - Returns: false when the config has no such layout or no grid at that path (nothing changes).
    @discardableResult
    public mutating func replaceState(layout name: String, path: String, with state: CellState) -> Bool {
        guard let layout = active.layoutIndex(named: name), let grid = active.layouts[layout].tree.index(ofPath: path) else { return false }
        store(state, layout: layout, grid: grid)
        return true
    }

    // MARK: - Kept by layout name and grid path

    /// One grid's state, named so that it outlives layout and grid indexes.
    public struct NamedCell: Sendable, Equatable {
        public var layout: String
        public var path: String
        public var state: CellState

        public init(layout: String, path: String, state: CellState) {
            self.layout = layout
            self.path = path
            self.state = state
        }
    }

    /// Every grid's state, by layout name and path, in layout then grid order (`cells.json`,
    /// reloads, `layouts` with `state`).
    public func cellSnapshot() -> [NamedCell] {
        cells.sorted { $0.key < $1.key }.map { key, state in
            let layout = active.layouts[Int(key >> 32)]
            return NamedCell(layout: layout.name, path: layout.tree.path(of: Int(key & 0xFFFF_FFFF)), state: state)
        }
    }

    /// Replaces every grid's state with `named`, for the grids still at their layout and path
    /// (the others are dropped). Records nothing: this is state carried over, not a change.
    /// - Returns: how many were dropped.
    @discardableResult
    public mutating func restoreCells(_ named: [NamedCell]) -> Int {
        cells.removeAll()
        disabledCells = 0
        cellRules = active.hasToggles || active.hasSliders
        var dropped = 0
        for cell in named {
            guard let layout = active.layoutIndex(named: cell.layout), let grid = active.layouts[layout].tree.index(ofPath: cell.path)
            else {
                dropped += 1
                continue
            }
            store(cell.state, layout: layout, grid: grid)
        }
        return dropped
    }
}
