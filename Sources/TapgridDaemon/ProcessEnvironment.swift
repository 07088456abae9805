@preconcurrency import Glibc

/// The process environment as a dictionary (children get a filtered copy; paths are derived from it).
enum ProcessEnvironment {
    static func current() -> [String: String] {
        var result: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                result[String(text[..<eq])] = String(text[text.index(after: eq)...])
            }
            pointer += 1
        }
        return result
    }

    /// `true` when started by systemd with its log stream or notify socket.
    static func underJournal(_ env: [String: String]) -> Bool { env["JOURNAL_STREAM"] != nil }
}
