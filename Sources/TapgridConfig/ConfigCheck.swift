import TapgridArguments
import TapgridCore
import TapgridSystem

extension ConfigLoader {
    /// Loads a config for `tapgrid check` and `tapgridd --check`: the load's diagnostics plus the
    /// geometry warnings of every layout that resolved (negative sizes, overlapping siblings).
    public static func check(
        path: String, missingDefaultHint: String = DefaultPaths.missingConfigHint(.configOption)
    ) -> (config: Config?, diagnostics: Diagnostics) {
        check(path: path, missingHint: path == DefaultPaths.systemConfig ? missingDefaultHint : nil)
    }

    /// The same, with `missingHint` said after "no such file" whatever the path.
    public static func check(path: String, missingHint: String?) -> (config: Config?, diagnostics: Diagnostics) {
        var (config, diagnostics) = load(path: path, missingHint: missingHint)
        for layout in config?.layouts ?? [] {
            for warning in layout.resolved.geometryWarnings(layout: layout.name) {
                var warning = warning
                warning.file = path
                diagnostics.append(warning)
            }
        }
        for (key, file) in (config?.mqtt?.files ?? []) + (config?.panel?.files ?? []) {
            if let problem = fileProblem(file, key: key) { diagnostics.append(Diagnostic(.error, file: path, problem)) }
        }
        if let config { diagnostics.append(contentsOf: iconDiagnostics(for: config)) }
        return (config, diagnostics)
    }

    /// The first line of a `passwordFile`, read with the checks `tapgrid check` makes, in the
    /// same `open` as the bytes (so the file checked is the file read).
    /// - Returns: the password, or why it cannot be read.
    public static func readPassword(_ file: String) -> Result<String, PasswordProblem> {
        readSecretFile(file, key: "mqtt.passwordFile").map(firstLine)
    }

    /// The first line of the panel's `tokenFile`, read with the same checks as a password (a
    /// token is a password): at least 16 bytes, so that it cannot be guessed by trying.
    public static func readToken(_ file: String) -> Result<String, PasswordProblem> {
        switch readSecretFile(file, key: "panel.tokenFile").map(firstLine) {
        case .failure(let problem): return .failure(problem)
        case .success(let token):
            // A cookie's value: no space, `"`, `,`, `;` or `\` (RFC 6265's cookie-octet).
            let cookieSafe = token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x2C && $0 != 0x3B && $0 != 0x5C }
            guard token.utf8.count >= 16, cookieSafe else {
                return .failure(PasswordProblem(text: "panel.tokenFile: \(file): the first line must be a token of at least 16 printable ASCII characters without spaces, quotes, commas, semicolons or backslashes, as it becomes a cookie (e.g. from `head -c 24 /dev/urandom | base64`)"))
            }
            return .success(token)
        }
    }

    /// Why a file named by the `mqtt` or `panel` block cannot be used, or nil; the token file is
    /// read as the panel reads it, once, its content checked too.
    static func fileProblem(_ file: String, key: String) -> String? {
        let read = key == "panel.tokenFile" ? readToken(file).map { _ in () } : readSecretFile(file, key: key).map { _ in () }
        if case .failure(let problem) = read { return problem.text }
        return nil
    }

    /// The first line of a secret file, without its `\r\n` or `\n`.
    private static func firstLine(_ bytes: [UInt8]) -> String {
        let line = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).first ?? []
        return String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
    }

    /// A file named by the `mqtt` or `panel` block: a regular file the process can read, and,
    /// read as root, a `passwordFile` or `tokenFile` readable by root alone (as sshd's
    /// StrictModes refuses keys others can read).
    private static func readSecretFile(_ file: String, key: String) -> Result<[UInt8], PasswordProblem> {
        do throws(SystemError) {
            return .success(try Files.readFile(file, maxBytes: 1 << 20) { status -> String? in
                if let problem = notRegularProblem(status) { return problem }
                if key == "mqtt.passwordFile" || key == "panel.tokenFile", StrictModes.applies, status.permissions & 0o044 != 0 {
                    return "refused: it is readable by \(status.permissions & 0o040 != 0 ? "its group" : "others") (mode \(StrictModes.octal(status.permissions))); running as root, tapgrid reads a \(key == "panel.tokenFile" ? "token" : "password") only root can read (chmod go-rwx \(file))"
                }
                return nil
            })
        } catch {
            return .failure(PasswordProblem(text: "\(key): \(error.description)"))
        }
    }
}

/// Why a `passwordFile` cannot be used, in words.
public struct PasswordProblem: Error, CustomStringConvertible {
    public var text: String
    public var description: String { text }
}
