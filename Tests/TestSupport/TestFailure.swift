/// A helper's failure with what went wrong in words: thrown where a test's setup (a folder, a
/// socket, a daemon) cannot be had, so the test stops with the reason instead of a crash.
public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
