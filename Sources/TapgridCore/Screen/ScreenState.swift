/// The screen's state (docs/configuration.md, the `screen` block): lit, dimmed, or dark.
public enum ScreenState: Int, Sendable, NamedCase {
    case on, dim, off

    /// The state's JSON name (`screen` records, `status`, `P/N/screen`, the `screen` op).
    public var name: StaticString {
        switch self {
        case .on: return "on"
        case .dim: return "dim"
        case .off: return "off"
        }
    }

    /// Whether a contact that goes down now wakes the screen (`dim` or `off`).
    public var isDark: Bool { self != .on }
}

/// Why the screen changed: a `screen` record's `reason`.
public enum ScreenReason: Int, Sendable, NamedCase {
    /// No person's contact for `dimSeconds` or `offSeconds`.
    case idle
    /// A person's contact went down on a dark screen.
    case touch
    /// A `wake` or `screen` op from a socket client.
    case op
    /// A `wake` or `screen` command from MQTT.
    case mqtt
    /// The daemon started (the screen is `on`).
    case start

    public var name: StaticString {
        switch self {
        case .idle: return "idle"
        case .touch: return "touch"
        case .op: return "op"
        case .mqtt: return "mqtt"
        case .start: return "start"
        }
    }
}

/// Where a `wake` or `screen` command came from; its change's reason says so.
public enum ScreenCommandOrigin: Sendable, Equatable {
    /// The socket's control ops (`{"op": "wake"}`, `{"op": "screen", "state": "off"}`), the CLI's
    /// `tapgrid wake` and `tapgrid screen`.
    case op
    /// The fleet's `wake` and `screen` commands (Home Assistant's switch among them).
    case mqtt

    public var reason: ScreenReason {
        switch self {
        case .op: return .op
        case .mqtt: return .mqtt
        }
    }
}
