// TapgridCLI
