import Testing

@testable import TapgridCore
@testable import TapgridDaemon
import TapgridMQTT
import TapgridTestSupport

/// A loop whose clock moves only when the test says: timers run in order of their due time as
/// `advance` passes it, so what the fleet does when is checked without waiting.
final class ManualLoop: LoopScheduling {
    var now: UInt64 = 1_000_000_000
    private var actions: [(() -> Void)?] = []
    private var intervals: [UInt64] = []
    private var due: [UInt64?] = []

    func makeTimer(every interval: UInt64, _ action: @escaping () -> Void) -> LoopTimer {
        actions.append(action)
        intervals.append(interval)
        due.append(nil)
        return LoopTimer(index: actions.count - 1)
    }

    func schedule(_ timer: LoopTimer, at time: UInt64?) { due[timer.index] = time }

    func removeTimer(_ timer: LoopTimer) {
        due[timer.index] = nil
        actions[timer.index] = nil
    }

    /// Moves the clock `nanoseconds` on, running each timer due on the way at its time.
    func advance(by nanoseconds: UInt64) {
        let target = now + nanoseconds
        while let (index, time) = due.enumerated().compactMap({ entry in entry.element.map { (entry.offset, $0) } })
            .filter({ $0.1 <= target }).min(by: { $0.1 < $1.1 }) {
            now = max(now, time)
            due[index] = intervals[index] > 0 ? time + intervals[index] : nil
            actions[index]?()
        }
        now = target
    }
}

/// A broker connection that records what is published and is acknowledged by hand.
final class FakeBroker: BrokerConnection {
    struct Message: Equatable {
        var topic: String
        var payload: String
        var qos: Int32
        var retain: Bool
        var mid: Int32
    }

    var isConnected = false
    var lastError: String? = "not connected yet"
    var wantsWrite = false
    private(set) var messages: [Message] = []
    private(set) var subscriptions: [(pattern: String, mid: Int32)] = []
    private var nextMid: Int32 = 1

    func start() {}
    func stop(lastWords: (topic: String, payload: [UInt8])?) {}
    func flush() {}

    func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool, expirySeconds: UInt32?) throws(MQTTError) -> Int32 {
        guard isConnected else { throw MQTTError.notConnected("mosquitto_publish") }
        defer { nextMid += 1 }
        messages.append(Message(topic: topic, payload: String(decoding: payload, as: UTF8.self), qos: qos, retain: retain, mid: nextMid))
        return nextMid
    }

    func subscribe(_ pattern: String, qos: Int32) throws(MQTTError) -> Int32 {
        defer { nextMid += 1 }
        subscriptions.append((pattern, nextMid))
        return nextMid
    }

    func on(_ topic: String) -> [Message] { messages.filter { $0.topic == topic } }

    /// Messages since `count` were published.
    func since(_ count: Int) -> [Message] { Array(messages[count...]) }
}

/// What the router asks of the daemon, answered without one (no reload, no pushed layouts).
final class FakeControl: DaemonControl {
    var reloads = 0
    func reloadRequested(by connection: Connection) { reloads += 1 }
    var clientCount: Int { 0 }
    func load(layout name: String, definition: JSONValue) -> PushOutcome { .refused(.configError, "no loads here") }
    func unload(layout name: String) -> PushOutcome { .refused(.unknownLayout, "no loads here") }
    var pushedLayouts: [String] { [] }
    var fleetStatus: StatusReply.MQTT? { nil }
    var panelStatus: StatusReply.Panel? { nil }
    var screen: Screen? { nil }
}

/// The fleet's commands and publishing in-process: no broker, no socket, a clock moved by hand.
/// The real-broker suites (`FleetTests`, `FleetFaultTests`) prove the wiring to mosquitto.
@Suite(.serialized) struct FleetInProcessTests {
    final class Harness {
        let taps: TapOutputTests.Harness
        let loop = ManualLoop()
        let broker = FakeBroker()
        let control = FakeControl()
        let outbox = Outbox()
        let fleet: Fleet
        let logPath: String

        init(accept: [String] = ["tap", "set"]) throws {
            logPath = try TapOutputTests.temporaryLog()
            taps = try TapOutputTests.Harness(eventLogPath: logPath)
            taps.router.control = control
            taps.output.outbox = outbox
            var settings = MQTTConfig(broker: .tcp(host: "broker", port: 1883))
            settings.node = "kitchen"
            settings.accept = accept
            let broker = self.broker
            fleet = try Fleet(
                settings: settings, node: "kitchen", eventLogPath: nil, loop: loop,
                log: LogSink(verbose: false, journal: false, priorityPrefixes: false), output: taps.output, router: taps.router,
                endpoint: RequestEndpoint(router: taps.router), daemonUID: 0
            ) { _ in broker }
            taps.output.mqttHandler = fleet
        }

        deinit { TapOutputTests.remove(logPath) }

        /// The broker takes the connection and every subscription.
        func connect() {
            broker.isConnected = true
            fleet.linkConnected()
            for subscription in broker.subscriptions { fleet.linkSubscribed(subscription.mid) }
        }

        /// The end of a wakeup, as `Daemon.endWakeup` runs it for the fleet, then the 2 ms in
        /// which a publishing round that had to wait (one ran less than 2 ms before) runs.
        func endWakeup() {
            taps.output.endOfWakeup()
            fleet.endOfWakeup(outbox)
            outbox.clear()
            loop.advance(by: Fleet.pumpIntervalNanos)
        }

        func command(_ op: String, _ payload: String, scope: String = "kitchen") {
            fleet.linkReceived(topic: "tapgrid/\(scope)/command/\(op)", payload: Array(payload.utf8), retained: false)
            endWakeup()
        }

        func results() -> [[String: Any]] { broker.on("tapgrid/kitchen/result").compactMap { try? parseObject($0.payload) } }
    }

    @Test func aCommandIsAnsweredOnResultWithItsTopicAndItsTapPublished() throws {
        let h = try Harness()
        h.connect()
        #expect(h.broker.on("tapgrid/kitchen/availability").map(\.payload) == ["online"], "online once every SUBACK came")
        h.command("tap", #"{"x": 25, "y": 50, "id": 7}"#)
        let result = try #require(h.results().first)
        #expect(result.int("id") == 7)
        #expect(result.string("outcome") == "dispatched")
        #expect(result.string("topic") == "tapgrid/kitchen/command/tap")
        let action = try #require(h.broker.on("tapgrid/kitchen/action/home/left").first)
        #expect(action.payload == "tap" && action.qos == 1 && !action.retain)

        // Refused before the router: not accepted, named with the topic it came on.
        h.command("use", #"{"layout": "home", "id": "u"}"#, scope: "broadcast")
        let refused = try #require(h.results().last)
        #expect(refused.string("id") == "u")
        #expect(refused.errorCode == "forbidden")
        #expect(refused.string("topic") == "tapgrid/broadcast/command/use")

        // Refused by the router: its error code, with the id and the topic.
        h.command("tap", #"{"x": 25, "y": 50, "layout": "nope", "id": 9}"#)
        let unknown = try #require(h.results().last)
        #expect(unknown.int("id") == 9 && unknown.errorCode == "unknown_layout")
        #expect(unknown.string("topic") == "tapgrid/kitchen/command/tap")

        // A set changes the state: retained on the cell's state topic.
        h.command("set", #"{"grid": "right", "text": "21 °C"}"#)
        let state = try #require(h.broker.on("tapgrid/kitchen/state/home/right").last)
        #expect(state.retain && state.payload == #"{"text":"21 °C","active":null,"value":null,"enabled":null}"#)
    }

    @Test func actionsWaitForTheWindowAndAreSentAgainAfterALostConnection() throws {
        let h = try Harness()
        h.connect()
        let before = h.broker.messages.count
        for _ in 0..<1_200 { _ = h.taps.send(#"{"x": 75, "y": 50}"#) }
        h.endWakeup()
        let actions = { h.broker.since(before).filter { $0.topic == "tapgrid/kitchen/action/home/right" } }
        #expect(actions().count == Fleet.actionWindow, "at most the window in flight")
        #expect(h.fleet.status.backlog >= 200)

        // Ten acknowledged: the next round sends ten more.
        for message in actions().prefix(10) { h.fleet.linkAcknowledged(message.mid) }
        h.endWakeup()
        #expect(actions().count == Fleet.actionWindow + 10)

        // The connection goes with 1,000 in flight: on the next, they are sent first, in order.
        h.broker.isConnected = false
        h.fleet.linkLost()
        let atReconnect = h.broker.messages.count
        h.connect()
        h.endWakeup()
        let resent = h.broker.since(atReconnect).filter { $0.topic == "tapgrid/kitchen/action/home/right" }
        #expect(resent.count == Fleet.actionWindow)
        #expect(h.fleet.status.published == 10)
        #expect(h.fleet.status.dropped == 0)
    }

    @Test func actionsOlderThanMaxAgeAreDroppedNeverSentLate() throws {
        let h = try Harness()
        for _ in 0..<5 { _ = h.taps.send(#"{"x": 25, "y": 50}"#) }
        h.endWakeup()
        #expect(h.fleet.status.backlog == 5, "held while the broker is away")
        h.loop.advance(by: 31_000_000_000)  // past maxAgeSeconds (30): the housekeeping timer ages them
        #expect(h.fleet.status.dropped == 5 && h.fleet.status.backlog == 0)
        h.connect()
        h.endWakeup()
        #expect(h.broker.on("tapgrid/kitchen/action/home/left").isEmpty)
    }
}
