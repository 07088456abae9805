import Foundation
import Synchronization

/// What a program that ran to its end left: its exit code (the signal's number if a signal ended
/// it), and all it wrote to stdout and stderr.
public typealias ProgramResult = (code: Int32, out: String, err: String)

/// Runs a program to its end and returns its exit code, stdout and stderr. Both pipes are drained
/// while it runs (stderr on another thread), so a chatty program cannot block on a full pipe.
/// - Parameters:
///   - environment: the whole environment; nil inherits the test's.
///   - currentDirectory: where it runs; nil: the test's own.
public func runProgram(
    _ path: String, _ arguments: [String], environment: [String: String]? = nil, currentDirectory: String? = nil
) throws -> ProgramResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    if let currentDirectory { process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory) }
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    try process.run()
    let errData = Mutex(Data())
    let errDone = DispatchSemaphore(value: 0)
    Thread {
        errData.withLock { $0 = err.fileHandleForReading.readDataToEndOfFile() }
        errDone.signal()
    }.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    errDone.wait()
    let errText = errData.withLock { String(decoding: $0, as: UTF8.self) }
    return (process.terminationStatus, String(decoding: outData, as: UTF8.self), errText)
}
