// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "tapgrid",
    targets: [
        // Pure core: JSON, grid model, parsing, resolving, hit-testing, config model, routing. No I/O, no Glibc.
        .target(name: "TapgridCore", linkerSettings: [.linkedLibrary("m")]),
        // GNU-only libc calls (accept4, pipe2, spawn closefrom, pidfd, wait macros) that Swift's Glibc hides.
        .target(name: "CShims", cSettings: [.define("_GNU_SOURCE")]),
        // The only module that calls libc: fds, sockets, epoll, signals, spawn, files.
        .target(name: "TapgridSystem", dependencies: ["CShims"]),
        // libsystemd (sd-daemon, sd-journal) through pkg-config; only a module map and a header.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // The only module that imports CSystemd: notifications, watchdog, passed sockets, journal.
        .target(name: "TapgridSystemd", dependencies: ["CSystemd", "TapgridSystem"]),
        // libinput + libudev through pkg-config; only a module map and a header.
        .systemLibrary(name: "CInput", pkgConfig: "libinput", providers: [.apt(["libinput-dev", "libudev-dev"])]),
        // The only module that imports CInput: touchscreens read through libinput, as plain Swift values.
        .target(name: "TapgridInput", dependencies: ["CInput", "TapgridSystem"]),
        // libmosquitto through its module map (Debian: libmosquitto-dev); only a module map and a header.
        .systemLibrary(name: "CMosquitto", providers: [.apt(["libmosquitto-dev"])]),
        // The only module that imports CMosquitto: a client driven by the caller's loop, errors naming the C function.
        .target(name: "TapgridMQTT", dependencies: ["CMosquitto"]),
        // libmicrohttpd through its module map (Debian: libmicrohttpd-dev); only a module map and a header.
        .systemLibrary(name: "CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
        // The only module that imports CMicroHTTPD: an HTTP server driven by the caller's loop, with event streams.
        .target(name: "TapgridHTTP", dependencies: ["CMicroHTTPD", "TapgridSystem"]),
        // Reads config and layout files from disk into the core's model.
        .target(name: "TapgridConfig", dependencies: ["TapgridCore", "TapgridSystem", "TapgridArguments"]),
        // Command lines of both programs: parsing, usage errors, help texts, default paths. Pure.
        .target(name: "TapgridArguments"),
        // The daemon: event loop, protocol server, handlers, children, event log.
        .target(name: "TapgridDaemon", dependencies: ["TapgridCore", "TapgridSystem", "TapgridSystemd", "TapgridConfig", "TapgridArguments", "TapgridInput", "TapgridMQTT", "TapgridHTTP"],
            resources: [.embedInCode("Panel/page.html")]),
        // The command-line tool as a library: takes arguments, returns an exit code.
        .target(name: "TapgridCLI", dependencies: ["TapgridCore", "TapgridSystem", "TapgridConfig", "TapgridArguments"]),
        .executableTarget(name: "tapgrid", dependencies: ["TapgridCLI"]),
        .executableTarget(name: "tapgridd", dependencies: ["TapgridDaemon"]),
        .executableTarget(
            name: "tapgrid-bench", dependencies: ["TapgridCore", "TapgridConfig", "TapgridSystem"],
            path: "Benchmarks/tapgrid-bench"),
        // What the test suites share: the one Unix-socket line client, temporary folders, running a
        // program, the `tapgridd` launcher and JSON-object reads. Foundation and Glibc only.
        .target(name: "TapgridTestSupport", path: "Tests/TestSupport"),
        .testTarget(
            name: "TapgridCoreTests", dependencies: ["TapgridCore"],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "TapgridSystemTests", dependencies: ["TapgridSystem", "TapgridTestSupport"]),
        .testTarget(name: "TapgridSystemdTests", dependencies: ["TapgridSystemd", "TapgridSystem", "TapgridTestSupport"]),
        .testTarget(name: "TapgridMQTTTests", dependencies: ["TapgridMQTT", "TapgridTestSupport"]),
        .testTarget(name: "TapgridArgumentsTests", dependencies: ["TapgridArguments"]),
        .testTarget(name: "TapgridInputTests", dependencies: ["TapgridInput", "TapgridSystem"]),
        .testTarget(name: "TapgridCLITests", dependencies: ["TapgridCLI", "TapgridConfig", "TapgridTestSupport"]),
        // Runs the built binaries, so it depends on them to have `swift test` relink them first.
        .testTarget(name: "EndToEndTests", dependencies: ["TapgridCore", "TapgridTestSupport", "tapgridd", "tapgrid"]),
        .testTarget(
            name: "TapgridDaemonTests", dependencies: ["TapgridDaemon", "TapgridCore", "TapgridSystem", "TapgridInput", "TapgridTestSupport"]),
    ]
)
