/// What the daemon does after a pushed-layout message (`FleetLayoutSources.receive`).
public enum FleetLayoutEffect: Sendable, Equatable {
    /// Load `definition` (a `load` definition's JSON text, as published) as `name`: the winning
    /// definition is new. `scope` is the one it came from, for the result and the log.
    case load(name: String, definition: [UInt8], scope: FleetScope)
    /// No scope defines `name` any more: unload the pushed layout (the config's layout of that
    /// name, if any, comes back).
    case unload(name: String)
    /// What is in effect did not change: a scope under the winner changed, the winner's
    /// definition is byte for byte the one in effect (the same definition came again, as a
    /// broker resends retained messages on every reconnect, or another scope took over with
    /// the same text), or a scope that had none was emptied.
    case none
}

/// Layouts pushed over MQTT, kept per name and scope (docs/fleet.md "What a panel publishes and
/// takes (P = prefix, N = node)", pushed layouts): `P/N/layouts/<name>`, `P/<group>/layouts/<name>`
/// and `P/broadcast/layouts/<name>` may all define one name, and the most specific wins (node, then
/// groups in config order, then broadcast: `FleetScope`'s order). Every scope's definition is kept,
/// not just the winner's, so when the node's own is taken back the group's or broadcast's takes
/// over at once, without waiting for the broker to send it again. Pure: the daemon carries out the
/// effects through its `load` and `unload` paths (which check the definition; a refused `.load`
/// leaves the layout before it in place, and an `.unload` of a name that never loaded changes
/// nothing). Only fed when `load` is in `mqtt.accept`: without it the daemon refuses the message
/// first.
public struct FleetLayoutSources: Sendable {
    /// By layout name: each scope's definition.
    private var definitions: [String: [FleetScope: [UInt8]]] = [:]

    public init() {}

    /// The names some scope defines, sorted.
    public var names: [String] { definitions.keys.sorted() }

    /// The definition in effect for `name` and its scope, nil when no scope defines it.
    public func winner(of name: String) -> (scope: FleetScope, definition: [UInt8])? {
        guard let scopes = definitions[name], let scope = scopes.keys.min() else { return nil }
        return (scope, scopes[scope]!)
    }

    /// Takes one message: `payload` defines `name` for `scope`, or, when empty, takes that
    /// scope's definition back.
    public mutating func receive(name: String, scope: FleetScope, payload: [UInt8]) -> FleetLayoutEffect {
        let before = winner(of: name)
        if payload.isEmpty {
            definitions[name]?[scope] = nil
            if definitions[name]?.isEmpty == true { definitions[name] = nil }
        } else {
            definitions[name, default: [:]][scope] = payload
        }
        guard let after = winner(of: name) else { return before == nil ? .none : .unload(name: name) }
        if let before, before.definition == after.definition { return .none }
        return .load(name: name, definition: after.definition, scope: after.scope)
    }
}
