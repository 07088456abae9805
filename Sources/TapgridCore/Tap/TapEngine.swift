/// Decides taps: which grid a tap hits, whether debounce suppresses it, and where its handler
/// routes it, with the current layout and the debounce state. No I/O and no clock of its own:
/// the caller passes the time, so every rule is tested in-process (`TapEngineTests`), and the
/// daemon and offline `replay` hit-test and route through this one path.
///
/// The daemon holds one engine and carries out each decision's `action`: it writes the log
/// record, starts the child (then `settle`s the outcome the supervisor gave), and logs layout
/// switches. A value type; mutated only by the loop thread that owns it.
public struct TapEngine {
    /// The config in use with its prebuilt reply fragments.
    public private(set) var active: ActiveConfig
    /// Index into `active.layouts` of the current layout.
    public private(set) var currentLayout: Int
    /// Taps decided since start (the last tap's `seq`).
    public internal(set) var seq: UInt64 = 0
    /// Taps per outcome, for `status`.
    public let outcomeCounts = OutcomeCounts()
    /// Debounce: when each (layout << 32 | grid) last had a tap dispatched (monotonic ns).
    private var lastDispatch: [UInt64: UInt64] = [:]
    /// Debounce: taps without an explicit layout are suppressed until then, after a switch.
    private var switchQuietUntil: UInt64 = 0
    /// Touch contacts in flight (see `TapEngine+Touch`).
    var contacts: [ContactKey: Contact] = [:]
    /// Taps on grids that route `double`, waiting for a second one.
    var doubleWaits: [DoubleKey: DoubleWait] = [:]
    /// Presses accepted so far (each `down` that made a contact).
    var presses = 0
    /// Contacts ended by the engine itself (a layout switch), for the caller's cancel records.
    public internal(set) var endedContacts: [ContactKey] = []
    /// Cell state by `cellKey(layout, grid)`; grids whose state is all null are absent.
    var cells: [UInt64: CellState] = [:]
    /// Cells whose `enabled` is false.
    var disabledCells = 0
    /// Some grid is disabled or toggles: only then does a tap look at cell state (one test of
    /// this flag is all a plain tap pays).
    var cellRules = false
    /// Goes up with every change of cell state (a `set`, a toggle, a restore), so whoever keeps
    /// `cells.json` sees a change by comparing one number.
    public internal(set) var cellsVersion: UInt64 = 0

    /// - Parameters:
    ///   - config: a loaded config; its `initialLayout` becomes current.
    ///   - generation: successful loads so far, 1 for the first.
    public init(config: Config, generation: UInt64) {
        active = ActiveConfig(config: config, generation: generation)
        currentLayout = config.layoutIndex(named: config.initialLayout) ?? 0
        cellRules = active.hasToggles || active.hasSliders
    }

    /// The name of the current layout.
    /// (Inlinable: called on an engine stored in a class from another module, a getter copied
    /// the whole engine for the call, retaining each of its arrays: the fleet asks every wakeup.)
    @inlinable public var currentLayoutName: String { active.layouts[currentLayout].name }

    /// The layout a request aims at: the named one, or the current one when `name` is nil.
    /// - Returns: nil when no layout has that name.
    public func layoutIndex(for name: String?) -> Int? {
        guard let name else { return currentLayout }
        return active.layoutIndex(named: name)
    }

    /// Hit-tests without dispatching (`hit` op, replay): no sequence number, no state change.
    public func check(layout: Int, x: Double, y: Double) -> TapDecision {
        TapDecision(seq: 0, layout: layout, target: active.target(layout: layout, x: x, y: y),
                    outcome: .checked, action: .none, reason: nil)
    }

    /// Decides a tap at (x, y) on `layout`.
    /// - Parameters:
    ///   - explicitLayout: whether the request named its layout (such taps are not quieted by a
    ///     recent layout switch: the client knows which page it tapped).
    ///   - now: the monotonic time in nanoseconds.
    /// - Returns: the decision; for `.spawn`, call `settle` with what became of the child.
    public mutating func tap(layout: Int, x: Double, y: Double, explicitLayout: Bool, now: UInt64) -> TapDecision {
        seq += 1
        var decision = TapDecision(
            seq: seq, layout: layout, target: active.target(layout: layout, x: x, y: y),
            outcome: .miss, action: .none, reason: nil)
        if let target = decision.target {
            if cellRules && applyCellRules(&decision, target: target, x: x, y: y) {
                decision.outcome = .disabled
            } else if target.handler < 0 {
                decision.outcome = .unrouted
            } else if isSuppressed(layout: layout, grid: target.grid, explicitLayout: explicitLayout, now: now) {
                decision.outcome = .suppressed
            } else {
                route(&decision, target: target, now: now)
                if decision.action.isSettledByCaller { return decision }
                if decision.outcome == .dispatched { noteDispatch(layout: layout, grid: target.grid, now: now) }
            }
        }
        outcomeCounts.add(decision.outcome)
        return decision
    }

    /// Records what became of a `.spawn` or `.publish` decision (the supervisor's or the fleet
    /// queue's answer).
    public mutating func settle(_ decision: inout TapDecision, outcome: Outcome, reason: String?, now: UInt64) {
        decision.outcome = outcome
        decision.reason = reason
        if outcome == .dispatched, let target = decision.target {
            noteDispatch(layout: decision.layout, grid: target.grid, now: now)
        }
        outcomeCounts.add(outcome)
    }

    /// Makes `name` current (`use` op). - Returns: false when there is no such layout.
    public mutating func use(layout name: String) -> Bool {
        guard let index = active.layoutIndex(named: name) else { return false }
        if index != currentLayout { endAllContacts() }
        currentLayout = index
        return true
    }

    /// Swaps in a newly loaded config. The current layout stays current if it still exists,
    /// else the config's `initialLayout` becomes current; debounce starts afresh.
    public mutating func swap(to config: Config, generation: UInt64) {
        let currentName = currentLayoutName
        let kept = cellSnapshot()
        active = ActiveConfig(config: config, generation: generation)
        restoreCells(kept)
        currentLayout = config.layoutIndex(named: currentName) ?? config.layoutIndex(named: config.initialLayout) ?? 0
        lastDispatch.removeAll()
        switchQuietUntil = 0
        endAllContacts()
    }

    /// The grid's details, for the handlers that need more than indexes (children, log records).
    public func info(of decision: TapDecision) -> GridInfo? {
        guard let target = decision.target, target.info >= 0 else { return nil }
        return active.layouts[decision.layout].tree.infos[target.info]
    }

    // MARK: - Rules

    /// Debounce: a grid that had a tap dispatched within its layout's `debounceMs`, or a tap
    /// without an explicit layout right after a layout switch.
    func isSuppressed(layout: Int, grid: Int, explicitLayout: Bool, now: UInt64) -> Bool {
        if !explicitLayout && now < switchQuietUntil { return true }
        let window = UInt64(max(0, active.layouts[layout].debounceMs)) * 1_000_000
        guard window > 0, let last = lastDispatch[Self.key(layout, grid)] else { return false }
        return now &- last < window
    }

    mutating func noteDispatch(layout: Int, grid: Int, now: UInt64) {
        if active.layouts[layout].debounceMs > 0 { lastDispatch[Self.key(layout, grid)] = now }
    }

    private static func key(_ layout: Int, _ grid: Int) -> UInt64 { UInt64(layout) << 32 | UInt64(grid) }

    /// The handler's decision: a layout switch and a log record are decided here; children are
    /// the daemon's to start.
    mutating func route(_ decision: inout TapDecision, target: TapTarget, now: UInt64) {
        decision.outcome = .dispatched
        switch active.config.handlers[Int(target.handler)].kind {
        case .log:
            decision.action = .log
        case .url, .script:
            decision.action = .spawn
        case .mqtt:
            decision.action = .publish
        case .layout:
            guard case .string(let name)? = active.layouts[decision.layout].tree.infos[target.info].actionData else {
                decision.outcome = .denied
                decision.reason = "a layout handler needs actionData naming a layout"
                return
            }
            guard let next = active.layoutIndex(named: name) else {
                decision.outcome = .denied
                decision.reason = "unknown layout \(jsonEscaped(name))"
                return
            }
            // The larger of the two layouts' windows: the page that flips and the page that
            // appears may both get the bouncing finger.
            let quietMs = max(active.layouts[currentLayout].debounceMs, active.layouts[next].debounceMs)
            switchQuietUntil = quietMs > 0 ? now + UInt64(quietMs) * 1_000_000 : 0
            decision.action = .switchLayout(from: currentLayout, to: next)
            if next != currentLayout { endAllContacts() }
            currentLayout = next
        }
    }
}
