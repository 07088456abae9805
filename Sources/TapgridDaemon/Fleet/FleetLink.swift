import Synchronization
import TapgridCore
import TapgridMQTT
import TapgridSystem

/// What the link reports to its owner (the `Fleet`), on the loop thread.
protocol FleetLinkDelegate: AnyObject {
    /// CONNACK accepted: subscribe, publish what waits.
    func linkConnected()
    /// The connection is gone (the client with it: everything in flight is unacknowledged).
    func linkLost()
    /// A message on a subscribed topic.
    func linkReceived(topic: String, payload: [UInt8], retained: Bool)
    /// The broker acknowledged a publish (PUBACK) or a subscription (SUBACK).
    func linkAcknowledged(_ mid: Int32)
    func linkSubscribed(_ mid: Int32)
}

/// The connection to the broker, on the daemon's loop: one libmosquitto client per attempt
/// (made fresh each time, so the library never keeps a queue of its own across outages), its
/// socket registered with the loop and re-registered after every reconnect, `loop_misc` on a
/// one-second timer, and reconnects with backoff (1 s doubling to 30 s, with jitter). A broker
/// named by host name is resolved on a worker thread (`NameResolution`), handed back through
/// an eventfd: no call on the loop waits on the network.
final class FleetLink: LoopHandler {
    enum Phase: Equatable {
        case idle
        case resolving
        /// Connect sent, CONNACK not yet received.
        case connecting
        case connected
        /// Waiting for the next attempt.
        case waiting
        case stopped
    }

    private let settings: MQTTConfig
    private let clientID: String
    private let will: (topic: String, payload: [UInt8])
    private let password: String?
    private let loop: EventLoop
    private let log: LogSink
    unowned let delegate: FleetLinkDelegate
    private(set) var phase: Phase = .idle
    /// Why the link is not connected (the last failure), nil while connected.
    private(set) var lastError: String? = "not connected yet"
    /// The live client (one per attempt); publish through it only while `isConnected`.
    private(set) var client: MQTTClient? {
        didSet { clientIdentity = client.map(ObjectIdentifier.init) }
    }
    /// `client`'s identity: `isCurrent` compares it (comparing the references themselves cost a
    /// retain and a release per delivered event, a PUBACK each).
    private var clientIdentity: ObjectIdentifier?

    /// Whether `client` is still this link's (a callback's event may have given it up).
    @inline(__always)
    private func isCurrent(_ client: MQTTClient) -> Bool { clientIdentity == ObjectIdentifier(client) }
    private var registration: LoopRegistration?
    /// The buffer `readAll` takes libmosquitto's callbacks' events into, kept between reads.
    @exclusivity(unchecked) private var spareEvents: [MQTTEvent] = []
    private var backoff = ReconnectBackoff()
    /// Runs `keepAlive` once a second while there is a client.
    private var keepaliveTimer: LoopTimer!
    private var retryTimer: LoopTimer!
    /// When a connect that got no CONNACK is given up.
    private var connectDeadline: LoopTimer!
    private let wake: EventFD
    private var wakeRegistration: LoopRegistration?
    private let resolved = ResolutionInbox()

    private static let socketToken: UInt64 = 0
    private static let wakeToken: UInt64 = 1
    /// A connect without CONNACK for this long is given up (a broker that accepts the TCP
    /// connection and never answers).
    static let connectTimeoutNanos: UInt64 = 10_000_000_000

    init(settings: MQTTConfig, clientID: String, will: (topic: String, payload: [UInt8]), password: String?,
         loop: EventLoop, log: LogSink, delegate: FleetLinkDelegate) throws(Errno) {
        self.settings = settings
        self.clientID = clientID
        self.will = will
        self.password = password
        self.loop = loop
        self.log = log
        self.delegate = delegate
        wake = try EventFD()
        wakeRegistration = try loop.register(wake.fd.rawValue, events: .readable, handler: self, token: Self.wakeToken)
        keepaliveTimer = loop.makeTimer(every: 1_000_000_000) { [unowned self] in keepAlive() }
        retryTimer = loop.makeTimer { [unowned self] in attempt() }
        connectDeadline = loop.makeTimer { [unowned self] in
            if phase == .connecting { fail("no answer (CONNACK) from the broker within \(Self.connectTimeoutNanos / 1_000_000_000) s") }
        }
    }

    var isConnected: Bool { phase == .connected }

    var brokerText: String { settings.broker.text }

    /// The first attempt (at start; never waits for the broker).
    func start() {
        guard phase == .idle else { return }
        attempt()
    }

    /// A clean stop: `offline` published (a clean DISCONNECT discards the will), written out as
    /// far as the socket takes it now, then DISCONNECT; no reconnect after.
    func stop(lastWords: (topic: String, payload: [UInt8])?) {
        if phase == .connected, let client, let lastWords {
            _ = try? client.publish(topic: lastWords.topic, payload: lastWords.payload, qos: 1, retain: true)
            for _ in 0..<8 where client.wantWrite { _ = try? client.loopWrite() }
            _ = try? client.disconnect()
            for _ in 0..<8 where client.wantWrite { _ = try? client.loopWrite() }
        }
        dropClient()
        phase = .stopped
        lastError = "stopped"
        loop.schedule(retryTimer, at: nil)
        loop.schedule(connectDeadline, at: nil)
        if let wakeRegistration { loop.unregister(wakeRegistration) }
        wakeRegistration = nil
    }

    // MARK: - Attempts

    private func attempt() {
        guard phase != .stopped else { return }
        switch settings.broker {
        case .unix(let path): connect(host: path, port: 0)
        case .tcp(let host, let port):
            // A name is resolved anew for every attempt (its address may have moved).
            if Self.isNumeric(host) { connect(host: host, port: Int32(port)) } else { resolve(host) }
        }
    }

    private func resolve(_ host: String) {
        phase = .resolving
        let notifier = wake.notifier
        Threads.detach { [resolved] in
            resolved.post(NameResolution.resolve(host))
            notifier.signal()
        }
    }

    private func resolutionFinished(_ result: Result<String, ResolutionError>) {
        guard phase == .resolving else { return }
        switch result {
        case .failure(let error): fail(error.description)
        case .success(let numeric):
            guard case .tcp(let host, let port) = settings.broker else { return }
            // With TLS the name goes to libmosquitto, which checks the certificate against it
            // (and looks it up again: the lookup just made has warmed whatever cache the
            // system has; docs/fleet.md "Running a fleet").
            connect(host: settings.tls == nil ? numeric : host, port: Int32(port))
        }
    }

    private func connect(host: String, port: Int32) {
        dropClient()
        do throws(MQTTError) {
            let made = try MQTTClient(id: clientID)
            try made.useMQTT5()
            try made.setNoDelay()
            try made.queueWrites()
            if let username = settings.username { try made.setCredentials(username: username, password: password) }
            if let tls = settings.tls { try made.setTLS(caFile: tls.caFile, certFile: tls.certFile, keyFile: tls.keyFile) }
            try made.setWill(topic: will.topic, payload: will.payload, qos: 1, retain: true)
            try made.connectAsync(host: host, port: port, keepaliveSeconds: Int32(settings.keepaliveSeconds))
            client = made
            phase = .connecting
            guard let fd = made.socket else { return fail("no socket after mosquitto_connect_async") }
            registration = try? loop.register(fd, events: made.wantWrite ? [.readable, .writable] : .readable, handler: self, token: Self.socketToken)
            loop.schedule(keepaliveTimer, after: 1_000_000_000)
            loop.schedule(connectDeadline, after: Self.connectTimeoutNanos)
        } catch {
            fail(error.description)
        }
    }

    /// Gives up the connection (and its client), says why, and schedules the next attempt.
    private func fail(_ why: String) {
        let wasConnected = phase == .connected
        dropClient()
        if phase == .stopped { return }
        if lastError != why || wasConnected { log.warning("mqtt: \(brokerText): \(why)") }
        lastError = why
        phase = .waiting
        loop.schedule(retryTimer, after: backoff.next(random: UInt64.random(in: 0...UInt64.max)))
        if wasConnected { delegate.linkLost() }
    }

    /// Takes the socket out of epoll before the library closes it, then destroys the client.
    private func dropClient() {
        if let registration { loop.unregister(registration) }
        registration = nil
        client = nil
        loop.schedule(keepaliveTimer, at: nil)
        loop.schedule(connectDeadline, at: nil)
    }

    private static func isNumeric(_ host: String) -> Bool {
        host.contains(":") || host.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }
    }

    // MARK: - The loop

    func handle(token: UInt64, events: EpollEvents) {
        if token == Self.wakeToken {
            _ = wake.drain()
            for result in resolved.take() { resolutionFinished(result) }
            return
        }
        guard let client else { return }
        do throws(MQTTError) {
            if events.contains(.readable) || events.contains(.error) || events.contains(.hangup) {
                try readAll(client)
                guard isCurrent(client) else { return }  // given up by a callback
                if let fd = client.socket { TCPSocketOptions.quickAck(fd) }
            }
            if isCurrent(client) && client.wantWrite { try client.loopWrite() }
        } catch {
            deliver(client)
            // The callbacks may have given this client up already, with the real reason: a
            // refused CONNACK reaches on_connect with its reason code, then loop_read returns
            // MOSQ_ERR_PROTOCOL. Failing again would put "protocol error" over the refusal in
            // `lastError` and draw the backoff twice for one attempt.
            guard isCurrent(client) else { return }
            return fail(error.isConnectionLost ? "connection lost" : error.description)
        }
        deliver(client)
        watchWrites()
    }

    /// Every packet the socket holds, each call's events handed over before the next call.
    /// `mosquitto_loop_read` (libmosquitto 2.0) ends after a packet whenever `errno` then says
    /// EAGAIN, and a PUBACK that lets a message the library queued (past the broker's receive
    /// maximum, 20 by default) go out writes a byte to the library's own socketpair, which
    /// nothing reads when the caller runs the loop: once it is full, that write's EAGAIN ended
    /// each call after one packet, and every PUBACK cost the daemon a wakeup (clearing `errno`
    /// first changes nothing: the library clears it before each read). A call that handled
    /// nothing found the socket empty (or read a packet without a callback, a PINGRESP: the
    /// loop comes back for anything left).
    private func readAll(_ client: MQTTClient) throws(MQTTError) {
        for _ in 0..<Self.maxReadCalls {
            try client.loopRead()
            // The spare buffer taken out while delivering (a callback that reads again gets a new one).
            var events = spareEvents
            spareEvents = []
            client.takeEvents(into: &events)
            defer { spareEvents = events }
            if events.isEmpty { return }
            deliver(events, of: client)
            guard isCurrent(client) else { return }
        }
    }

    /// `loopRead` calls per wakeup at most (each handled a packet): a broker that sends without
    /// pause cannot keep the loop from the rest of its work.
    static let maxReadCalls = 256

    /// After publishing: writes what the library queued if the socket takes it, else waits for
    /// writable.
    /// The packets go out corked: a wakeup's messages leave in a few full segments.
    func flush() {
        guard let client, phase == .connected || phase == .connecting else { return }
        if client.wantWrite, let fd = client.socket {
            TCPSocketOptions.cork(fd, true)
            defer { if let fd = self.client?.socket { TCPSocketOptions.cork(fd, false) } }
            do throws(MQTTError) { try client.loopWrite() } catch {
                return fail(error.isConnectionLost ? "connection lost" : error.description)
            }
        }
        watchWrites()
    }

    private func watchWrites() {
        guard let client, var registration else { return }
        let wanted: EpollEvents = client.wantWrite ? [.readable, .writable] : .readable
        do throws(Errno) { try loop.modify(&registration, events: wanted) } catch { return fail("epoll_ctl: \(error)") }
        self.registration = registration
    }

    /// `mosquitto_loop_misc`: the keepalive PING when it is due, a broker that stopped answering
    /// given up, messages due for a retry sent again.
    private func keepAlive() {
        guard let client else { return }
        do throws(MQTTError) { try client.loopMisc() } catch {
            deliver(client)
            guard isCurrent(client) else { return }  // given up by a callback (see `handle`)
            return fail(error.isConnectionLost ? "the broker stopped answering (keepalive)" : error.description)
        }
        deliver(client)
        watchWrites()
    }

    /// Hands the callbacks' events to the delegate.
    private func deliver(_ client: MQTTClient) {
        // Through the spare buffer as `readAll` does: `takeEvents()` left the client an empty
        // array without capacity, which the next callback's append allocated anew.
        var events = spareEvents
        spareEvents = []
        client.takeEvents(into: &events)
        defer { spareEvents = events }
        if !events.isEmpty { deliver(events, of: client) }
    }

    private func deliver(_ events: [MQTTEvent], of client: MQTTClient) {
        let delegate = self.delegate  // one strong load of the unowned reference, not one per event
        for event in events {
            guard isCurrent(client) else { return }
            switch event {
            case .connected(let code):
                loop.schedule(connectDeadline, at: nil)
                guard code == 0 else {
                    return fail("the broker refused the connection: \(MQTTLibrary.connackReason(code)) (\(code))")
                }
                phase = .connected
                lastError = nil
                backoff.reset()
                log.info("mqtt: connected to \(brokerText) as \(clientID)")
                delegate.linkConnected()
            case .disconnected(let code):
                return fail(code == 0 ? "disconnected" : "connection lost (\(MQTTLibrary.reasonText(code)))")
            case .message(let topic, let payload, _, let retained):
                delegate.linkReceived(topic: topic, payload: payload, retained: retained)
            case .published(let mid):
                delegate.linkAcknowledged(mid)
            case .subscribed(let mid, _):
                delegate.linkSubscribed(mid)
            }
        }
    }
}

/// Lookups finished on the worker thread, taken by the loop after the eventfd fired.
private final class ResolutionInbox: Sendable {
    private let results = Mutex<[Result<String, ResolutionError>]>([])

    func post(_ result: Result<String, ResolutionError>) { results.withLock { $0.append(result) } }

    func take() -> [Result<String, ResolutionError>] {
        results.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }
}

/// Reconnect delays: 1 s doubling to 30 s, each drawn between half and all of its step, so a
/// fleet that lost its broker does not come back in step.
struct ReconnectBackoff: Equatable {
    private(set) var step: UInt64 = 1_000_000_000
    static let maximum: UInt64 = 30_000_000_000

    /// The next delay in nanoseconds (`random`: any 64 random bits).
    mutating func next(random: UInt64) -> UInt64 {
        let delay = step / 2 + random % (step / 2 + 1)
        step = min(step * 2, Self.maximum)
        return delay
    }

    mutating func reset() { step = 1_000_000_000 }
}
