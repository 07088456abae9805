import Foundation
import Testing
@testable import TapgridCore

/// The shared vectors (grid-vectors.json, MyLayout's worked examples) and tapgrid's own,
/// derived by hand from grid-semantics.md (tapgrid-vectors.json).
@Suite struct GridVectorTests {
    @Test("shared grid vector", arguments: LayoutVectors.names("grid-vectors"))
    func sharedVector(name: String) throws {
        try LayoutVectors.check("grid-vectors", name: name)
    }

    @Test("tapgrid vector", arguments: LayoutVectors.names("tapgrid-vectors"))
    func tapgridVector(name: String) throws {
        try LayoutVectors.check("tapgrid-vectors", name: name)
    }

    @Test func vectorNamesAreUnique() {
        for file in ["grid-vectors", "tapgrid-vectors"] {
            let names = LayoutVectors.names(file)
            #expect(Set(names).count == names.count, "\(file): duplicate vector names")
            #expect(names.count >= 10, "\(file): only \(names.count) vectors")
        }
    }
}
