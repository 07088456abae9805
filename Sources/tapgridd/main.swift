// tapgridd: everything lives in TapgridDaemon so tests and tools can drive it as a library.
import TapgridDaemon

TapgridDaemonMain.run()
