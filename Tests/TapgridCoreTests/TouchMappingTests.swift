import Testing

@testable import TapgridCore

/// From libinput's position (a fraction of the device) to layout units: every rotation, a
/// calibration before the rotation, several layout sizes. Values are chosen so that every step is
/// exact in binary floating point; each row's derivation is in its comment.
@Suite struct TouchMappingTests {
    struct Row: CustomTestStringConvertible, Sendable {
        var rotation: Int
        var calibration: [Double]
        var fraction: (x: Double, y: Double)
        var layout: (width: Double, height: Double)
        var expected: (x: Double, y: Double)
        var testDescription: String {
            "rotation \(rotation), calibration \(calibration), (\(fraction.x), \(fraction.y)) on \(layout.width)x\(layout.height)"
        }
    }

    static let identity: [Double] = [1, 0, 0, 0, 1, 0]

    static let rows: [Row] = [
        // 0°: the fraction times the layout's size.
        Row(rotation: 0, calibration: identity, fraction: (0.25, 0.75), layout: (800, 480), expected: (200, 360)),
        Row(rotation: 0, calibration: identity, fraction: (0, 0), layout: (800, 480), expected: (0, 0)),
        Row(rotation: 0, calibration: identity, fraction: (0.25, 0.75), layout: (1280, 720), expected: (320, 540)),
        Row(rotation: 0, calibration: identity, fraction: (0.5, 0.5), layout: (100, 100), expected: (50, 50)),
        // 90° (0 -1 1 1 0 0): x' = 1 - y, y' = x. (0.25, 0.75) -> (0.25, 0.25).
        Row(rotation: 90, calibration: identity, fraction: (0.25, 0.75), layout: (800, 480), expected: (200, 120)),
        // (0.5, 0.125) -> (0.875, 0.5) -> (700, 240): the layout's own width and height scale.
        Row(rotation: 90, calibration: identity, fraction: (0.5, 0.125), layout: (800, 480), expected: (700, 240)),
        // The device's top-left corner is the layout's top-right one.
        Row(rotation: 90, calibration: identity, fraction: (0, 0), layout: (800, 480), expected: (800, 0)),
        // 180° (-1 0 1 0 -1 1): x' = 1 - x, y' = 1 - y. (0.25, 0.75) -> (0.75, 0.25).
        Row(rotation: 180, calibration: identity, fraction: (0.25, 0.75), layout: (800, 480), expected: (600, 120)),
        Row(rotation: 180, calibration: identity, fraction: (0, 0), layout: (1280, 720), expected: (1280, 720)),
        // 270° (0 1 0 -1 0 1): x' = y, y' = 1 - x. (0.25, 0.75) -> (0.75, 0.75).
        Row(rotation: 270, calibration: identity, fraction: (0.25, 0.75), layout: (800, 480), expected: (600, 360)),
        Row(rotation: 270, calibration: identity, fraction: (0, 0), layout: (800, 480), expected: (0, 480)),
        // Mirrored along y (-1 0 1 0 1 0): (0.25, 0.75) -> (0.75, 0.75).
        Row(rotation: 0, calibration: [-1, 0, 1, 0, 1, 0], fraction: (0.25, 0.75), layout: (800, 480), expected: (600, 360)),
        // Half size, centred (0.5 0 0.25 0 0.5 0.25): (0, 0) -> (0.25, 0.25); (1, 1) -> (0.75, 0.75).
        Row(rotation: 0, calibration: [0.5, 0, 0.25, 0, 0.5, 0.25], fraction: (0, 0), layout: (800, 480), expected: (200, 120)),
        Row(rotation: 0, calibration: [0.5, 0, 0.25, 0, 0.5, 0.25], fraction: (1, 1), layout: (800, 480), expected: (600, 360)),
        // The calibration comes first, in device units: shifted a quarter width right
        // (1 0 0.25 0 1 0), (0.5, 0.5) -> (0.75, 0.5), then 90° -> (0.5, 0.75) -> (400, 360).
        // (Rotating first would give (0.5, 0.5) -> (0.75, 0.5) -> (600, 240).)
        Row(rotation: 90, calibration: [1, 0, 0.25, 0, 1, 0], fraction: (0.5, 0.5), layout: (800, 480), expected: (400, 360)),
        // Half size centred, then 90°: (0, 0) -> (0.25, 0.25) -> (0.75, 0.25); (1, 0.5) -> (0.75, 0.5) -> (0.5, 0.75).
        Row(rotation: 90, calibration: [0.5, 0, 0.25, 0, 0.5, 0.25], fraction: (0, 0), layout: (800, 480), expected: (600, 120)),
        Row(rotation: 90, calibration: [0.5, 0, 0.25, 0, 0.5, 0.25], fraction: (1, 0.5), layout: (800, 480), expected: (400, 360)),
        // Swapped axes (0 1 0 1 0 0), then 180°: (0.25, 0.5) -> (0.5, 0.25) -> (0.5, 0.75).
        Row(rotation: 180, calibration: [0, 1, 0, 1, 0, 0], fraction: (0.25, 0.5), layout: (200, 100), expected: (100, 75)),
        // Shifted down an eighth (1 0 0 0 1 0.125), then 270°: (0.5, 0.25) -> (0.5, 0.375) -> (0.375, 0.5).
        Row(rotation: 270, calibration: [1, 0, 0, 0, 1, 0.125], fraction: (0.5, 0.25), layout: (800, 480), expected: (300, 240)),
        // Pushed past the edge: not clamped (it hits nothing). 2x, then 0°: (0.75, 0.25) -> (1.5, 0.5).
        Row(rotation: 0, calibration: [2, 0, 0, 0, 2, 0], fraction: (0.75, 0.25), layout: (800, 480), expected: (1200, 240)),
    ]

    @Test(arguments: rows)
    func mapsToLayoutUnits(row: Row) throws {
        let rotation = try #require(TouchRotation(rawValue: row.rotation))
        let calibration = try #require(TouchMatrix(row.calibration))
        let mapping = TouchMapping(rotation: rotation, calibration: calibration)
        let point = mapping.layoutPoint(x: row.fraction.x, y: row.fraction.y, width: row.layout.width, height: row.layout.height)
        #expect(point.x == row.expected.x && point.y == row.expected.y, "got (\(point.x), \(point.y))")
        // The precomputed matrix agrees with applying the two one after the other.
        let stepwise = rotation.matrix.apply(x: calibration.apply(x: row.fraction.x, y: row.fraction.y).x,
                                             y: calibration.apply(x: row.fraction.x, y: row.fraction.y).y)
        #expect(stepwise.x * row.layout.width == point.x && stepwise.y * row.layout.height == point.y)
    }

    /// The matrices libinput documents for each rotation, clockwise.
    @Test func rotationMatricesAreLibinputs() {
        #expect(TouchRotation.none.matrix.values == [1, 0, 0, 0, 1, 0])
        #expect(TouchRotation.clockwise90.matrix.values == [0, -1, 1, 1, 0, 0])
        #expect(TouchRotation.clockwise180.matrix.values == [-1, 0, 1, 0, -1, 1])
        #expect(TouchRotation.clockwise270.matrix.values == [0, 1, 0, -1, 0, 1])
    }

    /// Four quarter turns are no turn; a quarter turn after three is none either.
    @Test func rotationsCompose() {
        let quarter = TouchRotation.clockwise90.matrix
        #expect(quarter.after(quarter).values == TouchRotation.clockwise180.matrix.values)
        #expect(quarter.after(quarter).after(quarter).values == TouchRotation.clockwise270.matrix.values)
        #expect(quarter.after(TouchRotation.clockwise270.matrix) == .identity)
    }

    @Test func matrixTextAndDeterminant() {
        #expect(TouchMatrix(0.5, 0, 0.25, 0, 0.5, 0.25).description == "[0.5, 0, 0.25, 0, 0.5, 0.25]")
        #expect(TouchMatrix([1, 2, 3]) == nil)
        #expect(TouchMatrix(0, 0, 0.5, 0, 0, 0.5).determinant == 0)
        #expect(TouchRotation.clockwise90.matrix.determinant == 1)
    }
}
