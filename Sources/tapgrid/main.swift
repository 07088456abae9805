import TapgridCLI

TapgridCLIMain.run()
