// Compiled with -D_GNU_SOURCE (Package.swift); see CShims.h for why the header must not define it.
#include "CShims.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>

_Static_assert(CSHIMS_EPOLLIN == EPOLLIN, "EPOLLIN");
_Static_assert(CSHIMS_EPOLLPRI == EPOLLPRI, "EPOLLPRI");
_Static_assert(CSHIMS_EPOLLOUT == EPOLLOUT, "EPOLLOUT");
_Static_assert(CSHIMS_EPOLLERR == EPOLLERR, "EPOLLERR");
_Static_assert(CSHIMS_EPOLLHUP == EPOLLHUP, "EPOLLHUP");
_Static_assert(CSHIMS_EPOLLRDHUP == EPOLLRDHUP, "EPOLLRDHUP");
_Static_assert(CSHIMS_EPOLLET == (uint32_t)EPOLLET, "EPOLLET");
_Static_assert(CSHIMS_EPOLL_CTL_ADD == EPOLL_CTL_ADD, "EPOLL_CTL_ADD");
_Static_assert(CSHIMS_EPOLL_CTL_DEL == EPOLL_CTL_DEL, "EPOLL_CTL_DEL");
_Static_assert(CSHIMS_EPOLL_CTL_MOD == EPOLL_CTL_MOD, "EPOLL_CTL_MOD");
_Static_assert(sizeof(cshims_ucred) == sizeof(struct ucred), "ucred size");
_Static_assert(offsetof(cshims_ucred, pid) == offsetof(struct ucred, pid), "ucred pid");
_Static_assert(offsetof(cshims_ucred, uid) == offsetof(struct ucred, uid), "ucred uid");
_Static_assert(offsetof(cshims_ucred, gid) == offsetof(struct ucred, gid), "ucred gid");
_Static_assert(sizeof(gid_t) == sizeof(uint32_t), "gid_t");

int cshims_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }

int cshims_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    memset(&ev, 0, sizeof ev);
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

int cshims_epoll_wait(int epfd, cshims_epoll_event *out, int maxevents, int timeout_ms) {
    struct epoll_event evs[CSHIMS_EPOLL_MAX_EVENTS];
    if (maxevents > CSHIMS_EPOLL_MAX_EVENTS) maxevents = CSHIMS_EPOLL_MAX_EVENTS;
    if (maxevents < 1) { errno = EINVAL; return -1; }
    int n = epoll_wait(epfd, evs, maxevents, timeout_ms);
    for (int i = 0; i < n; i++) {
        out[i].data = evs[i].data.u64;
        out[i].events = evs[i].events;
    }
    return n;
}

int cshims_accept4(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

int cshims_peercred(int fd, cshims_ucred *out) {
    struct ucred cred;
    socklen_t len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0) return -1;
    out->pid = cred.pid;
    out->uid = cred.uid;
    out->gid = cred.gid;
    return 0;
}

int cshims_peergroups(int fd, uint32_t *gids, int capacity) {
    socklen_t len = (socklen_t)(capacity * (int)sizeof(gid_t));
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, gids, &len) != 0) {
        // The kernel reports ERANGE and the needed length when the buffer is too small.
        if (errno == ERANGE) return (int)(len / sizeof(gid_t));
        return -1;
    }
    return (int)(len / sizeof(gid_t));
}

int cshims_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

int cshims_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

int cshims_signalfd(const sigset_t *mask) { return signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK); }

int cshims_signalfd_read(int fd, uint32_t *signos, int capacity) {
    struct signalfd_siginfo infos[16];
    if (capacity > 16) capacity = 16;
    if (capacity < 1) { errno = EINVAL; return -1; }
    ssize_t n = read(fd, infos, sizeof infos[0] * (size_t)capacity);
    if (n < 0) return -1;
    int count = (int)(n / (ssize_t)sizeof infos[0]);
    for (int i = 0; i < count; i++) signos[i] = infos[i].ssi_signo;
    return count;
}

int cshims_timerfd_create(void) { return timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK); }

int cshims_timerfd_settime(int fd, uint64_t initial_ns, uint64_t interval_ns) {
    struct itimerspec spec;
    spec.it_value.tv_sec = (time_t)(initial_ns / 1000000000u);
    spec.it_value.tv_nsec = (long)(initial_ns % 1000000000u);
    spec.it_interval.tv_sec = (time_t)(interval_ns / 1000000000u);
    spec.it_interval.tv_nsec = (long)(interval_ns % 1000000000u);
    return timerfd_settime(fd, 0, &spec, NULL);
}

int cshims_pidfd_open(pid_t pid) { return (int)syscall(SYS_pidfd_open, pid, 0); }

int cshims_pidfd_send_signal(int pidfd, int sig) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, NULL, 0);
}

int cshims_signal_this_thread(int sig) { return (int)syscall(SYS_tgkill, getpid(), gettid(), sig); }

int cshims_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int cshims_spawn_addchdir(posix_spawn_file_actions_t *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int cshims_wifexited(int status) { return WIFEXITED(status); }
int cshims_wexitstatus(int status) { return WEXITSTATUS(status); }
int cshims_wifsignaled(int status) { return WIFSIGNALED(status); }
int cshims_wtermsig(int status) { return WTERMSIG(status); }

int64_t cshims_raise_nofile_limit(void) {
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
    if (rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) return -1;
    }
    return rl.rlim_cur == RLIM_INFINITY ? INT64_MAX : (int64_t)rl.rlim_cur;
}

ssize_t cshims_getrandom(void *buf, size_t len) { return getrandom(buf, len, 0); }

int cshims_malloc_trim(void) { return malloc_trim(0); }
