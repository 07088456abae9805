import Foundation
@preconcurrency import Glibc
import Testing

import TapgridTestSupport

/// The completion scripts and manual pages the built programs generate, run by the real shells
/// and formatters (`make test` installs zsh, fish and groff; a shell that is missing skips its test).
@Suite struct CompletionAndManualTests {
    static func installed(_ program: String) -> Bool { access(program, X_OK) == 0 }

    /// What `shell` completes for each command line: the script written by the built `tapgrid`
    /// into a fresh folder, `harness` (a script reading `$1` = that folder, `$2` = the line) run
    /// once per line. Lines of output, sorted.
    func completions(_ shell: String, harness: String, scriptName: String, lines: [String]) throws -> [String: [String]] {
        let dir = try makeTempDir()
        defer { removeTempDir(dir) }
        let script = try runProgram(cliBinary, ["--generate-completion-script", URL(fileURLWithPath: shell).lastPathComponent])
        try #require(script.code == 0)
        try script.out.write(toFile: dir + "/" + scriptName, atomically: true, encoding: .utf8)
        try harness.write(toFile: dir + "/harness", atomically: true, encoding: .utf8)
        for name in ["events.jsonl", "examples.json", "notes.txt"] {
            FileManager.default.createFile(atPath: dir + "/" + name, contents: Data())
        }
        var found: [String: [String]] = [:]
        for line in lines {
            let result = try runProgram(
                shell, (shell.hasSuffix("zsh") ? ["-f"] : []) + [dir + "/harness", dir, line],
                environment: ["PATH": "/usr/bin:/bin", "HOME": dir, "TMPDIR": dir, "TERM": "dumb"], currentDirectory: dir)
            found[line] = result.out.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
                .filter { !$0.isEmpty }.sorted()
        }
        return found
    }

    static let lines = [
        "tapgrid st", "tapgrid --gen", "tapgrid --generate-completion-script ", "tapgrid show --format ", "tapgrid show --",
        "tapgrid check ex", "tapgrid replay ev", "tapgrid replay e.jsonl --s", "tapgrid hit 1 2 --socket no", "tapgrid help re",
        "tapgrid un", "tapgrid set home mute --active ", "tapgrid set home mute --clear ", "tapgrid set home mute --clear text --cl",
        "tapgrid load promo ex", "tapgrid load promo p.json --ch", "tapgrid show --format svg --so",
        "tapgrid wa", "tapgrid sc", "tapgrid screen ", "tapgrid screen --j", "tapgrid help sc",
    ]

    /// The same answers in every shell (zsh leaves out options already given and excluded ones).
    static let expected: [String: [String]] = [
        "tapgrid st": ["status"],
        "tapgrid --gen": ["--generate-completion-script", "--generate-manual"],
        "tapgrid --generate-completion-script ": ["bash", "fish", "zsh"],
        "tapgrid show --format ": ["json", "svg", "table"],
        "tapgrid show --": ["--format", "--help", "--layout", "--output", "--socket", "--version"],
        "tapgrid check ex": ["examples.json"],
        "tapgrid replay ev": ["events.jsonl"],
        "tapgrid replay e.jsonl --s": ["--socket", "--speed"],
        "tapgrid hit 1 2 --socket no": ["notes.txt"],
        "tapgrid help re": ["reload", "replay"],
        "tapgrid un": ["unload"],
        "tapgrid set home mute --active ": ["false", "true"],
        "tapgrid set home mute --clear ": ["active", "enabled", "icon", "style", "text", "value"],
        "tapgrid set home mute --clear text --cl": ["--clear"],  // given again for another key
        "tapgrid load promo ex": ["examples.json"],
        "tapgrid load promo p.json --ch": ["--check"],
        "tapgrid show --format svg --so": ["--socket"],
        "tapgrid wa": ["wake"],
        "tapgrid sc": ["screen"],
        "tapgrid screen ": ["dim", "off", "on"],
        "tapgrid screen --j": ["--json"],
        "tapgrid help sc": ["screen"],
    ]

    @Test(.enabled(if: installed("/bin/bash"))) func bash() throws {
        let harness = #"""
            source "$1/tapgrid.bash"
            read -r -a COMP_WORDS <<< "$2"
            [[ $2 == *" " ]] && COMP_WORDS+=("")
            COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
            _tapgrid
            printf '%s\n' "${COMPREPLY[@]}"
            """#
        let found = try completions("/bin/bash", harness: harness, scriptName: "tapgrid.bash", lines: Self.lines)
        #expect(found == Self.expected)
    }

    @Test(.enabled(if: installed("/usr/bin/zsh"))) func zsh() throws {
        let found = try completions("/usr/bin/zsh", harness: Self.zshHarness, scriptName: "_tapgrid", lines: Self.lines)
        #expect(found == Self.expected)
        // --socket and --config exclude each other.
        let excluded = try completions("/usr/bin/zsh", harness: Self.zshHarness, scriptName: "_tapgrid", lines: ["tapgrid hit 1 2 --socket /s --"])
        #expect(excluded["tapgrid hit 1 2 --socket /s --"] == ["--help", "--json", "--layout", "--version"])
    }

    @Test(.enabled(if: installed("/usr/bin/fish"))) func fish() throws {
        let harness = #"""
            source $argv[1]/tapgrid.fish
            complete -C"$argv[2]"
            """#
        let found = try completions("/usr/bin/fish", harness: harness, scriptName: "tapgrid.fish", lines: Self.lines)
        #expect(found == Self.expected)
    }

    /// Both manual pages format without a single groff warning, with every command and option in them.
    @Test(.enabled(if: installed("/usr/bin/groff"))) func manualPagesFormatCleanly() throws {
        for (binary, title) in [(cliBinary, "TAPGRID"), (daemonBinary, "TAPGRIDD")] {
            let page = try runProgram(binary, ["--generate-manual"])
            #expect(page.code == 0)
            let dir = try makeTempDir()
            defer { removeTempDir(dir) }
            try page.out.write(toFile: dir + "/page", atomically: true, encoding: .utf8)
            let lint = try runProgram("/usr/bin/groff", ["-man", "-ww", "-z", dir + "/page"])
            #expect(lint.code == 0 && lint.err.isEmpty, "\(lint.err)")
            let text = try runProgram("/usr/bin/groff", ["-man", "-Tutf8", "-P-cbou", dir + "/page"], environment: ["PATH": "/usr/bin:/bin"])
            #expect(text.out.contains(title))
            #expect(text.out.contains("EXIT STATUS"))
        }
    }

    /// Completion capture for zsh (after zsh-capture-completion): an interactive zsh on a pty with
    /// `compadd` replaced by one that prints the matches, `$1` on `$fpath`, `$2` typed and TAB.
    static let zshHarness = #"""
        zmodload zsh/zpty
        zpty z zsh -f -i
        local line
        setopt rcquotes
        () {
            zpty -w z source $1
            repeat 4; do
                zpty -r z line
                [[ $line == ok* ]] && return
            done
            exit 2
        } =( <<< "
        PROMPT=
        fpath=($1 \$fpath)
        autoload -U compinit
        compinit -u -D
        bindkey '^I' complete-word
        null-line () { echo -E - \$'\0' }
        compprefuncs=( null-line )
        comppostfuncs=( null-line exit )
        zstyle ':completion:*' list-grouped false
        zstyle ':completion:*' insert-tab false
        compadd () {
            if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then
                builtin compadd \"\$@\"
                return \$?
            fi
            typeset -a __hits
            builtin compadd -A __hits \"\$@\"
            local h
            for h in \$__hits; do echo -E - \$h; done
        }
        echo ok")
        zpty -w z "$2"$'\t'
        integer tog=0
        while zpty -r z; do :; done | while IFS= read -r line; do
            if [[ $line == *$'\0\r' ]]; then
                (( tog++ )) && return 0 || continue
            fi
            (( tog )) && echo -E - ${line%$'\r'}
        done
        return 2
        """#
}
