import Testing

/// Every end-to-end test starts its own daemon; they run one at a time so timing-based checks
/// (debounce windows, latency under a stalled client) are not disturbed on a small machine.
/// The daemon, its client and the other helpers are in `Tests/TestSupport` (`TapgridTestSupport`).
@Suite(.serialized) struct EndToEnd {}
