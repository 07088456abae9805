/* LD_PRELOAD companion of umockdev 0.17 (Debian 12) for libinput's sake: its two gaps bridged,
 * its replay stamped as a kernel would, and faults a test can ask for. Built by the touchscreen
 * end-to-end tests:
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
 * already have redirected it into $UMOCKDEV_DIR):
 *  - TAPGRID_SHIM_DENY=all:PATH    open(PATH) fails with EACCES (no read permission).
 *    TAPGRID_SHIM_DENY=write:PATH  opening PATH for writing fails with EPERM, as under systemd's
 *                                  DeviceAllow=char-input r; read-only opens work.
 *  - TAPGRID_SHIM_UNINITIALIZED=1  every device is reported not initialized (as with no udevd).
 *  - TAPGRID_SHIM_NO_NETLINK=1  socket(AF_NETLINK, ...) fails with EAFNOSUPPORT, as under systemd's
 *    RestrictAddressFamilies=AF_UNIX.
 *  - TAPGRID_SHIM_UNPLUG=PATH:FROM:UNTIL  the device is unplugged from FROM to UNTIL seconds after
 *    the replay's first event (as TAPGRID_SHIM_REPLAY logs it; plugged in until then): read() on a
 *    descriptor of PATH fails with ENODEV (what the kernel says after an unplug) and open(PATH)
 *    with ENOENT; afterwards both work again (replugged).
 *
 * The replay (umockdev-run -e FILE): umockdev 0.17 sleeps each recorded gap, then writes the
 * event with the timestamp the file gives it. Its first event goes out when umockdev-run has
 * started, which on a loaded machine is some hundreds of ms after its caller, and every sleep
 * only adds; so the events would carry times that had passed well before they could be read,
 * and a reader's timers (a long press 500 ms after a finger went down) would run before a lift
 * it could not read yet. A kernel stamps events as the device reports them, each frame with one
 * time: so here every frame written to the master of a pty that umockdev maps to an input device
 * (major 13) gets CLOCK_MONOTONIC as its first event is written. With TAPGRID_SHIM_REPLAY=FILE,
 * every event so written is also appended to FILE as `WRITTEN STAMP TYPE CODE VALUE` (when it was
 * written and the time it carries, both CLOCK_MONOTONIC `SEC.USEC`): what umockdev really wrote,
 * and when.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

int udev_device_get_is_initialized(void *device) {
    (void)device;
    return getenv("TAPGRID_SHIM_UNINITIALIZED") ? 0 : 1;
}

/* ---- fstat: the emulated device number of a umockdev pty ---- */

/* The device number umockdev emulates with the pty slave PTS ("/dev/pts/N"), or 0. */
static dev_t mapped_devnum(const char *pts) {
    const char *dir = getenv("UMOCKDEV_DIR");
    if (!dir) return 0;
    char name[256], map[512], devnum[32];
    snprintf(name, sizeof name, "%s", pts);
    for (char *p = name; *p; p++)
        if (*p == '/') *p = '_';
    snprintf(map, sizeof map, "%s/dev/.ptymap/%s", dir, name);
    ssize_t n = readlink(map, devnum, sizeof devnum - 1);
    if (n <= 0) return 0;
    devnum[n] = 0;
    unsigned maj, min;
    return sscanf(devnum, "%u:%u", &maj, &min) == 2 ? makedev(maj, min) : 0;
}

static void emulate_devnum(int fd, dev_t *rdev, mode_t mode) {
    if (!S_ISCHR(mode) || major(*rdev) < 136 || major(*rdev) > 143) return;
    char link[64], target[256];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) return;
    target[n] = 0;
    dev_t mapped = mapped_devnum(target);
    if (mapped) *rdev = mapped;
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

/* ---- the replay: events stamped as they are written, and logged ---- */

/* Whether fd is umockdev-run's end (the master) of a pty that stands for an input device. */
static int is_input_master(int fd) {
    struct stat st;
    unsigned number;
    if (syscall(SYS_fstat, fd, &st) != 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(5, 2)) return 0;
    if (syscall(SYS_ioctl, fd, TIOCGPTN, &number) != 0) return 0;
    char pts[32];
    snprintf(pts, sizeof pts, "/dev/pts/%u", number);
    dev_t mapped = mapped_devnum(pts);
    return mapped && major(mapped) == 13;
}

/* Per master descriptor: the stamp of the frame being written (until its SYN_REPORT). */
#define STAMPED_FDS 256
static struct {
    int open;
    struct timeval time;
} frames[STAMPED_FDS];
static int replay_log = -1;

static void log_event(struct timeval written, const struct input_event *event) {
    const char *path = getenv("TAPGRID_SHIM_REPLAY");
    if (!path) return;
    /* Raw system calls: neither this shim's wrappers nor umockdev's see the log. */
    if (replay_log < 0) replay_log = syscall(SYS_openat, AT_FDCWD, path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (replay_log < 0) return;
    char line[128];
    int n = snprintf(line, sizeof line, "%ld.%06ld %ld.%06ld %u %u %d\n", (long)written.tv_sec, (long)written.tv_usec,
                     (long)event->input_event_sec, (long)event->input_event_usec, event->type, event->code, event->value);
    if (n > 0) syscall(SYS_write, replay_log, line, (size_t)n);
}

ssize_t write(int fd, const void *buffer, size_t count) {
    static ssize_t (*real)(int, const void *, size_t);
    if (!real) real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    enum { most = 64 };
    struct input_event events[most];
    if (fd < 0 || count == 0 || count % sizeof events[0] != 0 || count > sizeof events || !is_input_master(fd))
        return real(fd, buffer, count);
    memcpy(events, buffer, count);
    size_t n = count / sizeof events[0];
    struct timeval now;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    now.tv_sec = ts.tv_sec;
    now.tv_usec = ts.tv_nsec / 1000;
    for (size_t i = 0; i < n; i++) {
        if (fd >= STAMPED_FDS) {
            events[i].input_event_sec = now.tv_sec;
            events[i].input_event_usec = now.tv_usec;
        } else {
            if (!frames[fd].open) frames[fd].time = now;
            frames[fd].open = !(events[i].type == EV_SYN && events[i].code == SYN_REPORT);
            events[i].input_event_sec = frames[fd].time.tv_sec;
            events[i].input_event_usec = frames[fd].time.tv_usec;
        }
    }
    ssize_t written = real(fd, events, count);
    for (ssize_t i = 0; written > 0 && i < written / (ssize_t)sizeof events[0]; i++) log_event(now, &events[i]);
    return written;
}

/* When the replay's first event was written (CLOCK_MONOTONIC seconds, from TAPGRID_SHIM_REPLAY's
 * first line), or -1 while nothing is written yet. */
static double replay_start(void) {
    static double start = -1;
    if (start >= 0) return start;
    const char *path = getenv("TAPGRID_SHIM_REPLAY");
    if (!path) return -1;
    int fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    char line[64];
    ssize_t n = syscall(SYS_read, fd, line, sizeof line - 1);
    syscall(SYS_close, fd);
    if (n <= 0 || !memchr(line, '\n', n)) return -1;
    line[n] = 0;
    start = atof(line);
    return start;
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
    if (!unplug_path[0]) return 0;
    double start = replay_start();
    if (start < 0) return 0;
    double now = now_seconds() - start;
    return now >= unplug_from && now < unplug_until;
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
    if (fd >= 0 && fd < STAMPED_FDS) frames[fd].open = 0;
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
