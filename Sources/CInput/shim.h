#ifndef CINPUT_SHIM_H
#define CINPUT_SHIM_H

/* libinput and libudev (Debian's libinput-dev and libudev-dev), imported only by the Swift module
 * TapgridInput.
 *
 * Nothing here needs wrapping: libinput's API is plain functions and opaque structs; the
 * open_restricted/close_restricted interface and the log handler are C function pointers that
 * Swift fills with non-capturing closures (the log handler's va_list arrives as a
 * CVaListPointer). libudev is only needed to create the context of the udev backend
 * (udev_new, udev_unref) and to look at a device's udev properties.
 *
 * Never define _GNU_SOURCE here (it changes glibc types that Swift's Glibc module also sees).
 * SwiftPM does not rebuild when only this header changes: touch a Swift file of TapgridInput
 * (or remove .build) after editing it. */
#include <libinput.h>
#include <libudev.h>

#endif
