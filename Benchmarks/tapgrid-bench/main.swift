// tapgrid-bench: `make bench` (release build). Resolve throughput, hit-test latency against a
// naive scan, config load time and memory per grid. Figures only; no pass/fail.
import TapgridConfig
import TapgridCore
import TapgridSystem

/// A deterministic generator so every run measures the same layouts.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func object(_ pairs: [(String, JSONValue)]) -> JSONValue { .object(pairs.map { JSONMember(key: $0.0, value: $0.1) }) }
func num(_ value: Double) -> JSONValue { .number(JSONNumber(value)) }

/// A tree with `levels` levels of `fanout` children alternating rows and cols, mixed size kinds.
func tree(levels: Int, fanout: Int, tag: inout Int64) -> JSONValue {
    func grid(_ depth: Int) -> JSONValue {
        tag += 1
        var pairs: [(String, JSONValue)] = []
        let sizes: [JSONValue] = [num(12), .string("fill"), .string("10%"), .string("-20%"), .string("fill")]
        pairs.append(("size", sizes[Int(tag) % sizes.count]))
        if depth == levels {
            pairs.append(("tag", num(Double(tag))))
            return object(pairs)
        }
        pairs.append(("padding", .string("{1,2,1,2}")))
        pairs.append(("spacing", num(1)))
        pairs.append((depth % 2 == 0 ? "rows" : "cols", .array((0..<fanout).map { _ in grid(depth + 1) })))
        return object(pairs)
    }
    return grid(0)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func time(_ body: () -> Void) -> Double {
    let start = Clock.monotonicNanos()
    body()
    return Double(Clock.monotonicNanos() - start)
}

func fmt(_ value: Double, _ digits: Int = 1) -> String {
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    return formatNumber(rounded)
}

func parsed(_ value: JSONValue, _ name: String) -> GridTree {
    let (tree, diagnostics) = GridParser.parse(value, layout: name)
    guard let tree else { fatalError("bench layout has errors: \(diagnostics.errors)") }
    return tree
}

print("tapgrid benchmark (release build)\n")

// 1. Resolve throughput.
print("Resolve (target >= 10 million grids per second)")
let frame = LayoutFrame(width: 1920, height: 1080)
for (levels, fanout) in [(3, 10), (5, 10), (4, 31)] {
    var tag: Int64 = 0
    let grids = parsed(tree(levels: levels, fanout: fanout, tag: &tag), "resolve")
    let runs = grids.count > 500_000 ? 5 : 15
    var samples: [Double] = []
    for _ in 0..<runs {
        var sink = 0.0
        samples.append(time { sink += Resolver.resolve(grids, in: frame).rects[grids.count - 1].width })
        if sink.isNaN { print("") }
    }
    let ns = median(samples)
    print("  \(grids.count) grids: \(fmt(ns / 1e6, 2)) ms median of \(runs), \(fmt(Double(grids.count) / ns * 1e3, 1)) million grids/s")
}

// 2. Hit-test latency: 10,000 leaves = 80 rows x 100 cols + one 2,000-cell matrix.
print("\nHit-test (target <= 300 ns per tap and >= 20x faster than a scan of all leaves)")
var tagCounter: Int64 = 0
let rowsOfCols: [JSONValue] = (0..<80).map { _ in
    object([("cols", .array((0..<100).map { _ -> JSONValue in
        tagCounter += 1
        return object([("tag", num(Double(tagCounter)))])
    }))])
}
let hitLayout = object([("rows", .array([
    object([("size", .string("30%")), ("matrix", object([("cols", num(50)), ("count", num(2000)), ("margin", num(1)), ("tag", num(100_000))]))]),
    object([("size", .string("fill")), ("rows", .array(rowsOfCols))]),
]))])
let hitTree = parsed(hitLayout, "hit")
let resolved = Resolver.resolve(hitTree, in: frame)
let leaves = hitTree.nodes.indices.filter { hitTree.nodes[$0].childCount == 0 }
print("  layout: \(hitTree.count) grids, \(leaves.count) leaves")
var rng = SplitMix64(state: 42)
let tapCount = 1_000_000
var xs = [Double](repeating: 0, count: tapCount), ys = xs
for i in 0..<tapCount {
    xs[i] = Double.random(in: 0..<1920, using: &rng)
    ys[i] = Double.random(in: 0..<1080, using: &rng)
}
// Check the fast path against the reference on a sample before timing it.
for i in stride(from: 0, to: tapCount, by: 997) where resolved.hit(x: xs[i], y: ys[i]) != resolved.hitByScan(x: xs[i], y: ys[i]) {
    fatalError("hit and hitByScan disagree at (\(xs[i]), \(ys[i]))")
}
let batch = 1000
var fastSamples: [Double] = []
var checksum = 0
for start in stride(from: 0, to: tapCount, by: batch) {
    fastSamples.append(time {
        for i in start..<(start + batch) { checksum &+= resolved.hit(x: xs[i], y: ys[i]) ?? 0 }
    } / Double(batch))
}
// The naive scan: every leaf's rect tested in order, first hittable leaf containing the point.
let leafRects = leaves.map { resolved.rects[$0] }
var scanSamples: [Double] = []
for start in stride(from: 0, to: tapCount / 20, by: batch) {
    scanSamples.append(time {
        for i in start..<(start + batch) {
            for (k, rect) in leafRects.enumerated() where rect.contains(x: xs[i], y: ys[i]) {
                checksum &+= leaves[k]
                break
            }
        }
    } / Double(batch))
}
let fast = median(fastSamples), scan = median(scanSamples)
print("  indexed hit-test: \(fmt(fast)) ns per tap (median over \(tapCount) taps in batches of \(batch))")
print("  naive leaf scan:  \(fmt(scan)) ns per tap (median over \(tapCount / 20) taps)")
print("  speed-up: \(fmt(scan / fast))x   (checksum \(checksum % 1000))")

// 3. Config load of a ~1 MB layout file.
print("\nConfig load of a 1 MB layout file: read, parse, validate, resolve (target <= 150 ms)")
var layoutText = "// generated by tapgrid-bench\n"
var fanout = 6
while layoutText.utf8.count < 1_000_000 {
    layoutText = tree(levels: 4, fanout: fanout, tag: &tagCounter).compactJSON
    fanout += 1
}
let layoutPath = "/tmp/tapgrid-bench-layout.json", configPath = "/tmp/tapgrid-bench-config.json"
do {
    let layoutFD = try Files.openForWriting(layoutPath)
    try FD.writeAll(layoutFD.rawValue, Array(layoutText.utf8))
    let configFD = try Files.openForWriting(configPath)
    try FD.writeAll(configFD.rawValue, Array(#"{"layouts": {"big": {"width": 1920, "height": 1080, "grid": "tapgrid-bench-layout.json"}}, "eventLog": false}"#.utf8))
} catch {
    fatalError("cannot write the benchmark files: \(error)")
}
var loadSamples: [Double] = []
var gridCount = 0
for _ in 0..<7 {
    loadSamples.append(time {
        let (config, diagnostics) = ConfigLoader.load(path: configPath)
        guard let config else { fatalError("\(diagnostics.errors)") }
        gridCount = config.layouts[0].tree.count
    })
}
print("  \(layoutText.utf8.count) bytes, \(gridCount) grids: \(fmt(median(loadSamples) / 1e6, 1)) ms median of 7")

// 4. Memory per resolved grid.
print("\nMemory")
func bytesPerGrid(_ layout: ResolvedLayout) -> Double {
    let tree = layout.tree
    let total = tree.nodes.capacity * MemoryLayout<GridNode>.stride + layout.rects.count * MemoryLayout<Rect>.stride
        + layout.count * 1 + tree.infos.count * MemoryLayout<GridInfo>.stride + tree.matrices.count * MemoryLayout<MatrixSpec>.stride
        + tree.styles.count * MemoryLayout<GridStyle>.stride + tree.wrapSizes.count * 8
    return Double(total) / Double(layout.count)
}
print("  per grid: GridNode \(MemoryLayout<GridNode>.stride) B + Rect \(MemoryLayout<Rect>.stride) B + search 1 B; GridStyle \(MemoryLayout<GridStyle>.stride) B per grid that sets padding, spacing or gravity; GridInfo \(MemoryLayout<GridInfo>.stride) B per tagged grid (plus its strings)")
print("  hit-test layout: \(fmt(bytesPerGrid(resolved))) bytes per resolved grid (arrays, excluding string contents)")

print("\nTap-class recognizer (TapEngine.touch: a contact's down, 3 moves and up; log handlers)")
do {
    let text = #"""
    {"layouts": {"pad": {"width": 1000, "height": 1000, "grid": {"matrix": {"cols": 10, "count": 100, "margin": 0, "tag": 1}}}},
     "handlers": {"audit": {"type": "log"}, "menu": {"type": "log"}},
     "routes": [{"tags": [50], "handler": "menu", "on": "long"}, {"handler": "audit"}]}
    """#
    var parser = ConfigParser(file: "bench.json", directory: "/tmp") { path in .failure(Diagnostic(.error, "no \(path)")) }
    let (touchConfig, touchDiagnostics) = parser.parse(try! JSONParser.parse(text, lenient: true))
    guard let touchConfig else { fatalError("\(touchDiagnostics.errors)") }
    var engine = TapEngine(config: touchConfig, generation: 1)
    var random = SplitMix64(state: 7)
    var taps: [ClassedTap] = []
    let contacts = 200_000
    var now: UInt64 = 1_000_000_000
    var fired = 0
    let ns = time {
        for index in 0..<contacts {
            let key = ContactKey(stream: 1, slot: index & 7)
            let x = Double(random.next() % 1000), y = Double(random.next() % 1000)
            taps.removeAll(keepingCapacity: true)
            _ = try? engine.touch(.down, key: key, x: x, y: y, layout: nil, now: now, into: &taps)
            for step in 1...3 {
                _ = try? engine.touch(.move, key: key, x: x + Double(step), y: y, layout: nil, now: now + UInt64(step) * 8_000_000, into: &taps)
            }
            _ = try? engine.touch(.up, key: key, x: nil, y: nil, layout: nil, now: now + 40_000_000, into: &taps)
            fired += taps.count
            now += 50_000_000
        }
    }
    let events = Double(contacts * 5)
    print("  \(contacts) contacts, \(Int(events)) events, \(fired) taps fired: \(fmt(ns / events)) ns per event")
}
