import Testing

@testable import TapgridCLI

@Suite struct HelpDump {
    @Test func dump() {
        print(CLICommand.mainHelpText)
        for s in CLISubcommand.allCases { print("=====" + s.rawValue); print(s.helpText) }
        print("=====daemon"); print(DaemonCommand.helpText)
    }
}
