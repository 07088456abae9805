import Testing

@testable import TapgridDaemon

/// The connection's state machine, without a socket: what each transition allows and asks for.
@Suite struct ConnectionStateTests {
    let limit = Connection.maxHeldDuringReload

    @Test func aFreshConnectionReadsAndAnswers() {
        let state = ConnectionState()
        #expect(state.input == .reading)
        #expect(state.answersLines)
        #expect(state.wantsRequests(outputFull: false, framedBytes: 0, heldDuringReloadLimit: limit))
        #expect(!state.wantsRequests(outputFull: true, framedBytes: 0, heldDuringReloadLimit: limit))
    }

    @Test func aReloadHoldsLinesAndReadsOnlyUpToTheLimitThenHandsBackItsID() {
        var state = ConnectionState()
        state.reloadBegan(id: Array("\"r1\"".utf8))
        #expect(state.awaitingReload)
        #expect(!state.answersLines)
        #expect(state.wantsRequests(outputFull: false, framedBytes: limit, heldDuringReloadLimit: limit))
        #expect(!state.wantsRequests(outputFull: false, framedBytes: limit + 1, heldDuringReloadLimit: limit))
        let r1 = state.reloadEnded()
        #expect(r1 == Array("\"r1\"".utf8))
        #expect(!state.awaitingReload)
        #expect(state.answersLines)
        let r2 = state.reloadEnded()
        #expect(r2 == nil)
    }

    @Test func aReloadWithoutIDEndsWithNone() {
        var state = ConnectionState()
        state.reloadBegan(id: nil)
        #expect(state.awaitingReload)
        let r3 = state.reloadEnded()
        #expect(r3 == nil)
        #expect(!state.awaitingReload)
    }

    @Test func heldLinesStopReadingUntilReleased() {
        var state = ConnectionState()
        state.holdLines()
        #expect(!state.wantsRequests(outputFull: false, framedBytes: 0, heldDuringReloadLimit: limit))
        state.releaseLines()
        #expect(state.wantsRequests(outputFull: false, framedBytes: 0, heldDuringReloadLimit: limit))
    }

    @Test func aFinishedPeerIsAnsweredThenClosedOnceItsRepliesDrain() {
        var state = ConnectionState()
        state.peerFinished()
        #expect(state.input == .peerFinished)
        #expect(state.answersLines)
        #expect(!state.wantsRequests(outputFull: false, framedBytes: 0, heldDuringReloadLimit: limit))
        let waiting = state.sent(pendingOutput: 10, outputBytes: 10, tookSome: false, largeOutput: 1 << 18, now: 5)
        #expect(!waiting.close)
        #expect(waiting.waitingSince == 5)
        let drained = state.sent(pendingOutput: 0, outputBytes: 10, tookSome: true, largeOutput: 1 << 18, now: 0)
        #expect(drained.close)
    }

    @Test func aReadingConnectionStaysOpenWhenDrained() {
        var state = ConnectionState()
        let r4 = state.sent(pendingOutput: 0, outputBytes: 100, tookSome: true, largeOutput: 1 << 18, now: 0)
        #expect(!r4.close)
    }

    @Test func aPendingReloadOrHeldLinesKeepAFinishedPeerOpen() {
        var state = ConnectionState()
        state.peerFinished()
        state.reloadBegan(id: nil)
        let r5 = state.sent(pendingOutput: 0, outputBytes: 0, tookSome: false, largeOutput: 1 << 18, now: 0)
        #expect(!r5.close)
        _ = state.reloadEnded()
        state.holdLines()
        let r6 = state.sent(pendingOutput: 0, outputBytes: 0, tookSome: false, largeOutput: 1 << 18, now: 0)
        #expect(!r6.close)
        state.releaseLines()
        let r7 = state.sent(pendingOutput: 0, outputBytes: 0, tookSome: false, largeOutput: 1 << 18, now: 0)
        #expect(r7.close)
    }

    @Test func stoppingKeepsAnsweringButReadsNoMore() {
        var state = ConnectionState()
        state.stopReading()
        #expect(state.input == .stopped)
        #expect(state.answersLines)
        #expect(!state.wantsRequests(outputFull: false, framedBytes: 0, heldDuringReloadLimit: limit))
        state.peerFinished()  // too late to matter: it stays stopped
        #expect(state.input == .stopped)
    }

    @Test func aRefusedOrDroppedConnectionDiscardsItsLines() {
        var refused = ConnectionState()
        refused.refuse()
        #expect(refused.discardsLines && !refused.answersLines)
        var dropped = ConnectionState()
        dropped.drop()
        dropped.refuse()  // a drop is final
        #expect(dropped.input == .dropped)
        #expect(dropped.discardsLines)
    }

    @Test func theStallClockRunsOnlyWhileRepliesWaitUntaken() {
        var state = ConnectionState()
        #expect(state.stallDue(limit: 30) == nil)
        let r8 = state.sent(pendingOutput: 5, outputBytes: 5, tookSome: false, largeOutput: 100, now: 100)
        #expect(r8.waitingSince == 100)
        // Nothing taken since: the clock keeps its start.
        let r9 = state.sent(pendingOutput: 5, outputBytes: 5, tookSome: false, largeOutput: 100, now: 120)
        #expect(r9.waitingSince == nil)
        #expect(state.stallDue(limit: 30) == 130)
        // The kernel took some: the clock starts again.
        let r10 = state.sent(pendingOutput: 2, outputBytes: 5, tookSome: true, largeOutput: 100, now: 125)
        #expect(r10.waitingSince == 125)
        #expect(state.stallDue(limit: 30) == 155)
        _ = state.sent(pendingOutput: 0, outputBytes: 5, tookSome: true, largeOutput: 100, now: 0)
        #expect(state.stallDue(limit: 30) == nil)
    }

    @Test func aLargeOutputTrimsTheHeapOnceItDrains() {
        var state = ConnectionState()
        let r11 = state.sent(pendingOutput: 200, outputBytes: 200, tookSome: true, largeOutput: 100, now: 1)
        #expect(!r11.trimMemory)
        let r12 = state.sent(pendingOutput: 0, outputBytes: 200, tookSome: true, largeOutput: 100, now: 0)
        #expect(r12.trimMemory)
        let r13 = state.sent(pendingOutput: 0, outputBytes: 50, tookSome: true, largeOutput: 100, now: 0)
        #expect(!r13.trimMemory)
    }

    @Test func closingHappensOnceAndSaysWhatItEnds() {
        var state = ConnectionState()
        state.touched()
        _ = state.sent(pendingOutput: 200, outputBytes: 200, tookSome: true, largeOutput: 100, now: 1)
        let r14 = state.close()
        #expect(r14 == ConnectionState.AfterClose(endContacts: true, trimMemory: true))
        #expect(state.isClosed)
        #expect(!state.answersLines)
        #expect(!state.wantsRequests(outputFull: false, framedBytes: 0, heldDuringReloadLimit: limit))
        let r15 = state.close()
        #expect(r15 == nil)
        var plain = ConnectionState()
        let r16 = plain.close()
        #expect(r16 == ConnectionState.AfterClose(endContacts: false, trimMemory: false))
    }

    @Test func aConnectionIsQueuedForSendingOncePerWakeup() {
        var state = ConnectionState()
        let r17 = state.queueFlush()
        #expect(r17)
        let r18 = state.queueFlush()
        #expect(!r18)
        state.flushTaken()
        let r19 = state.queueFlush()
        #expect(r19)
    }
}
