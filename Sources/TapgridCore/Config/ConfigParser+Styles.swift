extension ConfigParser {
    /// `styles` (docs/panel.md "What a cell shows"): named styles, `default` laid under every
    /// hittable grid's. Every problem is an error named `styles.<name>.<key>`.
    mutating func parseStyles(_ value: JSONValue?) -> [String: CellStyle] {
        guard let value else { return [:] }
        guard case .object(let members) = value else {
            error("styles", ##"expected an object of named styles such as {"default": {"background": "#2a2e37"}, "warm": {"background": "#b35900"}}, found "## + shown(value))
            return [:]
        }
        var styles: [String: CellStyle] = [:]
        for member in members {
            guard !member.key.isEmpty else {
                error("styles", "a style needs a non-empty name")
                continue
            }
            let (style, problems) = CellStyle.read(member.value)
            for problem in problems {
                error("styles.\(member.key)" + (problem.key.isEmpty ? "" : ".\(problem.key)"), problem.message)
            }
            if let style { styles[member.key] = style }
        }
        return styles
    }

    /// `iconFont`: the SVG font icons are drawn from instead of Debian's Material Design Icons,
    /// resolved as the config's other paths are (read by the config's reader, not here).
    mutating func parseIconFont(_ value: JSONValue?) -> String? {
        guard let value else { return nil }
        guard case .string(let text) = value, !text.isEmpty, !text.utf8.contains(0) else {
            error("iconFont", "expected the path of an SVG font (a non-empty string), found " + shown(value))
            return nil
        }
        return resolvePath(text)
    }
}
