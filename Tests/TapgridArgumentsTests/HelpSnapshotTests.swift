import Testing

@testable import TapgridArguments

/// Full-text snapshots of every help text (argument-parser compares whole strings too).
@Suite struct HelpSnapshotTests {
    @Test func mainHelp() {
        #expect(CLICommand.mainHelpText == """
OVERVIEW: Send taps to the tapgrid daemon and control it; check, show and
replay configurations offline.

USAGE: tapgrid <subcommand>

OPTIONS:
  --generate-completion-script <shell>
                          Print tapgrid's completion script for this shell.
                          (values: bash, zsh, fish)
  --generate-manual       Print the manual page tapgrid(1) in roff (man -l -
                          reads it).
  --version               Show the version.
  -h, --help              Show help information.

SUBCOMMANDS:
  tap                     Tap at (<x>, <y>): the daemon hit-tests, routes and
                          dispatches it, and this prints the outcome.
  touch                   Press a finger at (<x>, <y>) and lift it, to try tap
                          classes: a tap, a long press or hold, a double tap.
  hit                     Hit-test (<x>, <y>) without dispatching anything,
                          through the daemon or offline with --config.
  status                  Print the running daemon's state: current layout,
                          config generation and tap count.
  reload                  Make the daemon re-read its config; a config that
                          fails to load leaves the old one running.
  use                     Make <layout> the daemon's current layout.
  set                     Set a grid's cell state in the daemon (what a panel
                          shows and handlers read); keys left out keep their
                          value.
  load                    Push a layout to the daemon (or replace a config
                          layout of that name) from a file holding its
                          definition; with --check, check the file offline
                          instead.
  unload                  Remove a layout pushed with load; a config layout of
                          that name comes back.
  wake                    Light the daemon's screen, as a touch would without
                          pressing anything; its dim and off timers start again.
  screen                  Turn the daemon's screen on, dim it, or turn it off
                          until a touch or a wake.
  check                   Validate a config file and its layouts; print errors
                          and warnings, exit 1 on any error.
  show                    Print a layout's resolved grids as a table, JSON or
                          SVG; with --socket, draw the running daemon's layout
                          with its cell state.
  replay                  Hit-test and route the taps of an event log again
                          (dispatching nothing) and report each one that
                          differs; exit 1 if any does. With --dispatch, send
                          them to the daemon as real taps.

  See 'tapgrid help <subcommand>' for detailed help.

  Reference: docs/commands.md
  README.md lists every page of docs/, and both are installed in
  PREFIX/share/doc/tapgrid (PREFIX: /usr/local by default).
""" + "\n")
    }

    @Test func tapHelp() {
        #expect(CLISubcommand.tap.helpText == """
OVERVIEW: Tap at (<x>, <y>): the daemon hit-tests, routes and dispatches it,
and this prints the outcome.

USAGE: tapgrid tap <x> <y> [--layout <name>] [--socket <path>] [--json]

ARGUMENTS:
  <x>                     Horizontal position in layout coordinates (a number;
                          may be negative).
  <y>                     Vertical position in layout coordinates (a number;
                          may be negative).

OPTIONS:
  --layout <name>         Layout to tap in. (default: the daemon's current
                          layout)
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/commands.md and docs/socket-protocol.md
""" + "\n")
    }

    @Test func hitHelp() {
        #expect(CLISubcommand.hit.helpText == """
OVERVIEW: Hit-test (<x>, <y>) without dispatching anything, through the daemon
or offline with --config.

USAGE: tapgrid hit <x> <y> [--layout <name>] [--socket <path> | --config <path>] [--json]

ARGUMENTS:
  <x>                     Horizontal position in layout coordinates (a number;
                          may be negative).
  <y>                     Vertical position in layout coordinates (a number;
                          may be negative).

OPTIONS:
  --layout <name>         Layout to hit-test. (default: the daemon's current
                          layout; with --config, the config's initialLayout or
                          only layout)
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Hit-test offline against this config file; no daemon
                          needed.
  --json                  Print the hit as JSON, the same object as the
                          socket's hit reply.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/commands.md and docs/socket-protocol.md
""" + "\n")
    }

    @Test func statusHelp() {
        #expect(CLISubcommand.status.helpText == """
OVERVIEW: Print the running daemon's state: current layout, config generation
and tap count.

USAGE: tapgrid status [--socket <path>] [--config <path>] [--json]

OPTIONS:
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and $TAPGRID_SOCKET).
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/socket-protocol.md
""" + "\n")
    }

    @Test func reloadHelp() {
        #expect(CLISubcommand.reload.helpText == """
OVERVIEW: Make the daemon re-read its config; a config that fails to load
leaves the old one running.

USAGE: tapgrid reload [--socket <path>] [--config <path>] [--json]

OPTIONS:
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and $TAPGRID_SOCKET).
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/socket-protocol.md
""" + "\n")
    }

    @Test func useHelp() {
        #expect(CLISubcommand.use.helpText == """
OVERVIEW: Make <layout> the daemon's current layout.

USAGE: tapgrid use <layout> [--socket <path>] [--config <path>] [--json]

ARGUMENTS:
  <layout>                Name of one of the daemon's layouts: a config's or a
                          pushed one.

OPTIONS:
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and $TAPGRID_SOCKET).
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/socket-protocol.md
""" + "\n")
    }

    @Test func setHelp() {
        #expect(CLISubcommand.set.helpText == """
OVERVIEW: Set a grid's cell state in the daemon (what a panel shows and
handlers read); keys left out keep their value.

USAGE: tapgrid set <layout> <grid> [--text <text>] [--active <bool>] [--value <json>] [--enabled <bool>] [--icon <mdi:name>] [--style <name>] [--clear <key> ...] [--socket <path>] [--config <path>] [--json]

ARGUMENTS:
  <layout>                Layout of the grid: one of the config's or a pushed
                          one.
  <grid>                  The grid's name, or its path ("0/1"; "" is the root).

OPTIONS:
  --text <text>           The text the cell shows (at most 256 bytes).
  --active <bool>         Whether the cell is on (a toggle grid flips it on
                          each tap). (values: true, false)
  --value <json>          Any JSON value, which handlers read in TAPGRID_VALUE
                          (at most 4 KiB; a string needs its quotes: '"on"').
  --enabled <bool>        false: taps on the grid get outcome disabled:
                          recorded, not routed. (values: true, false)
  --icon <mdi:name>       The icon the cell shows instead of its grid's (a
                          Material Design Icons name: mdi:lightbulb).
  --style <name>          One of the config's styles, shown instead of the
                          grid's own (over default).
  --clear <key>           Clear this key back to null (repeat it for more
                          keys). (values: text, active, value, enabled, icon,
                          style)
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and $TAPGRID_SOCKET).
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/cell-state.md
""" + "\n")
    }

    @Test func loadHelp() {
        #expect(CLISubcommand.load.helpText == """
OVERVIEW: Push a layout to the daemon (or replace a config layout of that name)
from a file holding its definition; with --check, check the file offline
instead.

USAGE: tapgrid load <name> <file> [--check | --socket <path>] [--config <path>] [--json]

ARGUMENTS:
  <name>                  Name of the layout to load.
  <file>                  JSON file holding the layout's definition: what a
                          config's layouts entry holds (width, height, grid
                          inline).

OPTIONS:
  --check                 Check the definition offline, as the daemon would,
                          against the handlers and routes of --config; print
                          errors and warnings, exit 1 on any error.
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and
                          $TAPGRID_SOCKET); with --check, the config whose
                          handlers and routes apply. (default: with --check,
                          $TAPGRID_CONFIG or /etc/tapgrid/tapgrid.json)
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/cell-state.md
""" + "\n")
    }

    @Test func unloadHelp() {
        #expect(CLISubcommand.unload.helpText == """
OVERVIEW: Remove a layout pushed with load; a config layout of that name comes
back.

USAGE: tapgrid unload <layout> [--socket <path>] [--config <path>] [--json]

ARGUMENTS:
  <layout>                Name of a layout pushed with load.

OPTIONS:
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and $TAPGRID_SOCKET).
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/cell-state.md
""" + "\n")
    }

    @Test func wakeHelp() {
        #expect(CLISubcommand.wake.helpText == """
OVERVIEW: Light the daemon's screen, as a touch would without pressing
anything; its dim and off timers start again.

USAGE: tapgrid wake [--socket <path>] [--config <path>] [--json]

OPTIONS:
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and $TAPGRID_SOCKET).
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/screen.md
""" + "\n")
    }

    @Test func screenHelp() {
        #expect(CLISubcommand.screen.helpText == """
OVERVIEW: Turn the daemon's screen on, dim it, or turn it off until a touch or
a wake.

USAGE: tapgrid screen <state> [--socket <path>] [--config <path>] [--json]

ARGUMENTS:
  <state>                 The screen's new state. (values: on, dim, off)

OPTIONS:
  --socket <path>         Socket of the running daemon. (default:
                          $TAPGRID_SOCKET, the --config file's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --config <path>         Find the daemon's socket from this config's
                          socket.path (used after --socket and $TAPGRID_SOCKET).
  --json                  Print the daemon's reply as JSON.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/screen.md
""" + "\n")
    }

    @Test func checkHelp() {
        #expect(CLISubcommand.check.helpText == """
OVERVIEW: Validate a config file and its layouts; print errors and warnings,
exit 1 on any error.

USAGE: tapgrid check [<config>]

ARGUMENTS:
  <config>                Config file to check. (default: $TAPGRID_CONFIG or
                          /etc/tapgrid/tapgrid.json)

OPTIONS:
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/commands.md and docs/configuration.md
""" + "\n")
    }

    @Test func showHelp() {
        #expect(CLISubcommand.show.helpText == """
OVERVIEW: Print a layout's resolved grids as a table, JSON or SVG; with
--socket, draw the running daemon's layout with its cell state.

USAGE: tapgrid show [<config>] [--layout <name>] [--format <format>] [--output <file>] [--socket <path>]

ARGUMENTS:
  <config>                Config file to read. (default: $TAPGRID_CONFIG or
                          /etc/tapgrid/tapgrid.json)

OPTIONS:
  --layout <name>         Layout to show. (default: the config's initialLayout
                          or only layout)
  --format <format>       Output format. (values: table, json, svg; default:
                          table)
  --output <file>         Write to this file instead of standard output.
  --socket <path>         Draw the running daemon's layout instead, with each
                          cell's state (its text, active and disabled cells);
                          --format svg only, --layout defaults to the daemon's
                          current layout.
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/commands.md and docs/layouts.md
""" + "\n")
    }

    @Test func replayHelp() {
        #expect(CLISubcommand.replay.helpText == """
OVERVIEW: Hit-test and route the taps of an event log again (dispatching
nothing) and report each one that differs; exit 1 if any does. With --dispatch,
send them to the daemon as real taps.

USAGE: tapgrid replay <events> [--config <path> | --socket <path>] [--dispatch] [--speed <factor>] [--json]

ARGUMENTS:
  <events>                Event log to replay (JSON Lines, as the daemon writes
                          it).

OPTIONS:
  --config <path>         Config to replay against. (default: $TAPGRID_CONFIG
                          or /etc/tapgrid/tapgrid.json)
  --socket <path>         Replay against the daemon listening here, with hit
                          requests (nothing is dispatched or logged); with
                          --dispatch, the daemon that gets the taps.
  --dispatch              Send the taps to the daemon at --socket as real taps
                          (run and logged, each with its recorded layout),
                          spaced as recorded, and count their outcomes; exit 0
                          once every tap is answered.
  --speed <factor>        With --dispatch: play the recording this many times
                          as fast (2: twice as fast; 0: as fast as the daemon
                          answers, at most 64 taps unanswered). (default: 1)
  --json                  Print one JSON object per difference, then a summary
                          object (with --dispatch: the outcome counts).
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/event-log-and-replay.md
""" + "\n")
    }

    @Test func daemonHelp() {
        #expect(DaemonCommand.helpText == """
OVERVIEW: The tapgrid daemon: holds the configured grid layouts, hit-tests taps
sent to its socket and routes them to handlers.

USAGE: tapgridd [--config <path>] [--socket <path>] [--check] [--verbose]

OPTIONS:
  --config <path>         Config file. (default: $TAPGRID_CONFIG or
                          /etc/tapgrid/tapgrid.json)
  --socket <path>         Socket to listen on when systemd passes none.
                          (default: $TAPGRID_SOCKET, the config's socket.path,
                          $RUNTIME_DIRECTORY/tapgrid.sock,
                          $XDG_RUNTIME_DIR/tapgrid.sock or
                          /run/tapgrid/tapgrid.sock)
  --check                 Load and validate the config, then exit: 0 if it is
                          valid, 1 if not.
  --verbose               Log debug-level detail too.
  --generate-manual       Print the manual page tapgridd(8) in roff (man -l -
                          reads it).
  --version               Show the version.
  -h, --help              Show help information.

  Reference: docs/configuration.md, docs/socket-protocol.md and
  docs/systemd-and-install.md
  README.md lists every page of docs/, and both are installed in
  PREFIX/share/doc/tapgrid (PREFIX: /usr/local by default).
""" + "\n")
    }
}
