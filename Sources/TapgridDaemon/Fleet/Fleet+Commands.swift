import TapgridCore
import TapgridMQTT
import TapgridSystem

/// The fleet's commands and pushed layouts (docs/fleet.md "What a panel publishes and takes"): each
/// becomes the socket's request line, answered through the `RequestEndpoint` and published on
/// `result` with the topic it answers.
extension Fleet {
    // MARK: - Commands

    func command(op: String, topic: String, payload: [UInt8], retained: Bool) {
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
    static func makeCommandConnection(uid: UInt32) -> Connection {
        Connection.socketless(number: 0, uid: uid, origin: .mqtt)
    }

    /// A `reload` asked for over MQTT finished: its answer, on `result` with its own topic and id.
    func reloadFinished(_ connection: Connection) {
        guard let topic = reloads.removeValue(forKey: ObjectIdentifier(connection)) else { return }
        publishResults(endpoint.replies(of: connection), topic: topic)
    }

    /// Publishes replies on `result`, each with the topic of the message it answers.
    func publishResults(_ replies: [EndpointReply], topic: String) {
        for reply in replies { publish(topics.result, FleetResult.reply(reply.line, topic: topic) ?? reply.line) }
    }

    /// A pushed layout's message: checked, sorted out across scopes, and carried out as a
    /// `load` or `unload` request on the command connection (so it is checked, counted and
    /// answered as one pushed through the socket), answered on `result` with its topic.
    func pushedLayout(name: String, scope: FleetScope, topic: String, payload: [UInt8]) {
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
}
