import Testing

@testable import TapgridCore

/// The fleet's topic names, what the node subscribes to, and how each incoming topic is read.
@Suite struct FleetTopicsTests {
    let topics = FleetTopics(prefix: "tapgrid", node: "kitchen", groups: ["plates", "ground"], homeAssistantPrefix: "homeassistant")

    @Test func topicsTheNodePublishesTo() {
        #expect(topics.availability == "tapgrid/kitchen/availability")
        #expect(topics.events == "tapgrid/kitchen/events")
        #expect(topics.layout == "tapgrid/kitchen/layout")
        #expect(topics.status == "tapgrid/kitchen/status")
        #expect(topics.result == "tapgrid/kitchen/result")
        #expect(topics.action(layout: "home", cell: "0-1") == "tapgrid/kitchen/action/home/0-1")
        #expect(topics.state(layout: "home", cell: "lamp") == "tapgrid/kitchen/state/home/lamp")
        #expect(topics.command("use") == "tapgrid/kitchen/command/use")
        #expect(topics.homeAssistantStatus == "homeassistant/status")
    }

    @Test func subscriptionsInPrecedenceOrder() {
        #expect(topics.subscriptions == [
            "tapgrid/kitchen/command/+", "tapgrid/plates/command/+", "tapgrid/ground/command/+", "tapgrid/broadcast/command/+",
            "tapgrid/kitchen/layouts/+", "tapgrid/plates/layouts/+", "tapgrid/ground/layouts/+", "tapgrid/broadcast/layouts/+",
            "homeassistant/status",
        ])
        let plain = FleetTopics(prefix: "p", node: "n", groups: [])
        #expect(plain.subscriptions == ["p/n/command/+", "p/broadcast/command/+", "p/n/layouts/+", "p/broadcast/layouts/+"])
        #expect(plain.homeAssistantStatus == nil)
    }

    @Test func incomingTopicsAreClassified() {
        #expect(topics.classify("tapgrid/kitchen/command/tap") == .command(op: "tap", scope: .node))
        #expect(topics.classify("tapgrid/plates/command/use") == .command(op: "use", scope: .group(index: 0)))
        #expect(topics.classify("tapgrid/ground/command/set") == .command(op: "set", scope: .group(index: 1)))
        #expect(topics.classify("tapgrid/broadcast/command/reload") == .command(op: "reload", scope: .broadcast))
        // An unknown op is still a command: `FleetCommand.decide` answers it with unknown_op.
        #expect(topics.classify("tapgrid/kitchen/command/explode") == .command(op: "explode", scope: .node))
        #expect(topics.classify("tapgrid/kitchen/layouts/promo") == .layout(name: "promo", scope: .node))
        #expect(topics.classify("tapgrid/ground/layouts/promo") == .layout(name: "promo", scope: .group(index: 1)))
        #expect(topics.classify("tapgrid/broadcast/layouts/promo") == .layout(name: "promo", scope: .broadcast))
        #expect(topics.classify("homeassistant/status") == .homeAssistantStatus)
    }

    @Test(arguments: [
        "tapgrid/hall/command/tap",            // another node
        "other/kitchen/command/tap",           // another prefix
        "tapgrid/kitchen/commands/tap",        // neither command nor layouts
        "tapgrid/kitchen/command/tap/extra",   // five levels
        "tapgrid/kitchen/layouts",             // three levels
        "tapgrid/kitchen/action/home/lamp",    // one of our own publications
        "tapgrid/kitchen/status",
        "tapgrid/kitchen/result",
        "homeassistant/status/x",
        "Tapgrid/kitchen/command/tap",         // topics are case-sensitive
        "/tapgrid/kitchen/command/tap",
    ])
    func topicsTheNodeDoesNotActOn(topic: String) {
        #expect(topics.classify(topic) == nil)
    }

    @Test func withoutHomeAssistantItsStatusIsNotRead() {
        let plain = FleetTopics(prefix: "tapgrid", node: "kitchen", groups: [])
        #expect(plain.classify("homeassistant/status") == nil)
    }

    @Test func scopesAreOrderedByPrecedence() {
        let shuffled: [FleetScope] = [.broadcast, .group(index: 2), .node, .group(index: 0), .group(index: 1)]
        #expect(shuffled.sorted() == [.node, .group(index: 0), .group(index: 1), .group(index: 2), .broadcast])
        #expect(FleetScope.node < .broadcast)
        #expect(!(FleetScope.broadcast < .group(index: 1_000)))
        #expect(!(FleetScope.group(index: 1) < .group(index: 1)))
    }

    @Test func topicsFromAConfig() throws {
        let text = #"{"layouts": {"a": {"width": 10, "height": 10, "grid": {"tag": 1}}}, "mqtt": {"broker": "h:1", "groups": ["g"], "prefix": "fleet", "homeAssistant": {}}}"#
        var parser = ConfigParser(file: "t.json", directory: "/") { _ in .failure(Diagnostic(.error, "no files")) }
        let config = try #require(parser.parse(try JSONParser.parse(text, lenient: true)).config)
        let fromConfig = try #require(FleetTopics(config: config, node: "host1"))
        #expect(fromConfig == FleetTopics(prefix: "fleet", node: "host1", groups: ["g"], homeAssistantPrefix: "homeassistant"))
    }
}
