// tapgridd: everything lives in TapgridDaemon so tests and tools can drive it as a library.
@preconcurrency import Glibc
import TapgridDaemon

exit(TapgridDaemonMain.main(CommandLine.arguments))
