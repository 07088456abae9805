import Foundation
import Testing

@testable import TapgridArguments

/// The pages of `docs/` that the help texts and manual pages name exist in the checkout, and every
/// command's help and manual page names its own.
@Suite struct DocPagesTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static let specs = [CLISpecs.root, DaemonCommand.daemonSpec] + CLISubcommand.allCases.map(\.spec)

    @Test func everyPageNamedExists() {
        let named = Set(DocPages.all.map(\.page) + Self.specs.flatMap(\.docs))
        for page in named.sorted() {
            #expect(FileManager.default.fileExists(atPath: Self.packageRoot.appendingPathComponent(page).path), "\(page)")
        }
    }

    @Test func everyCommandNamesItsPagesInHelpAndManual() {
        for spec in Self.specs {
            #expect(!spec.docs.isEmpty, "\(spec.name)")
            #expect(spec.docs.allSatisfy { page in DocPages.all.contains { $0.page == page } }, "\(spec.name)")
            guard let reference = spec.reference else { continue }
            let manual = spec.path[0] == "tapgridd" ? ManualPages.tapgridd : ManualPages.tapgrid
            #expect(manual.contains(".PP\n" + ManualPages.escape(reference) + "\n"), "\(spec.name)")
        }
        #expect(CLISubcommand.touch.helpText.hasSuffix("\n\n  Reference: docs/touch.md\n"))
        #expect(ManualPages.tapgrid.contains(ManualPages.escape(DocPages.whereTheyAre)))
        #expect(ManualPages.tapgridd.contains(".TP\n\\fBdocs/fleet.md\\fR\n"))
    }
}
