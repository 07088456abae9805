import TapgridCore
import TapgridSystem

/// Turns a request into the argv of its child, applying the handler's policy. Never builds a
/// shell string from tap data: actionData is always one argv element (or, for `directory`
/// scripts, only selects which file runs).
enum ChildCommand {
    /// The argv to run, or why not.
    enum Decision: Equatable {
        case run([String])
        case denied(String)
        case failed(String)
    }

    static func decide(_ request: ChildRequest) -> Decision {
        if let argv = request.argv {
            guard let program = argv.first, !program.isEmpty else { return .failed("\(request.handler.name) has an empty command") }
            return .run(argv)
        }
        switch request.handler.kind {
        case .url(let command, let schemes):
            return urlCommand(command: command, schemes: schemes, actionData: request.actionData)
        case .script(let interpreter, let directory):
            if let interpreter {
                return interpreterCommand(interpreter, actionData: request.actionData)
            }
            if let directory {
                return directoryCommand(directory, actionData: request.actionData)
            }
            return .failed("script handler has neither interpreter nor directory")
        case .layout, .log, .mqtt:
            return .failed("handler type \(request.handler.typeName) does not start children")
        }
    }

    // MARK: url

    static func urlCommand(command: [String], schemes: [String], actionData: JSONValue?) -> Decision {
        guard let actionData else { return .denied("actionData is missing (expected a URL string)") }
        guard case .string(let url) = actionData else {
            return .denied("actionData is \(actionData.typeDescription), expected a URL string")
        }
        if url.utf8.contains(0) { return .denied("URL contains a NUL byte") }
        guard let scheme = scheme(of: url) else {
            return .denied("actionData \(jsonEscaped(url)) is not a URL with a valid scheme")
        }
        let lowered = scheme.lowercased()
        if let why = neverOpened[lowered] { return .denied("URL scheme \"\(lowered)\" is never opened: \(why)") }
        guard schemes.contains(where: { $0.lowercased() == lowered }) else {
            return .denied("URL scheme \"\(lowered)\" is not allowed (allowed: \(schemes.joined(separator: ", ")))")
        }
        if let problem = urlProblem(url, scheme: lowered) { return .denied("URL \(jsonEscaped(url)) \(problem)") }
        guard !command.isEmpty, !command[0].isEmpty else { return .failed("url handler has an empty command") }
        return .run(command + [url])
    }

    /// Schemes denied even when a config lists them in `schemes`: what they open is not a place
    /// on a server but code or content chosen by whoever wrote the actionData, run with the
    /// opener's rights on this machine.
    static let neverOpened: [String: String] = [
        "javascript": "it runs script code in the browser",
        "vbscript": "it runs script code in the browser",
        "data": "it carries its own content instead of naming a location",
        "file": "it opens files on this machine",
    ]

    /// Schemes whose URLs name a server (WHATWG's "special" schemes but `file`): they need
    /// `//` and a host, which the opener would otherwise guess at (`https://` opened a browser
    /// on nothing).
    static let needsHost: Set<String> = ["http", "https", "ws", "wss", "ftp"]

    /// Why `url` cannot be opened, or nil: control characters (a terminal or a log would show
    /// something else than what runs), and for `needsHost` schemes a missing host or a port that
    /// is not a number up to 65535.
    static func urlProblem(_ url: String, scheme: String) -> String? {
        if url.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "contains a control character" }
        guard needsHost.contains(scheme) else { return nil }
        let rest = url.utf8.dropFirst(scheme.utf8.count + 1)
        guard rest.starts(with: "//".utf8) else { return "has no host (expected \(scheme)://HOST/...)" }
        let afterSlashes = rest.dropFirst(2)
        let authority = afterSlashes.prefix { $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#") && $0 != UInt8(ascii: "\\") }
        var hostAndPort = authority[...]
        if let at = authority.lastIndex(of: UInt8(ascii: "@")) { hostAndPort = authority[authority.index(after: at)...] }
        var host = hostAndPort, port: Substring.UTF8View.SubSequence? = nil
        if hostAndPort.first == UInt8(ascii: "[") {
            guard let close = hostAndPort.firstIndex(of: UInt8(ascii: "]")) else { return "has an unterminated IPv6 host" }
            host = hostAndPort[...close]
            let tail = hostAndPort[hostAndPort.index(after: close)...]
            if let first = tail.first {
                guard first == UInt8(ascii: ":") else { return "has characters after its IPv6 host" }
                port = tail.dropFirst()
            }
            if host.count <= 2 { return "has no host (expected \(scheme)://HOST/...)" }
        } else if let colon = hostAndPort.firstIndex(of: UInt8(ascii: ":")) {
            host = hostAndPort[..<colon]
            port = hostAndPort[hostAndPort.index(after: colon)...]
        }
        if host.isEmpty { return "has no host (expected \(scheme)://HOST/...)" }
        if let port, !port.isEmpty {
            guard port.count <= 5, port.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(String(decoding: port, as: UTF8.self)), number <= 65535 else {
                return "has an invalid port (expected a number from 0 to 65535)"
            }
        }
        return nil
    }

    /// The scheme of `url` (RFC 3986: a letter, then letters, digits, `+`, `-`, `.`, before the
    /// first `:`), or nil when there is none. A URL can therefore never start with `-`.
    static func scheme(of url: String) -> Substring? {
        guard let colon = url.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let scheme = url[..<colon]
        guard let first = scheme.utf8.first, isASCIILetter(first) else { return nil }
        for byte in scheme.utf8.dropFirst() {
            let ok = isASCIILetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            if !ok { return nil }
        }
        return scheme
    }

    private static func isASCIILetter(_ b: UInt8) -> Bool { (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) }

    // MARK: script with interpreter

    static func interpreterCommand(_ interpreter: [String], actionData: JSONValue?) -> Decision {
        guard let text = actionDataText(actionData) else {
            return .denied("actionData is missing (the script to run)")
        }
        if text.utf8.contains(0) { return .denied("actionData contains a NUL byte") }
        guard !interpreter.isEmpty, !interpreter[0].isEmpty else { return .failed("script handler has an empty interpreter") }
        return .run(interpreter + [text])
    }

    /// actionData as text: a string as is, other values as compact JSON, nil when absent or null.
    static func actionDataText(_ value: JSONValue?) -> String? {
        switch value {
        case .none, .null?: return nil
        case .string(let s)?: return s
        case let other?: return other.compactJSON
        }
    }

    // MARK: script in a directory

    static func directoryCommand(_ directory: String, actionData: JSONValue?) -> Decision {
        guard let actionData else { return .denied("actionData is missing (the name of a script)") }
        guard case .string(let name) = actionData else {
            return .denied("actionData is \(actionData.typeDescription), expected a script name")
        }
        if let problem = nameProblem(name) { return .denied("script name \(jsonEscaped(name)) \(problem)") }
        switch ScriptResolution.resolve(name, within: directory) {
        case .inside(let path):
            guard Files.isExecutableFile(path) else {
                return .failed("script \(path) is not an executable file")
            }
            return .run([path])
        case .outside(let path):
            return .denied("script name \(jsonEscaped(name)) leads out of \(directory) (to \(path))")
        case .missing(let reason):
            return .failed(reason)
        }
    }

    /// Why `name` cannot name a file directly inside a folder, or nil when it can.
    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name == "." || name == ".." { return "is not a file name" }
        if name.utf8.contains(UInt8(ascii: "/")) { return "contains \"/\"" }
        if name.utf8.contains(0) { return "contains a NUL byte" }
        return nil
    }
}

/// Where a script name inside a folder leads once symlinks are resolved. `Files.resolve` throws
/// for a missing target, which cannot tell "no such script" from "folder missing"; this keeps
/// them apart.
enum ScriptResolution: Equatable {
    /// The real path, inside the real folder.
    case inside(String)
    /// The real path, outside the folder (a symlink leading out).
    case outside(String)
    /// The folder or the file does not exist (or a symlink dangles).
    case missing(String)

    static func resolve(_ name: String, within directory: String) -> ScriptResolution {
        let base: String
        do throws(SystemError) { base = try Files.realPath(directory) } catch {
            return .missing("script folder: \(error)")
        }
        let entry = directory + "/" + name
        guard let type = Files.fileType(entry) else { return .missing("no script \(entry)") }
        let target: String
        do throws(SystemError) { target = try Files.realPath(entry) } catch {
            return .missing(type == .symbolicLink ? "script \(entry) is a dangling symlink" : "\(error)")
        }
        let prefix = base == "/" ? "/" : base + "/"
        return target.hasPrefix(prefix) && target.utf8.count > prefix.utf8.count ? .inside(target) : .outside(target)
    }
}
