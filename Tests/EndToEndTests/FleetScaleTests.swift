import Foundation
import Testing

import TapgridTestSupport

/// A fleet of 20 daemons on one broker, each its own node (`node0`..`node19`), all in group
/// `plates`: what is sent to the group or to everyone reaches every one, and what happens on one
/// panel is published on its own topics only.
@Suite(.serialized) struct FleetScaleTests {
    static let count = 20

    @Test func twentyNodesOnOneBroker() throws {
        let broker = try MosquittoBroker()
        let watcher = try MQTTWatcher(port: broker.port, topics: ["tapgrid/#"])
        let nodes = (0..<Self.count).map { "node\($0)" }
        // Started together, then each waited for: their connects overlap as a fleet's do.
        var daemons: [DaemonProcess] = []
        for node in nodes { daemons.append(try DaemonProcess(config: fleetConfig(broker: broker.address, node: node))) }
        let online = watcher.wait(timeout: 30) { seen in
            nodes.allSatisfy { node in seen.contains { $0.topic == "tapgrid/\(node)/availability" && $0.payload == "online" } }
        }
        for node in nodes {
            #expect(online.contains { $0.topic == "tapgrid/\(node)/availability" && $0.payload == "online" }, "\(node) never said online")
        }

        // A group command: every node's layout topic says the new layout.
        try mqttPublish(port: broker.port, topic: "tapgrid/plates/command/use", payload: #"{"layout": "other", "id": 1}"#)
        let switched = watcher.wait(timeout: 20) { seen in
            nodes.allSatisfy { node in seen.contains { $0.topic == "tapgrid/\(node)/layout" && $0.payload == "other" } }
        }
        for node in nodes {
            #expect(switched.contains { $0.topic == "tapgrid/\(node)/layout" && $0.payload == "other" }, "\(node) did not switch")
            #expect(switched.contains { $0.topic == "tapgrid/\(node)/result" && $0.object?.int("id") == 1 && $0.object?["ok"] as? Bool == true })
        }

        // A layout pushed to everyone, retained: every node loads it and says so on its result.
        let promo = #"{"width": 50, "height": 50, "grid": {"cols": [{"name": "sale", "tag": 1}]}}"#
        try mqttPublish(port: broker.port, topic: "tapgrid/broadcast/layouts/promo", payload: promo, retain: true)
        func loaded(_ seen: [MQTTWatcher.Message], _ node: String) -> Bool {
            seen.contains {
                $0.topic == "tapgrid/\(node)/result" && $0.object?.string("topic") == "tapgrid/broadcast/layouts/promo"
                    && $0.object?["ok"] as? Bool == true
            }
        }
        let pushed = watcher.wait(timeout: 20) { seen in nodes.allSatisfy { loaded(seen, $0) } }
        for node in nodes { #expect(loaded(pushed, node), "\(node) did not load promo") }
        // Loaded indeed, as the socket sees it.
        let hit = try daemons[7].connect().request(#"{"op": "hit", "layout": "promo", "x": 10, "y": 10}"#)
        #expect(hit.object("hit")?["name"] as? String == "sale")

        // A tap on node 3's socket: its event and action on node 3's topics, on no other node's.
        let tap = try daemons[3].connect().request(#"{"x": 10, "y": 10}"#)
        #expect(tap.string("outcome") == "dispatched")
        let tapSeq = try #require(tap.int("seq"))
        let seen = watcher.wait(timeout: 10) { seen in
            seen.contains { $0.topic == "tapgrid/node3/events" && $0.object?.int("seq") == tapSeq && $0.object?["x"] != nil }
                && seen.contains { $0.topic == "tapgrid/node3/action/other/back" }
        }
        let event = try #require(seen.first { $0.topic == "tapgrid/node3/events" && $0.object?.int("seq") == tapSeq && $0.object?["x"] != nil })
        let record = try #require(try daemons[3].eventRecords().last { $0.int("seq") == tapSeq && $0["x"] != nil })
        #expect(event.object?.string("run") == record.string("run"))
        #expect(seen.first { $0.topic == "tapgrid/node3/action/other/back" }?.payload == "tap")
        // Given the others time to (wrongly) publish it: every node's status goes out at most
        // 2 s after a change, so wait for node 3's status that counts the tap, and 300 ms more.
        _ = watcher.first("tapgrid/node3/status", timeout: 5) { $0.object?.int("taps") == 1 }
        usleep(300_000)
        let after = watcher.messages
        for node in nodes where node != "node3" {
            let taps = after.filter { $0.topic == "tapgrid/\(node)/events" || $0.topic.hasPrefix("tapgrid/\(node)/action/") }
            #expect(taps.isEmpty, "\(node): \(taps.map(\.description))")
        }
        #expect(after.filter { $0.topic.hasSuffix("/action/other/back") }.map(\.topic) == ["tapgrid/node3/action/other/back"])
        #expect(after.filter { $0.topic.hasSuffix("/events") }.map(\.topic) == ["tapgrid/node3/events"])

        // The retained layout taken back (an empty retained message clears it on the broker).
        try mqttPublish(port: broker.port, topic: "tapgrid/broadcast/layouts/promo", payload: "", retain: true)
        let unloaded = watcher.wait(timeout: 20) { seen in
            nodes.allSatisfy { node in
                seen.filter { $0.topic == "tapgrid/\(node)/result" && $0.object?.string("topic") == "tapgrid/broadcast/layouts/promo" }.count >= 2
            }
        }
        for node in nodes {
            #expect(unloaded.filter { $0.topic == "tapgrid/\(node)/result" && $0.object?.string("topic") == "tapgrid/broadcast/layouts/promo" }.count >= 2)
        }
        // A subscriber that comes now gets no retained layout (retained messages are sent on
        // subscribing, before the watcher's probe is seen).
        let late = try MQTTWatcher(port: broker.port, topics: ["tapgrid/broadcast/#"])
        let retained = late.messages.filter { $0.topic.hasPrefix("tapgrid/broadcast/") }
        #expect(retained.isEmpty, "\(retained.map(\.description))")

        for daemon in daemons { #expect(try daemon.stop() == 0) }
        for daemon in daemons { daemon.checkNoDroppedDescriptors() }
    }
}
