// C shims for Linux/GNU calls that Swift's Glibc module does not expose.
//
// This header must NOT define _GNU_SOURCE (that breaks Swift's Glibc module map with
// "'__fds_bits' ... is not present in definition of 'fd_set'"). The GNU-only calls are made in
// shims.c, which is compiled with -D_GNU_SOURCE from Package.swift. Every function here returns
// -1 with errno set on failure (like the call it wraps) unless documented otherwise.
#ifndef CSHIMS_H
#define CSHIMS_H

#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <signal.h>
#include <spawn.h>

// ---- epoll (struct epoll_event is packed on x86_64, so Swift never sees it) ----
#define CSHIMS_EPOLLIN 0x001u
#define CSHIMS_EPOLLPRI 0x002u
#define CSHIMS_EPOLLOUT 0x004u
#define CSHIMS_EPOLLERR 0x008u
#define CSHIMS_EPOLLHUP 0x010u
#define CSHIMS_EPOLLRDHUP 0x2000u
#define CSHIMS_EPOLLET 0x80000000u
#define CSHIMS_EPOLL_CTL_ADD 1
#define CSHIMS_EPOLL_CTL_DEL 2
#define CSHIMS_EPOLL_CTL_MOD 3

/// One ready event with natural (unpacked) layout.
typedef struct cshims_epoll_event {
    uint64_t data;
    uint32_t events;
} cshims_epoll_event;

/// epoll_create1(EPOLL_CLOEXEC).
int cshims_epoll_create(void);
/// epoll_ctl with the event's data.u64 set to `data`.
int cshims_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// epoll_wait into `out` (at most `maxevents`, capped at CSHIMS_EPOLL_MAX_EVENTS); returns count.
#define CSHIMS_EPOLL_MAX_EVENTS 256
int cshims_epoll_wait(int epfd, cshims_epoll_event *out, int maxevents, int timeout_ms);

// ---- sockets ----
/// accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK).
int cshims_accept4(int fd);
/// Layout-identical copy of struct ucred (which needs _GNU_SOURCE).
typedef struct cshims_ucred {
    int32_t pid;
    uint32_t uid;
    uint32_t gid;
} cshims_ucred;
/// getsockopt(SO_PEERCRED).
int cshims_peercred(int fd, cshims_ucred *out);
/// getsockopt(SO_PEERGROUPS) into `gids` (capacity entries). Returns the number of groups the
/// peer has; if that is larger than `capacity`, nothing useful was written: call again with more.
int cshims_peergroups(int fd, uint32_t *gids, int capacity);

// ---- pipes, eventfd, signalfd, timerfd ----
/// pipe2(fds, flags).
int cshims_pipe2(int fds[2], int flags);
/// eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK).
int cshims_eventfd(void);
/// signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK).
int cshims_signalfd(const sigset_t *mask);
/// One read of up to `capacity` signalfd_siginfo records, storing ssi_signo of each into `signos`.
/// Returns the count (0 is never returned: EAGAIN and EINTR are -1 with errno; the Swift side's
/// `SystemCall` retries EINTR).
int cshims_signalfd_read(int fd, uint32_t *signos, int capacity);
/// timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK).
int cshims_timerfd_create(void);
/// timerfd_settime, relative. initial_ns == 0 disarms. interval_ns == 0 means one-shot.
int cshims_timerfd_settime(int fd, uint64_t initial_ns, uint64_t interval_ns);

// ---- processes ----
/// pidfd_open(pid, 0) via syscall(SYS_pidfd_open).
int cshims_pidfd_open(pid_t pid);
/// pidfd_send_signal(pidfd, sig, NULL, 0) via syscall(SYS_pidfd_send_signal).
int cshims_pidfd_send_signal(int pidfd, int sig);
/// tgkill(getpid(), gettid(), sig): a signal aimed at the calling thread only (for tests).
int cshims_signal_this_thread(int sig);
/// posix_spawn_file_actions_addclosefrom_np (glibc >= 2.34). Returns an error number.
int cshims_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);
/// posix_spawn_file_actions_addchdir_np (glibc >= 2.29). Returns an error number.
int cshims_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path);
int cshims_wifexited(int status);
int cshims_wexitstatus(int status);
int cshims_wifsignaled(int status);
int cshims_wtermsig(int status);

// ---- misc ----
/// Raises RLIMIT_NOFILE's soft limit to its hard limit. Returns the new soft limit (or -1).
int64_t cshims_raise_nofile_limit(void);
/// One getrandom(buf, len, 0): the count of random bytes written (maybe fewer than `len`), or -1
/// with errno (EINTR included: the Swift side's `SystemCall` retries it).
ssize_t cshims_getrandom(void *buf, size_t len);

// ---- memory (glibc malloc.h) ----
/// malloc_trim(0): gives free heap pages back to the kernel. Returns 1 if memory was released.
int cshims_malloc_trim(void);

#endif
