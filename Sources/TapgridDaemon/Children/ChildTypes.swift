import TapgridCore

/// One tap routed to a `url` or `script` handler: what the child is started for.
public struct ChildRequest: Sendable {
    /// The handler's index in `Config.handlers`; concurrency limits and queues are kept per index.
    public var handlerIndex: Int
    /// The handler (its kind, timeouts and limits apply to this request).
    public var handler: HandlerConfig
    /// The current layout's name (`TAPGRID_LAYOUT`).
    public var layout: String
    /// The hit grid's path (`TAPGRID_GRID`).
    public var gridPath: String
    /// The hit grid's name, nil when it has none (`TAPGRID_NAME` is then empty).
    public var name: String?
    /// The hit grid's tag, nil when it has none (`TAPGRID_TAG` is then empty).
    public var tag: Int64?
    /// The grid's `actionData`, nil when absent.
    public var actionData: JSONValue?
    /// The tap's coordinates (`TAPGRID_X`, `TAPGRID_Y`, shortest decimal).
    public var x: Double
    public var y: Double
    /// The tap's sequence number (`TAPGRID_SEQ`); every callback about this child carries it.
    public var seq: UInt64
    /// The grid's state after the tap's own toggle (`TAPGRID_TEXT`, `TAPGRID_ACTIVE`, `TAPGRID_VALUE`).
    public var cell = CellState()
    /// A slider's `change` or `release` (`TAPGRID_CLASS`) and its value (`TAPGRID_VALUE`, in
    /// place of the state's), docs/touch.md "Sliders"; nil for every other tap.
    public var slider: (tapClass: TapClass, value: Double)?
    /// A command given whole (the screen's `commands`, docs/screen.md): run as it is, under the
    /// handler's timeouts and limits; no actionData is read.
    public var argv: [String]?

    public init(
        handlerIndex: Int, handler: HandlerConfig, layout: String, gridPath: String, name: String?,
        tag: Int64?, actionData: JSONValue?, x: Double, y: Double, seq: UInt64
    ) {
        self.handlerIndex = handlerIndex
        self.handler = handler
        self.layout = layout
        self.gridPath = gridPath
        self.name = name
        self.tag = tag
        self.actionData = actionData
        self.x = x
        self.y = y
        self.seq = seq
    }
}

/// What `ChildSupervisor.submit` did with a request (the handler outcomes of docs/socket-protocol.md "Socket protocol").
public enum SubmitOutcome: Equatable, Sendable {
    /// Started now, or queued behind the handler's running children. Exactly one `ChildExit`
    /// with this request's `seq` follows later.
    case dispatched
    /// The handler already runs `maxConcurrent` children and its queue holds `queue` more.
    case busy
    /// Refused by policy (scheme not allowed, actionData missing or of the wrong type, a script
    /// name escaping its folder). The text is a reason for logs.
    case denied(String)
    /// Accepted but could not act (missing executable, spawn failure, shutting down). The text
    /// is a reason for logs. No child is left behind and no `ChildExit` follows.
    case failed(String)
}

/// How one dispatched request ended. Delivered exactly once per `.dispatched` submit.
public struct ChildExit: Sendable, Equatable {
    /// The request's sequence number.
    public var seq: UInt64
    /// The child's pid; 0 when no child was started (see `failure`).
    public var pid: Int32
    /// The handler's name.
    public var handler: String
    /// The exit code when the child called `exit`; nil when a signal killed it or no status is known.
    public var status: Int32?
    /// The name of the signal that killed it (`"SIGTERM"`, `"SIGKILL"`), nil otherwise.
    public var signal: String?
    /// Whether the supervisor stopped it because `timeoutSeconds` passed.
    public var timedOut: Bool
    /// Monotonic milliseconds from spawn to reaping (0 when no child was started).
    public var durationMs: Int64
    /// Non-nil when the request was dispatched (queued) but never ran: a queued request that
    /// failed to spawn when its turn came (`"cannot spawn ...: ..."`), or one dropped by
    /// `beginShutdown` (`"dropped: the daemon is shutting down"`). `pid` is then 0,
    /// `status`/`signal` nil and `durationMs` 0.
    public var failure: String?

    public init(
        seq: UInt64, pid: Int32, handler: String, status: Int32?, signal: String?, timedOut: Bool,
        durationMs: Int64, failure: String? = nil
    ) {
        self.seq = seq
        self.pid = pid
        self.handler = handler
        self.status = status
        self.signal = signal
        self.timedOut = timedOut
        self.durationMs = durationMs
        self.failure = failure
    }
}

/// One line a child wrote to stdout or stderr (without its newline).
public struct ChildOutputLine: Sendable, Equatable {
    /// The request's sequence number.
    public var seq: UInt64
    /// The handler's name.
    public var handler: String
    /// `"stdout"` or `"stderr"`.
    public var stream: String
    /// The line, decoded as UTF-8 (invalid bytes replaced). Lines longer than
    /// `OutputLimits.maxLineBytes` arrive in pieces.
    public var text: String

    public init(seq: UInt64, handler: String, stream: String, text: String) {
        self.seq = seq
        self.handler = handler
        self.stream = stream
        self.text = text
    }
}
