import Testing

@testable import TapgridArguments

/// The parts of the engine the real commands do not reach: long labels, wrapping, value lists.
@Suite struct EngineTests {
    @Test func longLabelMovesHelpToTheNextLine() {
        #expect(
            HelpRow(label: "--a-very-long-option <value>", text: "Does a thing.").rendered
                == "  --a-very-long-option <value>\n                          Does a thing.\n")
        // 2 + 23 = 25 < 26: still on the same line; 2 + 24 = 26: next line.
        #expect(HelpRow(label: String(repeating: "a", count: 23), text: "X").rendered == "  " + String(repeating: "a", count: 23) + " X\n")
        #expect(
            HelpRow(label: String(repeating: "a", count: 24), text: "X").rendered
                == "  " + String(repeating: "a", count: 24) + "\n" + String(repeating: " ", count: 26) + "X\n")
    }

    @Test func wrapsAtEightyColumns() {
        let words = Array(repeating: "word", count: 30).joined(separator: " ")
        let rendered = HelpRow(label: "--x", text: words).rendered
        let lines = rendered.split(separator: "\n")
        #expect(lines.allSatisfy { $0.count <= 80 })
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(String(repeating: " ", count: 26) + "word") })
        // A word longer than the column is not split.
        let long = String(repeating: "z", count: 70)
        #expect(wrapHelp("a " + long + " b", indent: 26) == [String](repeating: String(repeating: " ", count: 26), count: 3).enumerated().map { $0.element + ["a", long, "b"][$0.offset] }.joined(separator: "\n"))
    }

    /// A repeating option keeps every value in order, where another keeps the last; `...` in the usage.
    @Test func repeatingOptionKeepsEveryValue() throws {
        let spec = CommandSpec(
            path: ["t"], abstract: "T.",
            arguments: [.option("tag", value: "t", help: "A tag.").repeating(), .option("name", value: "n", help: "A name.")])
        #expect(spec.usage == "t [--tag <t> ...] [--name <n>]")
        let parsed = try spec.parse(["--tag", "a", "--name", "x", "--tag=b", "--name", "y", "--tag", "a"])
        #expect(parsed.strings("tag") == ["a", "b", "a"])
        #expect(parsed.string("tag") == nil && parsed.string("name") == "y")
        #expect(try spec.parse([]).strings("tag").isEmpty)
    }

    @Test func valueListPhrases() {
        let two = ArgumentSpec.option("mode", value: "mode", .oneOf(["a", "b"]), help: "Mode.")
        #expect(two.validate("c").hint == ". Please provide one of 'a' and 'b'.")
        #expect(two.helpColumn == "Mode. (values: a, b)")
        let defaulted = ArgumentSpec.option("n", value: "n", help: "N.", default: "3")
        #expect(defaulted.helpColumn == "N. (default: 3)")
    }

    @Test(arguments: [
        ("-5", false), ("-0.5", false), ("-1e3", false), ("-inf", false), ("-", false), ("x", false),
        ("-h", true), ("--", true), ("--json", true), ("-x", true), ("-5x", true),
    ])
    func optionShape(token: String, isOption: Bool) {
        #expect(looksLikeOption(token) == isOption)
    }
}
