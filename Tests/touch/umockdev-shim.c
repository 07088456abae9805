/* LD_PRELOAD companion of umockdev 0.17 (Debian 12) for libinput's sake, plus two faults a test
 * can ask for. Built by the touchscreen end-to-end tests:
 *     cc -shared -fPIC -O2 -o umockdev-shim.so umockdev-shim.c -ldl
 * and used as  LD_PRELOAD=umockdev-shim.so umockdev-run -d ... -- tapgridd ...
 *
 * The two gaps of umockdev 0.17 it bridges (0.19 and later need neither):
 *  - umockdev writes no udev database, so libudev reports every fake device as not initialized
 *    and libinput waits for it forever (path backend: 2 s, then "udev device never initialized";
 *    udev backend: skipped). udev_device_get_is_initialized() answers 1 here.
 *  - A fake node is really a pty (major 136-143). libinput fstat()s the descriptor it opened and
 *    compares that device number with the node's, so fstat()/fstat64() report the emulated number,
 *    which umockdev keeps as $UMOCKDEV_DIR/dev/.ptymap/_dev_pts_N -> "MAJOR:MINOR".
 *
 * Faults, each off unless its variable is set (PATH is matched as a suffix, since umockdev may
 * already have redirected it into $UMOCKDEV_DIR; times are CLOCK_MONOTONIC seconds):
 *  - TAPGRID_SHIM_DENY=all:PATH    open(PATH) fails with EACCES (no read permission).
 *    TAPGRID_SHIM_DENY=write:PATH  opening PATH for writing fails with EPERM, as under systemd's
 *                                  DeviceAllow=char-input r; read-only opens work.
 *  - TAPGRID_SHIM_UNINITIALIZED=1  every device is reported not initialized (as with no udevd).
 *  - TAPGRID_SHIM_NO_NETLINK=1  socket(AF_NETLINK, ...) fails with EAFNOSUPPORT, as under systemd's
 *    RestrictAddressFamilies=AF_UNIX.
 *  - TAPGRID_SHIM_UNPLUG=PATH:FROM:UNTIL  the device is unplugged from FROM to UNTIL: read() on a
 *    descriptor of PATH fails with ENODEV (what the kernel says after an unplug) and open(PATH)
 *    with ENOENT; afterwards both work again (replugged).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

int udev_device_get_is_initialized(void *device) {
    (void)device;
    return getenv("TAPGRID_SHIM_UNINITIALIZED") ? 0 : 1;
}

/* ---- fstat: the emulated device number of a umockdev pty ---- */

static void emulate_devnum(int fd, dev_t *rdev, mode_t mode) {
    const char *dir = getenv("UMOCKDEV_DIR");
    if (!dir || !S_ISCHR(mode) || major(*rdev) < 136 || major(*rdev) > 143) return;
    char link[64], target[256], map[512], devnum[32];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return;
    target[n] = 0;
    for (char *p = target; *p; p++)
        if (*p == '/') *p = '_';
    snprintf(map, sizeof map, "%s/dev/.ptymap/%s", dir, target);
    n = readlink(map, devnum, sizeof devnum - 1);
    if (n <= 0) return;
    devnum[n] = 0;
    unsigned maj, min;
    if (sscanf(devnum, "%u:%u", &maj, &min) == 2) *rdev = makedev(maj, min);
}

int fstat(int fd, struct stat *st) {
    static int (*real)(int, struct stat *);
    if (!real) real = (int (*)(int, struct stat *))dlsym(RTLD_NEXT, "fstat");
    int result = real(fd, st);
    if (result == 0) emulate_devnum(fd, &st->st_rdev, st->st_mode);
    return result;
}

int fstat64(int fd, struct stat64 *st) {
    static int (*real)(int, struct stat64 *);
    if (!real) real = (int (*)(int, struct stat64 *))dlsym(RTLD_NEXT, "fstat64");
    int result = real(fd, st);
    if (result == 0) emulate_devnum(fd, &st->st_rdev, st->st_mode);
    return result;
}

/* ---- faults ---- */

static int ends_with(const char *text, const char *suffix) {
    size_t a = strlen(text), b = strlen(suffix);
    return b > 0 && a >= b && strcmp(text + a - b, suffix) == 0;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* TAPGRID_SHIM_UNPLUG, parsed once; the descriptors open on that path. */
static char unplug_path[256];
static double unplug_from, unplug_until;
static int unplug_parsed;
static int unplug_fds[16];
static int unplug_fd_count;

static void parse_unplug(void) {
    if (unplug_parsed) return;
    unplug_parsed = 1;
    const char *spec = getenv("TAPGRID_SHIM_UNPLUG");
    if (!spec) return;
    const char *second = strrchr(spec, ':');
    if (!second || second == spec) return;
    const char *first = second - 1;
    while (first > spec && *first != ':') first--;
    if (first == spec || (size_t)(first - spec) >= sizeof unplug_path) return;
    memcpy(unplug_path, spec, first - spec);
    unplug_path[first - spec] = 0;
    unplug_from = atof(first + 1);
    unplug_until = atof(second + 1);
}

static int unplugged_now(void) {
    double now = now_seconds();
    return unplug_path[0] && now >= unplug_from && now < unplug_until;
}

/* The errno open(path, flags) must fail with, or 0. */
static int open_fault(const char *path, int flags) {
    const char *deny = getenv("TAPGRID_SHIM_DENY");
    if (deny && path) {
        if (strncmp(deny, "all:", 4) == 0 && ends_with(path, deny + 4)) return EACCES;
        if (strncmp(deny, "write:", 6) == 0 && ends_with(path, deny + 6) && (flags & O_ACCMODE) != O_RDONLY) return EPERM;
    }
    parse_unplug();
    if (path && unplug_path[0] && ends_with(path, unplug_path) && unplugged_now()) return ENOENT;
    return 0;
}

static int opened(const char *path, int fd) {
    if (fd >= 0 && path && unplug_path[0] && ends_with(path, unplug_path) && unplug_fd_count < 16)
        unplug_fds[unplug_fd_count++] = fd;
    return fd;
}

static int open_with(const char *name, const char *path, int flags, mode_t mode) {
    int fault = open_fault(path, flags);
    if (fault) {
        errno = fault;
        return -1;
    }
    int (*real)(const char *, int, ...) = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, name);
    return opened(path, real(path, flags, mode));
}

/* open and open64: the same wrapper (the mode argument only exists with O_CREAT/O_TMPFILE). */
#define OPEN_WRAPPER(name)                                  \
    int name(const char *path, int flags, ...) {            \
        mode_t mode = 0;                                    \
        if (flags & (O_CREAT | O_TMPFILE)) {                \
            va_list args;                                   \
            va_start(args, flags);                          \
            mode = va_arg(args, mode_t);                    \
            va_end(args);                                   \
        }                                                   \
        return open_with(#name, path, flags, mode);         \
    }
OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

int close(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "close");
    for (int i = 0; i < unplug_fd_count; i++)
        if (unplug_fds[i] == fd) unplug_fds[i] = unplug_fds[--unplug_fd_count];
    return real(fd);
}

ssize_t read(int fd, void *buffer, size_t count) {
    static ssize_t (*real)(int, void *, size_t);
    if (!real) real = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
    for (int i = 0; i < unplug_fd_count; i++) {
        if (unplug_fds[i] == fd && unplugged_now()) {
            errno = ENODEV;
            return -1;
        }
    }
    return real(fd, buffer, count);
}

int socket(int domain, int type, int protocol) {
    static int (*real)(int, int, int);
    if (!real) real = (int (*)(int, int, int))dlsym(RTLD_NEXT, "socket");
    if (domain == AF_NETLINK && getenv("TAPGRID_SHIM_NO_NETLINK")) {
        errno = EAFNOSUPPORT;
        return -1;
    }
    return real(domain, type, protocol);
}
