import Testing

import TapgridTestSupport

/// Every end-to-end test starts its own daemon; they run one at a time so timing-based checks
/// (debounce windows, latency under a stalled client) are not disturbed on a small machine.
/// The daemon, its client and the other helpers are in `Tests/TestSupport` (`TapgridTestSupport`).
@Suite(.serialized) struct EndToEnd {}

/// Runs the built `tapgrid` with `arguments` and only `PATH` in its environment, so no
/// `TAPGRID_SOCKET` or `TAPGRID_CONFIG` of the test's own reaches it.
func tapgrid(_ arguments: [String]) throws -> ProgramResult {
    try runProgram(cliBinary, arguments, environment: ["PATH": "/usr/bin:/bin"])
}
