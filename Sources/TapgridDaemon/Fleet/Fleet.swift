import TapgridArguments
import TapgridCore
import TapgridMQTT
import TapgridSystem

/// The daemon on an MQTT broker (docs/fleet.md): publishes what happens (events from
/// the event log, actions, the current layout, cell state, status, availability, Home Assistant
/// discovery), and takes commands and pushed layouts as a socket client's requests, answered
/// through the `RequestEndpoint`. Owns the `FleetLink` (the connection) and the `EventFeed`;
/// takes the wakeup's taps and state changes from the `Outbox` in its phase of the wakeup's end
/// (`endOfWakeup`), queues the `mqtt` handler's messages (`MQTTHandlerQueue`), and runs three
/// timers (status, housekeeping, the next publishing round).
final class Fleet: FleetLinkDelegate, MQTTHandlerQueue {
    let settings: MQTTConfig
    let topics: FleetTopics
    let loop: LoopScheduling
    let log: LogSink
    let output: TapOutput
    let router: RequestRouter
    let endpoint: RequestEndpoint
    var link: BrokerConnection!
    /// Events from the event log; nil with `"eventLog": false` (then `memoryEvents`).
    var feed: EventFeed?
    /// The connection the fleet's commands are answered on, as a socket client's lines.
    let commandConnection: Connection
    /// Each `reload` asked for over MQTT waits on a connection of its own (its `id` is kept
    /// there), with the topic its result names.
    var reloads: [ObjectIdentifier: String] = [:]
    /// The screen's state now (nil without `screen` in the config): `P/N/screen` on connect.
    var screenState: () -> ScreenState? = { nil }
    let daemonUID: UInt32

    /// An outgoing action or `mqtt` handler message, waiting or in flight. A class: the queue
    /// moves it from waiting to in flight to acknowledged, and each move of a struct holding a
    /// string and an array cost two reference counts and an outlined copy.
    final class Outgoing {
        let topic: String
        let payload: [UInt8]
        let qos: Int32
        let retain: Bool
        /// When it was queued (monotonic ns): too old to send is dropped, never sent late.
        let queuedAt: UInt64
        /// Sent with a message expiry (actions), or not (a handler's own topic).
        let expires: Bool

        init(topic: String, payload: [UInt8], qos: Int32, retain: Bool, queuedAt: UInt64, expires: Bool) {
            self.topic = topic
            self.payload = payload
            self.qos = qos
            self.retain = retain
            self.queuedAt = queuedAt
            self.expires = expires
        }
    }

    /// (The fleet lives on the loop's thread: its queues and topic tables skip the run-time
    /// exclusivity check on every tap.)
    @exclusivity(unchecked) var actions = InFlightQueue<Outgoing>(capacity: Fleet.maxQueued, window: Fleet.actionWindow)
    /// Records waiting in memory when the event log is off (the oldest dropped past the bound).
    var memoryEvents = InFlightQueue<[UInt8]>(capacity: Fleet.maxQueued, window: Fleet.window)
    var published: UInt64 = 0
    var dropped: UInt64 { actions.dropped + memoryEvents.dropped }
    /// SUBACKs still expected before `online` is published.
    var pendingSubscriptions: Set<Int32> = []
    var lastLayout: String?
    var lastGeneration: UInt64 = 0
    var discoveryGeneration: UInt64 = 0
    /// The config generation whose left-out entities were logged (once per generation).
    var skippedLoggedGeneration: UInt64 = 0
    var lastStatus: [UInt8] = []
    var layoutSources = FleetLayoutSources()
    /// Topics of the discovery configs published, to empty those whose cell or class went away.
    var discoveryTopics: Set<String> = []
    /// Per layout, per grid: the cell's action and state topics (nil: not a hittable grid),
    /// built once per config generation so a tap builds no string.
    @exclusivity(unchecked) var actionTopics: [[String?]] = []
    @exclusivity(unchecked) var stateTopics: [[String?]] = []
    /// When the last publishing round ran, and the timer of the next one while taps come
    /// faster than `pumpIntervalNanos` (their messages then go out together, corked).
    var pumpPacing = Pacing(intervalNanos: Fleet.pumpIntervalNanos)
    var pumpTimer: LoopTimer!
    var pumpScheduled = false
    var eventLogWrites: UInt64 = .max
    var statusTimer: LoopTimer!
    var housekeeping: LoopTimer!

    /// Waiting actions past this are dropped, the oldest first (docs/fleet.md "When the broker is away": at most 10,000).
    static let maxQueued = 10_000
    /// `mqtt.maxAgeSeconds` in nanoseconds: actions waiting longer are dropped.
    let maxAgeNanos: UInt64
    static let window = EventFeed.window
    /// Actions in flight at most: more than the event feed's 100, because every tap makes one
    /// and they must not wait behind a slow round trip until they age out (the queue, not the
    /// window, bounds their memory). The broker's own receive maximum may hold fewer at once.
    static let actionWindow = 1000

    /// - Parameters:
    ///   - loop: where its timers run and what time it is (the daemon's `EventLoop`).
    ///   - makeLink: its connection to the broker, told of what happens to it (the daemon's:
    ///     a `FleetLink` on the same loop; a test's: a fake that records what is published).
    init(settings: MQTTConfig, node: String, eventLogPath: String?, loop: LoopScheduling, log: LogSink,
         output: TapOutput, router: RequestRouter, endpoint: RequestEndpoint, daemonUID: UInt32,
         makeLink: (FleetLinkDelegate) throws(Errno) -> BrokerConnection) throws(Errno) {
        self.settings = settings
        maxAgeNanos = UInt64(settings.maxAgeSeconds * 1e9)
        topics = FleetTopics(prefix: settings.prefix, node: node, groups: settings.groups, homeAssistantPrefix: settings.homeAssistantPrefix)
        self.loop = loop
        self.log = log
        self.output = output
        self.router = router
        self.endpoint = endpoint
        self.daemonUID = daemonUID
        commandConnection = Self.makeCommandConnection(uid: daemonUID)
        if let eventLogPath { feed = EventFeed(logPath: eventLogPath, log: log) }
        link = try makeLink(self)
        statusTimer = loop.makeTimer(every: 2_000_000_000) { [unowned self] in publishStatus(force: false) }
        housekeeping = loop.makeTimer(every: 1_000_000_000) { [unowned self] in
            feed?.savePosition()
            feed?.followRotation()
            ageActions(now: loop.now)
            trimAfterDrain()
        }
        loop.schedule(statusTimer, after: 2_000_000_000)
        loop.schedule(housekeeping, after: 1_000_000_000)
        pumpTimer = loop.makeTimer { [unowned self] in
            pumpScheduled = false
            pump()
        }
        rebuildCellKeys()
    }

    func start() { link.start() }

    /// At shutdown: the feed's position kept, `offline` published, a clean DISCONNECT.
    func stop() {
        feed?.close()
        link.stop(lastWords: (topics.availability, Array("offline".utf8)))
        loop.removeTimer(statusTimer)
        loop.removeTimer(housekeeping)
    }

    /// `status`'s `mqtt` block.
    var status: StatusReply.MQTT {
        let waiting = (feed?.backlog() ?? memoryEvents.count) + actions.count
        return StatusReply.MQTT(
            connected: link.isConnected, broker: settings.broker.text, backlog: Int64(waiting), published: Int64(published),
            dropped: Int64(dropped), lastError: link.lastError)
    }

    /// The end of `STATUS=`: `mqtt connected` or `mqtt: <why not>`.
    var statusSuffix: String { link.isConnected ? "mqtt connected" : "mqtt: " + (link.lastError ?? "not connected") }

    // MARK: - The link's events

    func linkConnected() {
        pendingSubscriptions = []
        for pattern in topics.subscriptions {
            do throws(MQTTError) { pendingSubscriptions.insert(try link.subscribe(pattern, qos: 1)) } catch {
                log.warning("mqtt: cannot subscribe to \(pattern): \(error)")
            }
        }
        lastLayout = nil
        publishState()
        if let state = screenState() { publishScreen(state) }
        publishStatus(force: true)
        publishDiscovery()
        pump()
    }

    func linkLost() {
        feed?.rewind()
        // What was in flight goes back to the front of its queue, to be sent again while young.
        actions.connectionLost()
        memoryEvents.connectionLost()
        pendingSubscriptions = []
    }

    func linkSubscribed(_ mid: Int32) {
        guard pendingSubscriptions.remove(mid) != nil, pendingSubscriptions.isEmpty else { return }
        publish(topics.availability, Array("online".utf8), retain: true)
    }

    func linkAcknowledged(_ mid: Int32) {
        // PUBACKs come in the order sent, so `mid` is nearly always the oldest of the feed's or
        // of the actions': a comparison each, before either is searched for it.
        let known: Bool
        if let feed, feed.isOldest(mid) {
            known = feed.acknowledged(mid)
        } else if actions.isOldest(mid) {
            known = actions.acknowledged(mid)
        } else {
            known = feed?.acknowledged(mid) == true || actions.acknowledged(mid) || memoryEvents.acknowledged(mid)
        }
        if known { published += 1 }
    }

    func linkReceived(topic: String, payload: [UInt8], retained: Bool) {
        switch topics.classify(topic) {
        case .command(let op, _)?: command(op: op, topic: topic, payload: payload, retained: retained)
        case .layout(let name, let scope)?: pushedLayout(name: name, scope: scope, topic: topic, payload: payload)
        case .homeAssistantStatus?:
            if payload == Array("online".utf8) { publishDiscovery() }
        case nil: log.debug("mqtt: message on \(topic) ignored")
        }
    }

    // MARK: - What the tap path did

    /// The fleet's phase of the wakeup's end (`Daemon.endWakeup`, after the event log's): the
    /// wakeup's taps become actions and its state changes retained state, then a publishing round.
    func endOfWakeup(_ outbox: Outbox) {
        // One clock read for the wakeup's actions (not one per tap: a tenth of the clock's share
        // of a pipelined run, perf record) and its publishing round.
        let now = loop.now
        outbox.forEach { event, active in
            switch event {
            case .tap(let decision, _): tapDecided(decision, active: active, now: now)
            case .state(let layout, let grid, let state): stateChanged(layout: layout, grid: grid, state: state, active: active)
            case .screen(let state): publishScreen(state)
            }
        }
        afterWakeup(quiet: outbox.events.isEmpty, now: now)
    }

    /// - Parameter now: when its action is queued (monotonic ns).
    func tapDecided(_ decision: TapDecision, active: ActiveConfig, now: UInt64) {
        switch decision.outcome {
        case .miss, .suppressed, .disabled, .checked: return
        default: break
        }
        guard let grid = decision.target?.grid, let topic = cellTopic(state: false, layout: decision.layout, grid: grid, active: active)
        else { return }
        switch decision.tapClass {
        case .change, .release:
            // A slider's (docs/touch.md "Sliders"): its class and value; a change at QoS 0 (the
            // next one replaces it), the release at QoS 1.
            var payload = JSONObjectWriter(.compact)
            payload.string("class", decision.tapClass.name.description)
            payload.number("value", decision.value)
            enqueue(Outgoing(topic: topic, payload: payload.bytes, qos: decision.tapClass == .change ? 0 : 1, retain: false,
                             queuedAt: now, expires: true))
        default:
            enqueue(Outgoing(
                topic: topic, payload: Self.classPayloads[decision.tapClass.rawValue], qos: 1, retain: false,
                queuedAt: now, expires: true))
        }
    }

    func stateChanged(layout: Int, grid: Int, state: CellState, active: ActiveConfig) {
        // While not connected, nothing: every state is published on connect.
        guard link.isConnected, let topic = cellTopic(state: true, layout: layout, grid: grid, active: active) else { return }
        publish(topic, state.jsonObject, retain: true)
    }

    func publishHandlerMessage(_ decision: TapDecision) -> Bool {
        guard actions.hasRoom,
              case .mqtt(let topic, let qos, let retain) = output.engine.active.config.handlers[Int(decision.handler)].kind
        else { return false }
        let payload: [UInt8]
        switch output.engine.info(of: decision)?.actionData {
        case .string(let text)?: payload = Array(text.utf8)
        case let value?: payload = Array(value.compactJSON.utf8)
        case nil: payload = []
        }
        enqueue(Outgoing(topic: topic, payload: payload, qos: Int32(qos), retain: retain, queuedAt: loop.now, expires: false))
        return true
    }

    /// Keeps an event record for the broker when there is no event log to feed it from.
    func memoryEvent(_ record: ArraySlice<UInt8>) {
        let record = Array(record)
        guard !EventFeed.isTouchRecord(record, 0, record.count) else { return }
        memoryEvents.append(record)
    }

    func enqueue(_ message: consuming Outgoing) {
        actions.append(message)
    }

    // MARK: - Publishing

    /// Publishing rounds at most this often while taps keep coming: the messages of the taps
    /// in between go out together (one corked write, a few segments, one PUBACK read), at the
    /// cost of at most this much delay; a tap after a quiet spell is published at once.
    static let pumpIntervalNanos: UInt64 = 2_000_000

    /// After every wakeup: what the event log wrote, the waiting actions, a layout change.
    /// - Parameter quiet: the wakeup decided no tap and changed no state (a PUBACK read, a timer).
    /// - Parameter now: the wakeup's clock read (`endOfWakeup`'s).
    func afterWakeup(quiet: Bool, now: UInt64) {
        guard link.isConnected else { return }
        let generation = output.engine.active.generation
        if generation != discoveryGeneration { publishDiscovery() }
        let layout = output.engine.currentLayoutName
        if layout != lastLayout {
            lastLayout = layout
            publish(topics.layout, Array(layout.utf8), retain: true)
        }
        if quiet, feed?.isCatchingUp == true {
            // A backlog (an outage, a burst larger than the window): the window is refilled as
            // the PUBACKs free it, not once a pacing round, which held a drain to 100 records
            // per 2 ms whatever the broker took. Only in wakeups that served no tap: while taps
            // come, the pacing keeps publishing from taking their time.
            pump(now: now)
            return
        }
        guard !pumpScheduled else { return }
        if pumpPacing.mayRun(now: now) {
            pump(now: now)
        } else if hasWork {
            pumpScheduled = true
            loop.schedule(pumpTimer, at: pumpPacing.due(now: now))
        }
    }

    /// Something waits to be published.
    var hasWork: Bool {
        output.eventLog.writes != eventLogWrites || feed?.mayPublish == true || !actions.isEmpty || !memoryEvents.isEmpty
            || link.wantsWrite
    }

    /// - Parameter now: the caller's clock read, when it has one (a read less per round).
    func pump(now: UInt64? = nil) {
        let now = now ?? loop.now
        pumpPacing.ran(at: now)
        guard link.isConnected else { return }
        let writes = output.eventLog.writes
        if let feed, writes != eventLogWrites || feed.inFlightCount < Self.window {
            eventLogWrites = writes
            feed.pump { line in publish(topics.events, UnsafeRawBufferPointer(line)) }
        }
        while let record = memoryEvents.next {
            guard let mid = publish(topics.events, record) else { break }
            memoryEvents.sent(mid: mid)
        }
        drainActions(now: now)
        link.flush()
    }

    func drainActions(now: UInt64) {
        ageActions(now: now)
        while let message = actions.next {
            let age = now &- message.queuedAt
            let expiry = message.expires ? UInt32(max(1, (maxAgeNanos - age + 999_999_999) / 1_000_000_000)) : nil
            guard let mid = publish(message.topic, message.payload, qos: message.qos, retain: message.retain, expiry: expiry) else { break }
            actions.sent(mid: message.qos > 0 ? mid : nil)
            if message.qos == 0 { published += 1 }
        }
    }

    /// Drops the waiting actions that are too old to send (they are never sent late).
    func ageActions(now: UInt64) {
        actions.dropWaiting { now &- $0.queuedAt > maxAgeNanos }
    }

    /// A drained backlog leaves libmosquitto's freed packets scattered in the heap: once the
    /// feed has caught up after more than `trimAfter` records, its pages go back (as after a
    /// burst of socket replies), so memory returns to what it was before the outage.
    func trimAfterDrain() {
        guard let feed else { return }
        if feed.backlog() > Self.trimAfter {
            backlogWasLarge = true
        } else if backlogWasLarge && feed.inFlightCount == 0 && !feed.mayPublish {
            backlogWasLarge = false
            Memory.returnFreePages()
        }
    }

    var backlogWasLarge = false
    static let trimAfter = 1_000

    /// One publish on the live client; nil when there is none or it refused.
    @discardableResult
    func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool = false, expiry: UInt32? = nil) -> Int32? {
        payload.withUnsafeBytes { publish(topic, $0, qos: qos, retain: retain, expiry: expiry) }
    }

    /// Publishes bytes the caller holds (the feed's records, read in place: no copy per record).
    func publish(_ topic: String, _ payload: UnsafeRawBufferPointer, qos: Int32 = 1, retain: Bool = false, expiry: UInt32? = nil) -> Int32? {
        guard link.isConnected else { return nil }
        do throws(MQTTError) {
            return try link.publish(topic: topic, payload: payload, qos: qos, retain: retain, expirySeconds: expiry)
        } catch {
            if !error.isNotConnected { log.warning("mqtt: cannot publish to \(topic): \(error)") }
            return nil
        }
    }

}
