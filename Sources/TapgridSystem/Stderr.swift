/// The process's standard error, written a whole line at a time.
public enum Stderr {
    /// Writes finished bytes (ending in `\n`) to fd 2 with as few `write(2)` calls as the kernel
    /// allows, so lines from one thread never interleave. Errors are dropped: there is nowhere
    /// left to report them. The corresponding C function is `write`.
    public static func write(_ raw: UnsafeRawBufferPointer) {
        try? FD.writeAll(2, raw)
    }

    /// Writes finished text (ending in `\n`) to fd 2.
    public static func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }
}
