// TEMPORARY STAND-IN — delete at merge. The real ChildSupervisor is written on branch `children`
// (Sources/TapgridDaemon/Children/). These declarations mirror its agreed API exactly so the
// daemon compiles and runs before it lands; `submit` refuses everything with `.failed`.

import TapgridCore
import TapgridSystem

/// What a url or script handler needs to start a child for one tap.
public struct ChildRequest {
    public var handlerIndex: Int
    public var handler: HandlerConfig
    public var layout: String
    public var gridPath: String
    public var name: String?
    public var tag: Int64?
    public var actionData: JSONValue?
    public var x: Double
    public var y: Double
    public var seq: UInt64
}

/// How the supervisor took a request.
public enum SubmitOutcome: Equatable {
    case dispatched, busy, denied(String), failed(String)
}

/// A finished child, for the event log.
public struct ChildExit {
    public var seq: UInt64
    public var pid: Int32
    public var handler: String
    public var status: Int32?
    public var signal: String?
    public var timedOut: Bool
    public var durationMs: Int64
}

/// One line a child wrote on stdout or stderr.
public struct ChildOutputLine {
    public var seq: UInt64
    public var handler: String
    public var stream: String
    public var text: String
}

/// Stand-in: starts nothing; every submit fails.
public final class ChildSupervisor {
    public init(
        epollFD: CInt, environment: [String: String], onExit: @escaping (ChildExit) -> Void,
        onOutput: @escaping (ChildOutputLine) -> Void
    ) {}
    public func submit(_ request: ChildRequest) -> SubmitOutcome { .failed("child supervisor not built yet") }
    public func handle(data: UInt64, events: EpollEvents) {}
    public func handleTimers(nowNanos: UInt64) {}
    public var nextDeadlineNanos: UInt64? { nil }
    public var runningCount: Int { 0 }
    public var queuedCount: Int { 0 }
    public func beginShutdown(graceNanos: UInt64) {}
    public var isIdle: Bool { true }
}
