import TapgridArguments
import TapgridCore
import TapgridSystem

/// Loads a config from disk: reads the file and the grid files it names, parses them as
/// lenient JSON (comments, trailing commas), validates and resolves everything.
public enum ConfigLoader {
    /// Config and layout files larger than this are refused (docs/configuration.md).
    public static let maxFileBytes = 64 << 20
    /// JSON nesting accepted in files: a 256-level grid tree nests objects in arrays twice as deep.
    static let maxJSONDepth = 2 * GridParser.maxDepth + 16

    /// The loaded config (nil when it has errors) and every error and warning found.
    /// - Parameter missingDefaultHint: said after "no such file" when `path` is the default config
    ///   (``DefaultPaths/systemConfig``): how the program at hand is told to use another one.
    public static func load(
        path: String, missingDefaultHint: String = DefaultPaths.missingConfigHint(.configOption)
    ) -> (config: Config?, diagnostics: Diagnostics) {
        load(path: path, missingHint: path == DefaultPaths.systemConfig ? missingDefaultHint : nil)
    }

    /// The same, with `missingHint` said after "no such file" whatever the path (the CLI says
    /// where the path came from: ``DefaultPaths/missingConfigHint(_:cli:environment:)``).
    public static func load(path: String, missingHint: String?) -> (config: Config?, diagnostics: Diagnostics) {
        var diagnostics = Diagnostics()
        let document: JSONValue
        switch readJSON(path, shownAs: path, missingHint: missingHint) {
        case .success(let value): document = value
        case .failure(let problem):
            diagnostics.append(problem)
            return (nil, diagnostics)
        }
        let folder = directory(of: path)
        let absoluteFolder = (try? Files.realPath(folder)) ?? folder
        var parser = ConfigParser(file: path, directory: absoluteFolder) { gridPath in
            readJSON(gridPath, shownAs: gridPath)
        }
        return parser.parse(document)
    }

    /// Reads a file holding one layout definition for `tapgrid load` (what a config's `layouts`
    /// entry holds), read as config files are: comments and trailing commas allowed, the same
    /// size limit, file-type and (as root) ownership checks.
    /// - Returns: the definition, or the problem named by the file (and line and column).
    public static func readDefinition(path: String) -> Result<JSONValue, Diagnostic> {
        readJSON(path, shownAs: path)
    }

    /// Reads and parses one JSON file; a problem is named by the file (and line and column).
    /// - Parameter missingHint: appended after `; ` when the file does not exist.
    static func readJSON(_ path: String, shownAs name: String, missingHint: String? = nil) -> Result<JSONValue, Diagnostic> {
        let bytes: [UInt8]
        do {
            let strict = StrictModes.applies
            bytes = try Files.readFile(path, maxBytes: maxFileBytes) { status in
                notRegularProblem(status) ?? (strict ? StrictModes.problem(status, path: path) ?? foldersProblem(above: path) : nil)
            }
        } catch {
            let hint = error.isMissingFile ? missingHint.map { "; " + $0 } ?? "" : ""
            return .failure(Diagnostic(.error, file: nil, error.description + hint))
        }
        do {
            return .success(try JSONParser.parse(bytes, lenient: true, maxDepth: maxJSONDepth))
        } catch {
            var message = error.message
            if error.kind == .tooDeep {
                // Only a grid tree nests this deep in a config: say which limit that is.
                message += "; a grid tree may be at most \(GridParser.maxDepth) levels deep (each level nests a grid object in a \"rows\" or \"cols\" array)"
            }
            return .failure(Diagnostic(.error, file: "\(name):\(error.line):\(error.column)", message))
        }
    }

    /// Why a file of this type is no config or layout file (a FIFO, a socket or a device put at a
    /// config's path, which could also block or never end), or nil for a regular file. A folder
    /// is left to `read`, which says "Is a directory".
    static func notRegularProblem(_ status: FileStatus) -> String? {
        switch status.type {
        case .regular?, .directory?: return nil
        case .fifo?: return "it is a FIFO, not a regular file"
        case .socket?: return "it is a socket, not a regular file"
        case .characterDevice?, .blockDevice?: return "it is a device, not a regular file"
        case .symbolicLink?, nil: return "it is not a regular file"
        }
    }

    /// StrictModes for the folders from `path`'s up to `/` (looked at once the file is open).
    static func foldersProblem(above path: String) -> String? {
        do throws(SystemError) {
            return StrictModes.folderProblem(try Files.foldersUp(from: directory(of: path)))
        } catch {
            return "refused: its folders cannot be checked: \(error)"
        }
    }

    /// The folder part of a path (`.` for a bare file name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
