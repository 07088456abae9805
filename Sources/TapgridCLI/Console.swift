import TapgridSystem

/// Where the CLI writes: the real stdout/stderr, or buffers in tests.
public struct Console {
    public var out: (String) -> Void
    public var err: (String) -> Void
    public var environment: [String: String]
    /// Whether a person watches stderr (a terminal): only then does a long command draw a
    /// progress line there, which in a pipe or a CI log would be noise.
    public var stderrIsTerminal: Bool

    public init(
        out: @escaping (String) -> Void, err: @escaping (String) -> Void, environment: [String: String],
        stderrIsTerminal: Bool = false
    ) {
        self.out = out
        self.err = err
        self.environment = environment
        self.stderrIsTerminal = stderrIsTerminal
    }

    /// The process's own standard streams and environment.
    public static func standard() -> Console {
        Console(
            out: { text in try? FD.writeAll(1, Array(text.utf8)) },
            err: { text in try? FD.writeAll(2, Array(text.utf8)) },
            environment: CurrentProcess.environment(),
            stderrIsTerminal: Terminal.isTerminal(2))
    }

    func line(_ text: String) { out(text + "\n") }
    func error(_ text: String) { err("Error: \(text)\n") }
}
