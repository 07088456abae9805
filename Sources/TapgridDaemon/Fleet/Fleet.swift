import TapgridArguments
import TapgridCore
import TapgridMQTT
import TapgridSystem

/// The daemon on an MQTT broker (README "Running a fleet"): publishes what happens (events from
/// the event log, actions, the current layout, cell state, status, availability, Home Assistant
/// discovery), and takes commands and pushed layouts as a socket client's requests. Owns the
/// `FleetLink` (the connection) and the `EventFeed`; hooked into the tap path as its
/// `TapObserver` and into the loop with an end-of-wakeup hook and two timers.
final class Fleet: FleetLinkDelegate, TapObserver {
    let settings: MQTTConfig
    let topics: FleetTopics
    private let loop: EventLoop
    private let log: LogSink
    private let output: TapOutput
    private let router: RequestRouter
    private let endpoint: RequestEndpoint
    private var link: FleetLink!
    /// Events from the event log; nil with `"eventLog": false` (then `memoryEvents`).
    private var feed: EventFeed?
    /// The connection the fleet's commands are answered on, as a socket client's lines.
    private let commandConnection: Connection
    /// Each `reload` asked for over MQTT waits on a connection of its own (its `id` is kept
    /// there), with the topic its result names.
    private var reloads: [ObjectIdentifier: String] = [:]
    private let daemonUID: UInt32

    /// An outgoing action or `mqtt` handler message, waiting or in flight.
    private struct Outgoing {
        var topic: String
        var payload: [UInt8]
        var qos: Int32
        var retain: Bool
        /// When it was queued (monotonic ns): too old to send is dropped, never sent late.
        var queuedAt: UInt64
        /// Sent with a message expiry (actions), or not (a handler's own topic).
        var expires: Bool
    }

    private var actions = BoundedQueue<Outgoing>(capacity: Fleet.maxQueued)
    private var actionsInFlight: [Int32: Outgoing] = [:]
    /// Records waiting in memory when the event log is off (the oldest dropped past the bound).
    private var memoryEvents = BoundedQueue<[UInt8]>(capacity: Fleet.maxQueued)
    private var memoryInFlight: [Int32: [UInt8]] = [:]
    private var published: UInt64 = 0
    private var dropped: UInt64 = 0
    /// SUBACKs still expected before `online` is published.
    private var pendingSubscriptions: Set<Int32> = []
    private var lastLayout: String?
    private var lastGeneration: UInt64 = 0
    private var discoveryGeneration: UInt64 = 0
    /// The config generation whose left-out entities were logged (once per generation).
    private var skippedLoggedGeneration: UInt64 = 0
    private var lastStatus: [UInt8] = []
    private var layoutSources = FleetLayoutSources()
    /// Topics of the discovery configs published, to empty those whose cell or class went away.
    private var discoveryTopics: Set<String> = []
    /// Per layout, per grid: the cell's action and state topics (nil: not a hittable grid),
    /// built once per config generation so a tap builds no string.
    private var actionTopics: [[String?]] = []
    private var stateTopics: [[String?]] = []
    /// When the last publishing round ran, and the timer of the next one while taps come
    /// faster than `pumpIntervalNanos` (their messages then go out together, corked).
    private var lastPump: UInt64 = 0
    private var pumpTimer: LoopTimer!
    private var pumpScheduled = false
    private var eventLogWrites: UInt64 = .max
    private var statusTimer: LoopTimer!
    private var housekeeping: LoopTimer!

    /// Waiting actions past this are dropped, the oldest first (contract: at most 10,000).
    static let maxQueued = 10_000
    /// `mqtt.maxAgeSeconds` in nanoseconds: actions waiting longer are dropped.
    private let maxAgeNanos: UInt64
    static let window = EventFeed.window
    /// Actions in flight at most: more than the event feed's 100, because every tap makes one
    /// and they must not wait behind a slow round trip until they age out (the queue, not the
    /// window, bounds their memory). The broker's own receive maximum may hold fewer at once.
    static let actionWindow = 1000

    init(settings: MQTTConfig, node: String, eventLogPath: String?, password: String?, loop: EventLoop, log: LogSink,
         output: TapOutput, router: RequestRouter, endpoint: RequestEndpoint, daemonUID: UInt32) throws(Errno) {
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
        link = try FleetLink(
            settings: settings, clientID: "tapgrid-" + node, will: (topics.availability, Array("offline".utf8)), password: password,
            loop: loop, log: log, delegate: self)
        statusTimer = loop.makeTimer(every: 2_000_000_000) { [unowned self] in publishStatus(force: false) }
        housekeeping = loop.makeTimer(every: 1_000_000_000) { [unowned self] in
            feed?.savePosition()
            feed?.followRotation()
            ageActions(now: Clock.monotonicNanos())
            trimAfterDrain()
        }
        loop.schedule(statusTimer, after: 2_000_000_000)
        loop.schedule(housekeeping, after: 1_000_000_000)
        pumpTimer = loop.makeTimer { [unowned self] in
            pumpScheduled = false
            pump()
        }
        loop.onWakeupEnd { [unowned self] in afterWakeup() }
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
        let waiting = (feed?.backlog() ?? (memoryEvents.count + memoryInFlight.count)) + actions.count + actionsInFlight.count
        return StatusReply.MQTT(
            connected: link.isConnected, broker: settings.broker.text, backlog: Int64(waiting), published: Int64(published),
            dropped: Int64(dropped), lastError: link.lastError)
    }

    /// The end of `STATUS=`: `mqtt connected` or `mqtt: <why not>`.
    var statusSuffix: String { link.isConnected ? "mqtt connected" : "mqtt: " + (link.lastError ?? "not connected") }

    // MARK: - The link's events

    func linkConnected(_ client: MQTTClient) {
        pendingSubscriptions = []
        for pattern in topics.subscriptions {
            do throws(MQTTError) { pendingSubscriptions.insert(try client.subscribeRetainAsPublished(pattern, qos: 1)) } catch {
                log.warning("mqtt: cannot subscribe to \(pattern): \(error)")
            }
        }
        lastLayout = nil
        publishState(client)
        publishStatus(force: true)
        publishDiscovery()
        pump()
    }

    func linkLost() {
        feed?.rewind()
        // What was in flight goes back to the front of its queue, to be sent again while young.
        actions.prepend(contentsOf: actionsInFlight.values.sorted { $0.queuedAt < $1.queuedAt })
        actionsInFlight = [:]
        memoryEvents.prepend(contentsOf: memoryInFlight.sorted { $0.key < $1.key }.map(\.value))
        memoryInFlight = [:]
        pendingSubscriptions = []
    }

    func linkSubscribed(_ mid: Int32) {
        guard pendingSubscriptions.remove(mid) != nil, pendingSubscriptions.isEmpty else { return }
        publish(topics.availability, Array("online".utf8), retain: true)
    }

    func linkAcknowledged(_ mid: Int32) {
        if let feed, feed.acknowledged(mid) {
            published += 1
        } else if actionsInFlight.removeValue(forKey: mid) != nil || memoryInFlight.removeValue(forKey: mid) != nil {
            published += 1
        }
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

    // MARK: - Commands

    private func command(op: String, topic: String, payload: [UInt8], retained: Bool) {
        switch FleetCommand.decide(op: op, payload: payload, retained: retained, accept: settings.accept) {
        case .refuse(let code, let message, let id):
            log.info("mqtt: \(topic) refused: \(message)")
            publish(topics.result, FleetResult.refusal(code: code, message: message, id: id, topic: topic))
        case .request(let line, _):
            guard op == "reload" else { return publishResults(endpoint.answer(line, on: commandConnection), topic: topic) }
            let connection = Self.makeCommandConnection(uid: daemonUID)
            let replies = endpoint.answer(line, on: connection)
            if replies.isEmpty { reloads[ObjectIdentifier(connection)] = topic }  // answered when the load is done
            publishResults(replies, topic: topic)
        }
    }

    /// A connection for commands (`origin` `.mqtt`: `accept` was checked, records say `mqtt`).
    private static func makeCommandConnection(uid: UInt32) -> Connection {
        let connection = Connection(descriptor: nil, number: 0, slot: -1, token: 0, uid: uid, gids: [])
        connection.origin = .mqtt
        return connection
    }

    /// A `reload` asked for over MQTT finished: its answer, on `result` with its own topic and id.
    func reloadFinished(_ connection: Connection) {
        guard let topic = reloads.removeValue(forKey: ObjectIdentifier(connection)) else { return }
        publishResults(endpoint.replies(of: connection), topic: topic)
    }

    /// Publishes replies on `result`, each with the topic of the message it answers.
    private func publishResults(_ replies: [EndpointReply], topic: String) {
        for reply in replies { publish(topics.result, FleetResult.reply(reply.line, topic: topic) ?? reply.line) }
    }

    /// A pushed layout's message: checked, sorted out across scopes, and carried out as a
    /// `load` or `unload` request on the command connection (so it is checked, counted and
    /// answered as one pushed through the socket), answered on `result` with its topic.
    private func pushedLayout(name: String, scope: FleetScope, topic: String, payload: [UInt8]) {
        if let refusal = FleetLayoutRequest.refusal(payload: payload, accept: settings.accept) {
            log.info("mqtt: \(topic) refused: \(refusal.message)")
            publish(topics.result, FleetResult.refusal(code: refusal.code, message: refusal.message, id: nil, topic: topic))
            return
        }
        switch FleetLayoutRequest.request(for: layoutSources.receive(name: name, scope: scope, payload: payload)) {
        case nil:
            return
        case .refuse(let code, let message, let id)?:
            log.info("mqtt: \(topic) refused: \(message)")
            publish(topics.result, FleetResult.refusal(code: code, message: message, id: id, topic: topic))
        case .request(let line, _)?:
            publishResults(endpoint.answer(line, on: commandConnection), topic: topic)
        }
    }

    // MARK: - The tap path's observer

    func tapDecided(_ decision: TapDecision, source: [UInt8]?) {
        switch decision.outcome {
        case .miss, .suppressed, .disabled, .checked: return
        default: break
        }
        guard let grid = decision.target?.grid, let topic = cellTopic(state: false, layout: decision.layout, grid: grid) else { return }
        enqueue(Outgoing(
            topic: topic, payload: Self.classPayloads[decision.tapClass.rawValue], qos: 1, retain: false,
            queuedAt: Clock.monotonicNanos(), expires: true))
    }

    func stateChanged(layout: Int, grid: Int, state: CellState) {
        guard link.isConnected, let topic = cellTopic(state: true, layout: layout, grid: grid) else { return }  // all are sent on connect
        publish(topic, Self.statePayload(state), retain: true)
    }

    func publishHandlerMessage(_ decision: TapDecision) -> Bool {
        guard actions.count < actions.capacity,
              case .mqtt(let topic, let qos, let retain) = output.engine.active.config.handlers[Int(decision.handler)].kind
        else { return false }
        let payload: [UInt8]
        switch output.engine.info(of: decision)?.actionData {
        case .string(let text)?: payload = Array(text.utf8)
        case let value?: payload = Array(value.compactJSON.utf8)
        case nil: payload = []
        }
        enqueue(Outgoing(topic: topic, payload: payload, qos: Int32(qos), retain: retain, queuedAt: Clock.monotonicNanos(), expires: false))
        return true
    }

    /// Keeps an event record for the broker when there is no event log to feed it from.
    func memoryEvent(_ record: ArraySlice<UInt8>) {
        let record = Array(record)
        guard !EventFeed.isTouchRecord(record, 0, record.count) else { return }
        if !memoryEvents.append(record) { dropped += 1 }
    }

    private func enqueue(_ message: Outgoing) {
        if !actions.append(message) { dropped += 1 }
    }

    // MARK: - Publishing

    /// Publishing rounds at most this often while taps keep coming: the messages of the taps
    /// in between go out together (one corked write, a few segments, one PUBACK read), at the
    /// cost of at most this much delay; a tap after a quiet spell is published at once.
    static let pumpIntervalNanos: UInt64 = 2_000_000

    /// After every wakeup: what the event log wrote, the waiting actions, a layout change.
    private func afterWakeup() {
        guard link.isConnected else { return }
        let generation = output.engine.active.generation
        if generation != discoveryGeneration { publishDiscovery() }
        let layout = output.engine.currentLayoutName
        if layout != lastLayout {
            lastLayout = layout
            publish(topics.layout, Array(layout.utf8), retain: true)
        }
        guard !pumpScheduled else { return }
        let now = Clock.monotonicNanos()
        if now &- lastPump >= Self.pumpIntervalNanos {
            pump()
        } else if hasWork {
            pumpScheduled = true
            loop.schedule(pumpTimer, at: lastPump &+ Self.pumpIntervalNanos)
        }
    }

    /// Something waits to be published.
    private var hasWork: Bool {
        output.eventLog.writes != eventLogWrites || feed?.mayPublish == true || !actions.isEmpty || !memoryEvents.isEmpty
            || link.client?.wantWrite == true
    }

    private func pump() {
        lastPump = Clock.monotonicNanos()
        guard link.isConnected else { return }
        let writes = output.eventLog.writes
        if let feed, writes != eventLogWrites || feed.inFlightCount < Self.window {
            eventLogWrites = writes
            feed.pump { line in publish(topics.events, Array(line)) }
        }
        while let record = memoryEvents.first, memoryInFlight.count < Self.window {
            guard let mid = publish(topics.events, record) else { break }
            memoryInFlight[mid] = memoryEvents.removeFirst()
        }
        drainActions(now: Clock.monotonicNanos())
        link.flush()
    }

    private func drainActions(now: UInt64) {
        ageActions(now: now)
        while let message = actions.first, actionsInFlight.count < Self.actionWindow {
            let age = now &- message.queuedAt
            let expiry = message.expires ? UInt32(max(1, (maxAgeNanos - age + 999_999_999) / 1_000_000_000)) : nil
            guard let mid = publish(message.topic, message.payload, qos: message.qos, retain: message.retain, expiry: expiry) else { break }
            _ = actions.removeFirst()
            if message.qos > 0 { actionsInFlight[mid] = message } else { published += 1 }
        }
    }

    /// Drops the waiting actions that are too old to send (they are never sent late).
    private func ageActions(now: UInt64) {
        while let message = actions.first, now &- message.queuedAt > maxAgeNanos {
            _ = actions.removeFirst()
            dropped += 1
        }
    }

    /// A drained backlog leaves libmosquitto's freed packets scattered in the heap: once the
    /// feed has caught up after more than `trimAfter` records, its pages go back (as after a
    /// burst of socket replies), so memory returns to what it was before the outage.
    private func trimAfterDrain() {
        guard let feed else { return }
        if feed.backlog() > Self.trimAfter {
            backlogWasLarge = true
        } else if backlogWasLarge && feed.inFlightCount == 0 && !feed.mayPublish {
            backlogWasLarge = false
            Memory.returnFreePages()
        }
    }

    private var backlogWasLarge = false
    static let trimAfter = 1_000

    /// One publish on the live client; nil when there is none or it refused.
    @discardableResult
    private func publish(_ topic: String, _ payload: [UInt8], qos: Int32 = 1, retain: Bool = false, expiry: UInt32? = nil) -> Int32? {
        guard let client = link.client, link.isConnected else { return nil }
        do throws(MQTTError) {
            if let expiry { return try client.publish(topic: topic, payload: payload, qos: qos, retain: retain, expirySeconds: expiry) }
            return try client.publish(topic: topic, payload: payload, qos: qos, retain: retain)
        } catch {
            if !error.isNotConnected { log.warning("mqtt: cannot publish to \(topic): \(error)") }
            return nil
        }
    }

    /// Every cell's state (those that have one) and the current layout, on connect.
    private func publishState(_ client: MQTTClient) {
        let engine = output.engine
        for (layoutIndex, layout) in engine.active.layouts.enumerated() {
            for grid in layout.tree.nodes.indices {
                let state = engine.cellState(layout: layoutIndex, grid: grid)
                guard !state.isEmpty, let topic = cellTopic(state: true, layout: layoutIndex, grid: grid) else { continue }
                publish(topic, Self.statePayload(state), retain: true)
            }
        }
    }

    /// `{"text":..,"active":..,"value":..,"enabled":..}`.
    static func statePayload(_ state: CellState) -> [UInt8] {
        var out: [UInt8] = [0x7B]
        state.appendFields(to: &out)
        out.append(0x7D)
        return out
    }

    /// The status reply with `node` and `version`, when it changed (uptime aside) or `force`.
    private func publishStatus(force: Bool) {
        guard link.isConnected else { return }
        var status = router.statusReply()
        status.node = topics.node
        status.version = tapgridVersion
        var comparable = status
        comparable.uptime = nil
        let buffer = ByteBuffer(capacity: 512)
        comparable.write(id: nil, into: buffer)
        let key = Array(buffer.bytes)
        guard force || key != lastStatus else { return }
        lastStatus = key
        buffer.removeAll()
        status.write(id: nil, into: buffer)
        publish(topics.status, Array(buffer.bytes.dropLast()), retain: true)
    }

    private func publishDiscovery() {
        discoveryGeneration = output.engine.active.generation
        guard let prefix = settings.homeAssistantPrefix, link.isConnected else { return }
        if skippedLoggedGeneration != discoveryGeneration {
            skippedLoggedGeneration = discoveryGeneration
            for line in HomeAssistantDiscovery.skipped(config: output.engine.active.config) {
                log.warning("mqtt: Home Assistant: " + line)
            }
        }
        let messages = HomeAssistantDiscovery.messages(config: output.engine.active.config, topics: topics, prefix: prefix, version: tapgridVersion)
        for topic in HomeAssistantDiscovery.emptied(previous: discoveryTopics, current: messages.map(\.topic)) {
            publish(topic, [], retain: true)
        }
        for message in messages { publish(message.topic, message.payload, retain: true) }
        discoveryTopics = Set(messages.map(\.topic))
    }

    private func rebuildCellKeys() {
        actionTopics = []
        stateTopics = []
        for layout in output.engine.active.layouts {
            let keys = layout.tree.nodes.indices.map { MQTTConfig.cellKey(ofGrid: $0, in: layout.tree) }
            actionTopics.append(keys.map { $0.map { topics.action(layout: layout.name, cell: $0) } })
            stateTopics.append(keys.map { $0.map { topics.state(layout: layout.name, cell: $0) } })
        }
        lastGeneration = output.engine.active.generation
    }

    private func cellTopic(state: Bool, layout: Int, grid: Int) -> String? {
        if output.engine.active.generation != lastGeneration { rebuildCellKeys() }
        let table = state ? stateTopics : actionTopics
        guard layout < table.count, grid < table[layout].count else { return nil }
        return table[layout][grid]
    }

    /// `tap`, `long`, `hold`, `double` as payloads, made once.
    private static let classPayloads: [[UInt8]] = (0..<4).map { Array((TapClass(rawValue: $0)?.name.description ?? "tap").utf8) }
}
