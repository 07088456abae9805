import Testing

@testable import TapgridCore

/// The panel's event batch without a stream or a clock: who gets which events, and that a
/// stream that fell behind gets a `skipped` count for exactly the taps it did not get.
@Suite struct PanelBatchTests {
    func event(_ name: StaticString, _ data: String) -> [UInt8] {
        let out = ByteBuffer(capacity: 64)
        Array(data.utf8).withUnsafeBytes { PanelDocuments.event(name, data: $0, into: out) }
        return Array(out.bytes)
    }

    func text(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test func aStreamThatKeepsUpGetsEveryEventOneBehindTheirCount() {
        let batch = PanelBatch()
        let tap1 = event("tap", #"{"seq":1}"#), state = event("state", #"{"path":"0"}"#), tap2 = event("tap", #"{"seq":3}"#)
        #expect(tap1.withUnsafeBytes { batch.add($0, isTap: true, now: 1_000_000_000) } == 1_000_000_000, "the first after a quiet spell: at once")
        #expect(state.withUnsafeBytes { batch.add($0, isTap: false, now: 1_000_000_001) } == nil, "the batch already waits for its time")
        #expect(tap2.withUnsafeBytes { batch.add($0, isTap: true, now: 1_000_000_002) } == nil)
        #expect(batch.taps == 2)
        batch.seal(now: 1_000_000_003)
        #expect(text(batch.bytes(forBacklog: 0)) == text(tap1.withUnsafeBytes { $0 }) + text(state.withUnsafeBytes { $0 }) + text(tap2.withUnsafeBytes { $0 }))
        #expect(text(batch.bytes(forBacklog: PanelBatch.shedBacklog)) == text(batch.bytes(forBacklog: 0)), "at the limit: still every event")
        #expect(text(batch.bytes(forBacklog: PanelBatch.shedBacklog + 1)) == "event: state\ndata: {\"path\":\"0\"}\n\nevent: skipped\ndata: {\"taps\":2}\n\n")
        #expect(!batch.isLean(forBacklog: PanelBatch.shedBacklog) && batch.isLean(forBacklog: PanelBatch.shedBacklog + 1))
        batch.clear()
        #expect(batch.isEmpty && batch.taps == 0)
        // Within the interval of the last batch, the next waits for it.
        #expect(tap1.withUnsafeBytes { batch.add($0, isTap: true, now: 1_000_000_010) } == 1_000_000_003 + PanelBatch.intervalNanos)
    }

    @Test func aBatchWithoutTapsIsTheSameForEveryStream() {
        let batch = PanelBatch()
        let layout = event("layout", #"{"name":"home"}"#)
        _ = layout.withUnsafeBytes { batch.add($0, isTap: false, now: 5) }
        batch.seal(now: 5)
        #expect(text(batch.bytes(forBacklog: 1 << 30)) == text(layout.withUnsafeBytes { $0 }), "no skipped event without taps")
        #expect(!batch.isLean(forBacklog: 1 << 30), "one batch for all: the daemon copies it once")
    }
}
