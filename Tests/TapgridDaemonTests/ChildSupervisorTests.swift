import Testing
@testable import TapgridDaemon
