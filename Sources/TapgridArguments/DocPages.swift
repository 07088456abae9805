// The pages of `docs/` that the help texts and manual pages send readers to.

/// The reference pages (README.md lists them all): each command's help names the ones that hold
/// its reference, and the manual pages list every one. `DocPagesTests` checks that each exists.
enum DocPages {
    static let commands = "docs/commands.md"
    static let configuration = "docs/configuration.md"
    static let layouts = "docs/layouts.md"
    static let socketProtocol = "docs/socket-protocol.md"
    static let cellState = "docs/cell-state.md"
    static let touch = "docs/touch.md"
    static let eventLogAndReplay = "docs/event-log-and-replay.md"
    static let panel = "docs/panel.md"
    static let screen = "docs/screen.md"
    static let fleet = "docs/fleet.md"
    static let systemdAndInstall = "docs/systemd-and-install.md"

    /// Where a reader finds the pages, said once in each program's help and manual page.
    static let whereTheyAre =
        "README.md lists every page of docs/, and both are installed in PREFIX/share/doc/tapgrid (PREFIX: /usr/local by default)."

    /// Every page with what it holds, for the manual pages' SEE ALSO.
    static let all: [(page: String, holds: String)] = [
        (commands, "Both programs' command lines, exit codes, messages and default paths."),
        (configuration, "The config file: its keys, running as root, handlers and the children they start."),
        (layouts, "Layout semantics: how a grid dictionary splits, sizes and hit-tests; matrix cells."),
        (socketProtocol, "The daemon and its socket protocol: requests, replies, outcomes, errors, limits, flow control, access."),
        (cellState, "Cell state (set, toggle and disabled grids), pushed layouts (load, unload) and cells.json."),
        (touch, "Touch contacts and tap classes (tap, long, hold, double); touchscreens through libinput."),
        (eventLogAndReplay, "The event log's records and rotation; replay against a config or a daemon, and --dispatch."),
        (panel, "The browser panel: its keys, routes, guards and events; a kiosk."),
        (screen, "The screen: dimming and turning off when idle, the waking touch, wake and screen, backlight and commands."),
        (fleet, "MQTT: the mqtt block, topics, commands, pushed layouts, Home Assistant, outages."),
        (systemdAndInstall, "make install, the units, their sandbox and drop-ins, the journal, log rotation."),
    ]
}
