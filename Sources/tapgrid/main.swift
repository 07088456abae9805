@preconcurrency import Glibc
import TapgridCLI

exit(TapgridCLIMain.main(CommandLine.arguments))
