// libFuzzer targets for TapgridCore. Compiled together with Sources/TapgridCore/**/*.swift as one
// module named TapgridCore (see Fuzz/README.md and `make fuzz`), so they reach internal state
// (the recognizer's contacts and double-tap waits) without widening the module's API.
// One binary holds every target; TAPGRID_FUZZ_TARGET picks one: config, request, touch, eventlog, mqtt.

import Glibc

/// A trace line on stderr, unbuffered, so it is there when a check then aborts.
func trace(_ line: String) { fputs(line + "\n", stderr) }

/// Stops the run with a message libFuzzer records as a crash, with the input that caused it.
func violated(_ message: @autoclosure () -> String) -> Never {
    fatalError("invariant violated: " + message())
}

/// Which target this process runs, read once.
let fuzzTarget: String = {
    guard let raw = getenvString("TAPGRID_FUZZ_TARGET") else { violated("set TAPGRID_FUZZ_TARGET to config, request, touch, eventlog or mqtt") }
    return raw
}()

func getenvString(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    switch fuzzTarget {
    case "config": fuzzConfig(bytes)
    case "request": fuzzRequest(bytes)
    case "touch": fuzzTouch(bytes)
    case "eventlog": fuzzEventLog(bytes)
    case "mqtt": fuzzMQTT(bytes)
    case "panel": fuzzPanel(bytes)
    default: violated("unknown TAPGRID_FUZZ_TARGET \(fuzzTarget)")
    }
    return 0
}

// MARK: - config: the grid dictionary and config loader (lenient JSON in, a Config or diagnostics out)

/// A layout file the config may name as `"grid": "g.json"`: the input itself, so grids read
/// from files take the same path as inline ones.
func fuzzConfig(_ bytes: [UInt8]) {
    guard let document = try? JSONParser.parse(bytes, lenient: true, maxDepth: 2 * GridParser.maxDepth + 16) else { return }
    var parser = ConfigParser(file: "fuzz.json", directory: "/fuzz") { path in
        if path.hasSuffix("/g.json") {
            if let value = try? JSONParser.parse(bytes, lenient: true, maxDepth: 2 * GridParser.maxDepth + 16) { return .success(value) }
        }
        return .failure(Diagnostic(.error, "no \(path)"))
    }
    let (config, diagnostics) = parser.parse(document)
    if config != nil && diagnostics.hasErrors { violated("a config with errors was returned") }
    guard let config, diagnostics.errors.isEmpty else { return }
    // A loaded config must be usable: hit-test and route across each layout, edges included.
    var engine = TapEngine(config: config, generation: 1)
    for (index, layout) in config.layouts.enumerated() {
        let w = layout.frame.width, h = layout.frame.height
        for (fx, fy) in [(0.0, 0.0), (0.5, 0.5), (0.999, 0.001), (1.0, 1.0), (-0.1, 0.3)] {
            var decision = engine.tap(layout: index, x: w * fx, y: h * fy, explicitLayout: true, now: 1)
            engine.settle(&decision, outcome: decision.outcome, reason: nil, now: 1)
            _ = engine.info(of: decision)
        }
    }
}

// MARK: - request: the request line scanner against the JSON parser

/// The scanner is strict JSON plus the request's own checks: whatever it accepts, the strict
/// JSON parser must accept too (it never reads something that is not JSON as a request).
func fuzzRequest(_ bytes: [UInt8]) {
    let scanned = RequestScanner.scan(bytes)
    if case .success = scanned {
        do { _ = try JSONParser.parse(bytes, lenient: false) } catch {
            // By design the scanner looks for duplicate keys at the top level only: inside an
            // ignored value or an `id` (echoed as sent) finding them would cost allocations on
            // every request (docs/socket-protocol.md "Socket protocol"; RequestScannerTests pins both cases).
            if error.message.hasPrefix("duplicate key") { return }
            violated("the scanner accepted a line the JSON parser refuses: \(error)")
        }
    }
    if case .failure(let failure) = scanned, let id = failure.id {
        guard id.lowerBound >= 0, id.upperBound <= bytes.count else { violated("id range \(id) outside the line") }
    }
    if case .success(let request) = scanned, [.set, .load, .unload, .layouts].contains(request.op),
        let object = try? JSONParser.parse(bytes, lenient: false)
    {
        fuzzControl(request.op, object)
    }
    // The plain-tap shortcut the daemon tries first: a line it takes must read the same through
    // the full scan, and a coordinate text it hands on must be what writeNumber writes.
    bytes.withUnsafeBufferPointer { line in
        guard let plain = RequestScanner.plainTap(line) else { return }
        var full = Request()
        if let failure = RequestScanner.scanFully(line, into: &full) { violated("plainTap took a line the full scan refuses: \(failure)") }
        guard full == Request(op: .tap, x: plain.x, y: plain.y) else { violated("plainTap read \(plain.x), \(plain.y); the full scan \(full)") }
        for (value, text) in [(plain.x, plain.xText), (plain.y, plain.yText)] {
            guard let text else { continue }
            var written = [UInt8](repeating: 0, count: JSONWriter.maxNumberBytes)
            let n = written.withUnsafeMutableBufferPointer { JSONWriter.writeNumber(value, to: $0.baseAddress!) }
            if !written[..<n].elementsEqual(text) {
                violated("plainTap handed on \(String(decoding: text, as: UTF8.self)) for \(value); writeNumber writes \(String(decoding: written[..<n], as: UTF8.self))")
            }
        }
    }
}

// MARK: - request, continued: set and load as the daemon carries them out

/// A toggle grid, a named grid and an unnamed one, for `set` and `load` requests.
let cellsConfig: Config = {
    let text = #"""
    {"layouts": {"home": {"width": 300, "height": 100, "grid": {"cols": [
        {"size": 100, "tag": 1, "name": "light", "toggle": true}, {"size": 100, "tag": 2, "name": "cart"}, {"size": 100, "tag": 3}]}}},
     "handlers": {"audit": {"type": "log"}}, "routes": [{"handler": "audit"}]}
    """#
    var parser = ConfigParser(file: "cells.json", directory: "/fuzz") { path in .failure(Diagnostic(.error, "no \(path)")) }
    guard let config = parser.parse(try! JSONParser.parse(text, lenient: true)).config else { violated("the cells fuzz config does not load") }
    return config
}()

/// Invariants: a `set` the decoder takes leaves exactly the change applied, within the limits,
/// and its state record is strict JSON; a `load` it takes swaps in a config whose every layout
/// hit-tests without trapping; a refused one changes nothing and says why.
func fuzzControl(_ op: Request.Op, _ object: JSONValue) {
    var engine = TapEngine(config: cellsConfig, generation: 1)
    switch op {
    case .set:
        guard case .success(let request) = ControlRequest.set(object) else { return }
        let before = (try? engine.grid(request.grid, in: 0).get()).map { engine.cellState(layout: 0, grid: $0) }
        guard case .success(let done) = engine.set(layout: request.layout, grid: request.grid, request.change) else {
            if engine.hasCellState { violated("a refused set changed state") }
            return
        }
        let state = engine.cellState(layout: done.layout, grid: done.grid)
        if var expected = before, done.layout == 0 {
            // The change made to a copy, apart from the engine's own state.
            _ = request.change.apply(to: &expected)
            if state != expected { violated("set left \(state), not the change applied") }
        }
        if (state.text?.utf8.count ?? 0) > CellState.maxTextBytes || (state.valueJSON?.utf8.count ?? 0) > CellState.maxValueBytes {
            violated("set kept a state over the limits")
        }
        let record = ByteBuffer(capacity: 256)
        StateRecord.write(seq: 1, layout: "home", path: "0", state: state, source: .socket, into: record)
        let line = Array(record.bytes.dropLast())  // without its \n
        if (try? JSONParser.parse([0x7B] + line, lenient: false)) == nil { violated("a state record is not JSON") }
        // A tap after it is decided by the same rules (disabled or toggled, never both).
        let decision = engine.tap(layout: 0, x: 50, y: 50, explicitLayout: true, now: 1)
        if decision.outcome == .disabled && decision.toggledActive != nil { violated("a disabled grid toggled") }
    case .load:
        guard case .success(let request) = ControlRequest.load(object) else { return }
        var pushed = PushedLayouts()
        switch pushed.load(request.layout, definition: request.definition, config: cellsConfig) {
        case .refused(let errors):
            if errors.isEmpty { violated("a refused load gave no reason") }
            if !pushed.isEmpty { violated("a refused load was kept") }
        case .unchanged: violated("a first load was unchanged")
        case .loaded:
            let combined = pushed.combined(with: cellsConfig)
            guard let index = combined.layoutIndex(named: request.layout) else { violated("a loaded layout is missing") }
            engine.swap(to: combined, generation: 2)
            let frame = combined.layouts[index].frame
            for (fx, fy) in [(0.5, 0.5), (0, 0), (0.999, 0.25)] {
                _ = engine.tap(layout: index, x: frame.width * fx, y: frame.height * fy, explicitLayout: true, now: 1)
            }
        }
    case .unload:
        _ = ControlRequest.unload(object)
    case .layouts:
        _ = ControlRequest.layoutsWithState(object)
    default:
        return
    }
}

// MARK: - eventlog: the reader replay uses

func fuzzEventLog(_ bytes: [UInt8]) {
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
        _ = EventRecord.read(line)
    }
}

// MARK: - touch: the tap-class recognizer under random contact sequences

/// Two layouts as in TouchRecognizerTests: grids that tap, long-press, hold, double-tap and
/// page (a long press that switches layout, which ends every contact in flight).
let touchConfig: Config = {
    let text = #"""
    {"layouts": {
       "pad": {"width": 100, "height": 100, "longPressMs": 40, "repeatMs": 15, "doubleTapMs": 30, "slop": 5,
          "grid": {"cols": [
          {"size": "20%", "tag": 1}, {"size": "20%", "tag": 2}, {"size": "20%", "tag": 3},
          {"size": "20%", "tag": 4}, {"size": "20%", "tag": 5, "action-data": "other"}]}},
       "other": {"width": 100, "height": 100, "longPressMs": 30, "doubleTapMs": 20, "debounceMs": 10, "grid": {"cols": [
          {"tag": 9}, {"tag": 4}, {"tag": 6, "action-data": "pad"}]}}},
     "initialLayout": "pad",
     "handlers": {"audit": {"type": "log"}, "menu": {"type": "log"}, "volume": {"type": "log"},
                  "zoom": {"type": "log"}, "pages": {"type": "layout"}},
     "routes": [{"tags": [2], "handler": "menu", "on": "long"}, {"tags": [3], "handler": "volume", "on": ["hold"]},
                {"tags": [4], "handler": "zoom", "on": ["tap", "double"]}, {"tags": [5], "handler": "pages", "on": "long"},
                {"tags": [6], "handler": "pages"}, {"handler": "audit"}]}
    """#
    let document = try! JSONParser.parse(text, lenient: true)
    var parser = ConfigParser(file: "touch.json", directory: "/fuzz") { path in .failure(Diagnostic(.error, "no \(path)")) }
    guard let config = parser.parse(document).config else { violated("the touch fuzz config does not load") }
    return config
}()

/// Reads the input four bytes per event: phase and slot, milliseconds since the last event,
/// x and y (0...127, so some presses miss and some moves leave the slop).
///
/// Invariants, per contact (one `down` to its `up`/`cancel`, or until the engine ends it):
/// - at most one of `tap`, `double`, `long` fires for it, and no `hold` with any of them;
/// - `long` and `hold` fire only while it is down (never after its `cancel` or `up`);
/// - a `tap` fired by a timer is the single tap of a contact that lifted on a double-tap grid
///   and waited (its wait is gone afterwards), never a cancelled contact's;
/// - `down`, `move` and `cancel` complete nothing; an `up` completes at most one tap.
/// TAPGRID_FUZZ_TRACE=1 prints each event and what fired (run the binary on one input file).
let traceTouch = getenvString("TAPGRID_FUZZ_TRACE") != nil

/// The engine every input starts from, built once: a `TapEngine` is a value (its `ActiveConfig`
/// is immutable and shared), so each input's copy starts fresh without rebuilding the config's
/// prebuilt fragments (which took most of each execution: about 900 inputs/s before, beside
/// builds). Only `outcomeCounts`, a shared counter no invariant reads, carries over.
let touchPrototype = TapEngine(config: touchConfig, generation: 1)

func fuzzTouch(_ bytes: [UInt8]) {
    var engine = touchPrototype
    var now: UInt64 = 1_000_000_000
    var nextInstance = 0
    var downInstance: [ContactKey: Int] = [:]
    /// Per contact: the one class other than `hold` it fired, if any, and whether it held (a
    /// summary rather than the list: hold repeats would make a list, and scanning it, grow).
    var fired: [Int: (single: TapClass?, held: Bool)] = [:]
    var waitOwner: [DoubleKey: Int] = [:]
    var taps: [ClassedTap] = []

    func record(_ instance: Int, _ tapClass: TapClass) {
        let before = fired[instance] ?? (single: nil, held: false)
        switch tapClass {
        case .hold:
            if let single = before.single { violated("hold after \(single) on contact \(instance)") }
            fired[instance] = (single: nil, held: true)
        case .tap, .double, .long:
            if let single = before.single { violated("\(tapClass) after \(single) on contact \(instance)") }
            if before.held { violated("\(tapClass) after hold on contact \(instance)") }
            fired[instance] = (single: tapClass, held: before.held)

        case .change, .release:
            violated("\(tapClass) on contact \(instance) of a layout without sliders")
        }
    }

    var offset = 0
    while offset + 4 <= bytes.count {
        let op = bytes[offset], dt = bytes[offset + 1], bx = bytes[offset + 2], by = bytes[offset + 3]
        offset += 4
        now += UInt64(dt) * 1_000_000 / 2
        let key = ContactKey(stream: Int(op >> 5 & 1), slot: Int(op >> 2 & 3))
        let x = Double(bx & 0x7F), y = Double(by & 0x7F)

        // Timers first, on their own, so their taps are told apart from the event's.
        let waitsBefore = engine.doubleWaits
        taps.removeAll()
        engine.advanceTouch(to: now, into: &taps)
        for tap in taps {
            let tapClass = tap.decision.tapClass
            switch tapClass {
            case .long, .hold:
                guard let instance = downInstance[tap.key] else {
                    violated("\(tapClass) fired for slot \(tap.key) that is not down")
                }
                record(instance, tapClass)
            case .tap:
                // The wait of that very grid (one slot may have taps waiting on several grids and
                // layouts at once: found by this target, see Fuzz/corpus/touch/regression-*).
                guard let grid = tap.decision.target?.grid else { violated("a timer tap on no grid") }
                let waitKey = DoubleKey(layout: tap.decision.layout, grid: grid)
                guard waitsBefore[waitKey]?.key == tap.key, engine.doubleWaits[waitKey] == nil,
                    let owner = waitOwner.removeValue(forKey: waitKey)
                else { violated("a timer tap for \(tap.key) that no double-tap wait explains") }
                record(owner, .tap)
            case .double:
                violated("a double fired by a timer")
            case .change, .release:
                violated("\(tapClass) fired by a timer on a layout without sliders")
            }
        }
        for waitKey in waitOwner.keys where engine.doubleWaits[waitKey] == nil { waitOwner[waitKey] = nil }
        // Contacts the engine ended itself (a layout switch) are over.
        for (k, _) in downInstance where !engine.isDown(k) { downInstance[k] = nil }

        let phase = TouchPhase(rawValue: Int(op & 3))!
        let layout: Int? = op & 0x80 != 0 ? Int(op >> 6 & 1) : nil
        if traceTouch {
            trace("t=\((now - 1_000_000_000) / 1_000_000) ms timers fired \(taps.map { "\($0.decision.tapClass) \($0.key)" }); next: \(phase) \(key) (\(x), \(y)) layout \(layout.map(String.init) ?? "current") waits \(engine.doubleWaits.map { "\($0.key) by \($0.value.key)" })")
        }
        let waitKeysBefore = phase == .up ? Set(engine.doubleWaits.keys) : []
        let instanceBefore = downInstance[key]
        taps.removeAll()
        let completed: Int
        do {
            completed = try engine.touch(
                phase, key: key, x: phase == .up && bx & 0x80 != 0 ? nil : x, y: y, layout: layout, now: now, into: &taps)
        } catch {
            if case .slotAlreadyDown = error, !engine.isDown(key) { violated("slotAlreadyDown for a slot that is up") }
            continue
        }
        if traceTouch { trace("   event fired \(taps.map { "\($0.decision.tapClass) \($0.key) \($0.decision.outcome)" })") }
        if completed != taps.count { violated("the event's own call fired \(taps.count) taps, completed \(completed)") }
        switch phase {
        case .down:
            nextInstance += 1
            downInstance[key] = nextInstance
            if !taps.isEmpty { violated("down completed a tap") }
        case .move, .cancel:
            if !taps.isEmpty { violated("\(phase) completed a tap") }
            if phase == .cancel { downInstance[key] = nil }
        case .up:
            downInstance[key] = nil
            if taps.count > 1 { violated("an up completed \(taps.count) taps") }
            guard let instance = instanceBefore else {
                if !taps.isEmpty { violated("an up of a slot that is not down completed a tap") }
                break
            }
            for tap in taps {
                if tap.decision.tapClass == .long || tap.decision.tapClass == .hold { violated("an up completed a \(tap.decision.tapClass)") }
                record(instance, tap.decision.tapClass)
            }
            for waitKey in Set(engine.doubleWaits.keys).subtracting(waitKeysBefore) {
                if !taps.isEmpty { violated("an up both completed a tap and started a double-tap wait") }
                waitOwner[waitKey] = instance
            }
        }
        for waitKey in waitOwner.keys where engine.doubleWaits[waitKey] == nil { waitOwner[waitKey] = nil }
        for (k, _) in downInstance where !engine.isDown(k) { downInstance[k] = nil }
    }
}

// MARK: - mqtt: command payloads and pushed definitions as they arrive from the broker

/// The input's first byte picks the op (a command op, or an unknown one), whether the message
/// came retained, what `accept` holds, and whether it is a pushed layout for a scope; the rest
/// is the payload. Invariants:
/// - a command is run only when it is accepted, not retained and at most 1 MiB; the line it
///   becomes is strict JSON, an object whose first member is `"op"` naming the topic's op, with
///   the payload's members after it, and the socket's scanner reads it as that op;
/// - a refusal says why, and its `result` payload is strict JSON naming the topic;
/// - pushed layouts: after each message the effect names the most specific scope's definition
///   (node, then groups in order, then broadcast), an emptied name unloads, and a definition
///   that is loaded is checked as the daemon checks it (a kept one hit-tests).
func fuzzMQTT(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let payload = Array(bytes.dropFirst())
    let ops = MQTTConfig.commandOps + ["down", "", "bogus"]
    let op = ops[Int(first & 0x0F) % ops.count]
    let retained = first & 0x10 != 0
    let accept = first & 0x20 != 0 ? MQTTConfig.commandOps : ["tap", "status"]
    if first & 0x40 != 0 { return fuzzPushedLayouts(first, payload) }
    switch FleetCommand.decide(op: op, payload: payload, retained: retained, accept: accept) {
    case .refuse(let code, let message, let id):
        if message.isEmpty { violated("a refusal (\(code)) without a reason") }
        let result = FleetResult.refusal(code: code, message: message, id: id, topic: "tapgrid/n/command/" + op)
        guard case .object(let members)? = try? JSONParser.parse(result, lenient: false), members.last?.key == "topic" else {
            violated("a refusal's result is not a JSON object ending in topic")
        }
    case .request(let line, _):
        if retained { violated("a retained command was run") }
        if !accept.contains(op) { violated("op \(op) was run without being accepted") }
        if payload.count > FleetCommand.maxPayloadBytes { violated("a payload over 1 MiB was run") }
        guard case .object(let members)? = try? JSONParser.parse(line, lenient: false) else { violated("a command line is not a JSON object") }
        guard members.first?.key == "op", members.first?.value == .string(op) else { violated("a command line does not start with its op") }
        if members.dropFirst().contains(where: { $0.key == "op" }) { violated("a command line names its op twice") }
        if !payload.isEmpty, case .object(let given)? = try? JSONParser.parse(payload, lenient: false),
            given.map(\.key) != members.dropFirst().map(\.key)
        {
            violated("a command line's members are not the payload's")
        }
        var request = Request()
        let failure = line.withUnsafeBufferPointer { RequestScanner.scan($0, into: &request) }
        if failure == nil, String(describing: request.op) != op { violated("the scanner read op \(request.op) from a \(op) line") }
    }
}

/// Three scopes' messages for two names, from the input: each step `(scope, name, payload
/// length)` then the payload, some of them empty (taken back).
func fuzzPushedLayouts(_ first: UInt8, _ bytes: [UInt8]) {
    var sources = FleetLayoutSources()
    var expected: [String: [FleetScope: [UInt8]]] = [:]
    var offset = 0
    while offset + 2 <= bytes.count {
        let header = bytes[offset], length = Int(bytes[offset + 1])
        offset += 2
        let payload = Array(bytes[offset..<min(bytes.count, offset + length)])
        offset += payload.count
        let scope: FleetScope = [.node, .group(index: 0), .group(index: 1), .broadcast][Int(header & 3)]
        let name = header & 4 != 0 ? "promo" : "home"
        let before = sources.winner(of: name)?.definition
        let effect = sources.receive(name: name, scope: scope, payload: payload)
        expected[name, default: [:]][scope] = payload.isEmpty ? nil : payload
        let winner = expected[name]?.min { $0.key < $1.key }
        switch effect {
        case .load(let loaded, let definition, let from):
            guard loaded == name, let winner, winner.key == from, winner.value == definition else {
                violated("loaded \(from)'s definition of \(loaded); the winner is \(String(describing: winner?.key))")
            }
            if definition == before { violated("the same definition was loaded again") }
            checkPushed(name, FleetLayoutRequest.request(for: effect))
        case .unload(let unloaded):
            if unloaded != name || winner != nil { violated("unloaded \(unloaded) while a scope still defines it") }
        case .none:
            if winner?.value != before { violated("the winner of \(name) changed and nothing was loaded") }
        }
    }
}

/// A pushed definition taken from the broker goes the daemon's way: the request line, the
/// control request, then the same check as a config layout; a kept one hit-tests.
func checkPushed(_ name: String, _ decision: FleetCommandDecision?) {
    guard case .request(let line, _)? = decision else { return }
    guard let object = try? JSONParser.parse(line, lenient: false) else { violated("a load line is not JSON") }
    guard case .success(let request) = ControlRequest.load(object) else { return }
    if request.layout != name { violated("a load line names \(request.layout), not \(name)") }
    fuzzControl(.load, object)
}

// MARK: - panel

/// The browser panel's pure parts on hostile input: a `POST` body (contact or tap) becomes a
/// socket request line of its op or a 400 that says why; a request head passes the guards only
/// with a loopback or listed Host and, when a token is set, the token; the title never puts markup
/// into the page.
func fuzzPanel(_ bytes: [UInt8]) {
    guard let first = bytes.first else { return }
    let rest = Array(bytes.dropFirst())
    switch first % 3 {
    case 0:
        let isContact = first & 0x04 != 0
        let result = isContact ? PanelBody.contact(rest).map(\.line) : PanelBody.tap(rest)
        switch result {
        case .failure(let refusal):
            if refusal.status != 400 || refusal.message.isEmpty { violated("a body refusal is not a 400 with a reason: \(refusal)") }
            guard case .object? = try? JSONParser.parse(refusal.body, lenient: false) else { violated("a refusal's body is not JSON") }
        case .success(let line):
            guard case .object(let members)? = try? JSONParser.parse(line, lenient: false) else { violated("a panel line is not a JSON object") }
            guard members.first?.key == "op" else { violated("a panel line does not start with its op") }
            if members.dropFirst().contains(where: { !["slot", "x", "y", "layout", "id"].contains($0.key) }) {
                violated("a panel line carries a key the panel does not pass on")
            }
            var request = Request()
            let failure = line.withUnsafeBufferPointer { RequestScanner.scan($0, into: &request) }
            if failure == nil, case .unknown = request.op { violated("the scanner read an unknown op from a panel line") }
        }
    case 1:
        let parts = rest.split(separator: 0, maxSplits: 7, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        func part(_ index: Int) -> String? { index < parts.count && !parts[index].isEmpty ? parts[index] : nil }
        let methods = ["GET", "POST", "HEAD", "PUT"]
        let paths = ["/", "/layout", "/events", "/contact", "/tap", part(1) ?? "/x"]
        let head = PanelRequestHead(
            method: methods[Int(first >> 2) % methods.count], path: paths[Int(first >> 4) % paths.count], host: part(0),
            origin: part(2), contentType: part(3), cookieToken: part(4), queryToken: part(5), bodyTooLarge: first & 0x80 != 0)
        var config = PanelConfig()
        config.hosts = ["kiosk.local"]
        let token = first & 0x08 != 0 ? "0123456789abcdef-token" : nil
        switch PanelGuard(config, token: token).decide(head) {
        case .failure(let refusal):
            if ![400, 401, 403, 404, 405, 413, 415, 421].contains(refusal.status) || refusal.message.isEmpty {
                violated("an unexpected refusal: \(refusal)")
            }
        case .success(let route):
            guard let host = head.host, let name = PanelGuard.hostName(host) else { violated("a request without a valid Host passed") }
            if !PanelConfig.isLoopback(name) && name != "kiosk.local" && name != "127.0.0.1" { violated("Host \(host) passed") }
            if let token, head.cookieToken != token && !(route == .page(setCookie: true) && head.queryToken == token) {
                violated("a request without the token passed")
            }
            if head.bodyTooLarge && (route == .contact || route == .tap) { violated("a body over the limit passed") }
        }
    default:
        let title = String(decoding: rest, as: UTF8.self)
        let page = PanelDocuments.page(Array("<title>{{title}}</title>".utf8), title: title)
        let inner = page.dropFirst(7).dropLast(8)
        if inner.contains(0x3C) || inner.contains(0x3E) || inner.contains(0x22) { violated("the title put markup into the page") }
    }
}
