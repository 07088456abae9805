import Foundation
import Testing
@testable import TapgridCore

/// Loads and checks layout vectors in the shared format:
/// `{"name", "size": {"width","height"}, "grid", "rects": {path: [x,y,w,h]}, "taps": [{"x","y","hit"}]}`,
/// with optional `"direction"` ("rtl"), `"scale"` and `"note"`.
enum LayoutVectors {
    static func load(_ resource: String) -> [JSONValue] {
        guard let url = Bundle.module.url(forResource: resource, withExtension: "json", subdirectory: "Fixtures"),
            let data = try? Data(contentsOf: url),
            case .array(let vectors)? = try? JSONParser.parse([UInt8](data), lenient: false)
        else { return [] }
        return vectors
    }

    /// Vector names, for parameterised tests (an unreadable file gives one bogus name that fails).
    static func names(_ resource: String) -> [String] {
        let names = load(resource).compactMap { vector -> String? in
            if case .string(let name)? = vector["name"] { return name }
            return nil
        }
        return names.isEmpty ? ["<\(resource).json missing or unreadable>"] : names
    }

    static func number(_ value: JSONValue?) -> Double? {
        if case .number(let n)? = value { return n.double }
        return nil
    }

    /// Checks every rect, every tap, and `hit` against `hitByScan`, for the vector called `name`.
    static func check(_ resource: String, name: String) throws {
        let vector = try #require(load(resource).first { $0["name"] == .string(name) }, "no vector \(name)")
        let width = try #require(number(vector["size"]?["width"]))
        let height = try #require(number(vector["size"]?["height"]))
        var direction = LayoutDirection.ltr
        if let value = vector["direction"] {
            #expect(value == .string("rtl") || value == .string("ltr"))
            if value == .string("rtl") { direction = .rtl }
        }
        let scale = number(vector["scale"]) ?? 1
        let grid = try #require(vector["grid"])
        let (parsed, diagnostics) = GridParser.parse(grid, layout: name)
        #expect(!diagnostics.hasErrors, "\(diagnostics.all.map(\.description))")
        let tree = try #require(parsed)
        let layout = Resolver.resolve(tree, in: LayoutFrame(width: width, height: height, direction: direction, scale: scale))

        guard case .object(let rects)? = vector["rects"] else {
            Issue.record("\(name): no rects")
            return
        }
        #expect(rects.count == tree.count, "\(name): \(rects.count) rects listed for \(tree.count) grids")
        for member in rects {
            guard let index = tree.index(ofPath: member.key) else {
                Issue.record("\(name): no grid at path \(member.key)")
                continue
            }
            guard case .array(let parts) = member.value, parts.count == 4 else {
                Issue.record("\(name): bad rect for \(member.key)")
                continue
            }
            let want = parts.map { number($0) ?? .nan }
            let got = layout.rects[index]
            let have = [got.x, got.y, got.width, got.height]
            for k in 0..<4 where !(abs(want[k] - have[k]) <= 1e-9) {
                Issue.record("\(name): grid \"\(member.key)\" is \(have), expected \(want)")
                break
            }
        }

        guard case .array(let taps)? = vector["taps"] else {
            Issue.record("\(name): no taps")
            return
        }
        for tap in taps {
            let x = try #require(number(tap["x"])), y = try #require(number(tap["y"]))
            let expected: String?
            switch tap["hit"] {
            case .string(let path)?: expected = path
            case .null?: expected = nil
            default:
                Issue.record("\(name): tap (\(x), \(y)) has no \"hit\"")
                continue
            }
            let hit = layout.hit(x: x, y: y)
            let scan = layout.hitByScan(x: x, y: y)
            #expect(hit.map(tree.path(of:)) == expected, "\(name): tap (\(x), \(y))")
            #expect(hit == scan, "\(name): tap (\(x), \(y)): hit and hitByScan differ")
        }
    }
}
