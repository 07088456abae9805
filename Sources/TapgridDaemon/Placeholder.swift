// TapgridDaemon
