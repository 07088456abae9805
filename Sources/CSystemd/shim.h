#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

/* libsystemd (Debian's libsystemd-dev), imported only by the Swift module TapgridSystemd.
 *
 * sd-journal.h turns sd_journal_sendv() and friends into function-like macros that add
 * CODE_FILE=/CODE_LINE=/CODE_FUNC=; Swift cannot import those macros, so suppress them to make
 * the plain prototypes the only spelling. The Swift wrapper adds the CODE_* fields itself.
 *
 * Never define _GNU_SOURCE here: it changes glibc types such as fd_set, and Swift's Glibc
 * module (built without it) then clashes with this module on a clean build.
 * SwiftPM does not rebuild when only this header changes: touch a Swift file of
 * TapgridSystemd (or remove .build) after editing it. */
#define SD_JOURNAL_SUPPRESS_LOCATION 1

#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>
#include <sys/uio.h>

#endif
