/* The "limit" of `make bench`: a minimal single-thread epoll server answering tapgrid's tap lines
 * over a Unix socket as fast as this machine lets a program do it. Per request line it parses
 * "x" and "y" (the only keys the benchmark sends, in any order, with optional spaces), hit-tests
 * the layout's leaves with a linear scan (the first leaf containing the point, as tapgridd's
 * "first sibling wins"), and appends a reply shaped like tapgridd's:
 *   {"seq":N,"layout":"bench","generation":1,"hit":{"path":"..","name":null,"tag":T,"actionData":null},
 *    "handler":"audit","outcome":"dispatched"}       (a miss: "hit":null,"handler":null,"outcome":"miss")
 * The replies of one read are sent with one write; past 1 MiB of unsent replies a client is not
 * read until they drain (the same flow control as tapgridd, so slow readers work here too).
 * Nothing else: no event log, no log lines, unless asked:
 *   --log DIR     also do tapgridd's writes: a ~250-byte event-log record per tap and a log line
 *                 per tap, each kind written with one write(2) per read, records before replies;
 *   --spawn-tag T taps on leaves tagged T start `/bin/sh -c "exit 0"` (at most 64 at a time, the
 *                 rest queued) and are reaped through a signalfd; {"op":"status"} answers
 *                 {"reaped":N,"running":M,"queued":Q}.
 * With NOTIFY_SOCKET set it sends READY=1 once it listens (as tapgridd does under systemd).
 * usage: limit-server SOCKET LEAVES [--log DIR] [--spawn-tag T]
 * LEAVES: one leaf per line, "x y w h tag path" (tag -1: none), in tapgridd's hit order. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

typedef struct { double x, y, w, h; long tag; char path[32]; int pathlen; } Leaf;
static Leaf *leaves;
static int nleaves;

#define OUT_LIMIT (1 << 20)
#define IN_CAP (1 << 16)
typedef struct {
    int fd, reading, closed;
    char in[IN_CAP];
    size_t inlen;
    char *out;
    size_t outlen, outoff, outcap;
    unsigned events;
} Conn;

static int ep;
static unsigned long long seq;
static int logfd = -1, linefd = -1;
static char *logbuf, *linebuf;
static size_t loglen, linelen, logcap = 1 << 22;
static long spawn_tag = -2;
static long running, queued, reaped;

static void out_reserve(Conn *c, size_t more) {
    if (c->outlen + more <= c->outcap) return;
    while (c->outlen + more > c->outcap) c->outcap *= 2;
    c->out = realloc(c->out, c->outcap);
}

static char *put_u(char *p, unsigned long long v) {
    char tmp[24];
    int n = 0;
    do { tmp[n++] = '0' + v % 10; v /= 10; } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

static char *put_s(char *p, const char *s, size_t n) { memcpy(p, s, n); return p + n; }
#define PUT(p, lit) put_s(p, lit, sizeof lit - 1)

/* The value after "key": in a line; 0 when absent. */
static int number_after(const char *line, const char *end, char key, double *out) {
    for (const char *p = line; p + 3 < end; p++) {
        if (p[0] == '"' && p[1] == key && p[2] == '"') {
            p += 3;
            while (p < end && (*p == ' ' || *p == ':')) p++;
            char *stop;
            *out = strtod(p, &stop);
            return stop != p;
        }
    }
    return 0;
}

static void start_child(void) {
    static char *argv[] = {"/bin/sh", "-c", "exit 0", NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) == 0) running++;
}

static void answer(Conn *c, const char *line, size_t len) {
    const char *end = line + len;
    if (len > 6 && memmem(line, len, "\"status\"", 8)) {
        out_reserve(c, 96);
        char *p = c->out + c->outlen;
        p = PUT(p, "{\"reaped\":"); p = put_u(p, reaped);
        p = PUT(p, ",\"running\":"); p = put_u(p, running);
        p = PUT(p, ",\"queued\":"); p = put_u(p, queued);
        p = PUT(p, "}\n");
        c->outlen = p - c->out;
        return;
    }
    double x, y;
    if (!number_after(line, end, 'x', &x) || !number_after(line, end, 'y', &y)) {
        out_reserve(c, 80);
        char *p = c->out + c->outlen;
        p = PUT(p, "{\"error\":{\"code\":\"bad_request\",\"message\":\"x and y are required\"}}\n");
        c->outlen = p - c->out;
        return;
    }
    const Leaf *hit = NULL;
    for (int i = 0; i < nleaves; i++) {
        const Leaf *l = &leaves[i];
        if (x >= l->x && x < l->x + l->w && y >= l->y && y < l->y + l->h) { hit = l; break; }
    }
    seq++;
    out_reserve(c, 256);
    char *p = c->out + c->outlen, *reply = p;
    p = PUT(p, "{\"seq\":");
    p = put_u(p, seq);
    p = PUT(p, ",\"layout\":\"bench\",\"generation\":1,\"hit\":");
    if (hit) {
        p = PUT(p, "{\"path\":\"");
        p = put_s(p, hit->path, hit->pathlen);
        p = PUT(p, "\",\"name\":null,\"tag\":");
        if (hit->tag >= 0) p = put_u(p, hit->tag); else p = PUT(p, "null");
        if (hit->tag == spawn_tag) {
            p = PUT(p, ",\"actionData\":\"exit 0\"},\"handler\":\"sh\",\"outcome\":\"dispatched\"}\n");
            if (running < 64) start_child(); else queued++;
        } else {
            p = PUT(p, ",\"actionData\":null},\"handler\":\"audit\",\"outcome\":\"dispatched\"}\n");
        }
    } else {
        p = PUT(p, "null,\"handler\":null,\"outcome\":\"miss\"}\n");
    }
    c->outlen = p - c->out;
    if (logfd >= 0) {
        if (loglen + 512 > logcap) { write(logfd, logbuf, loglen); loglen = 0; }
        char *r = logbuf + loglen;
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        r = PUT(r, "{\"time\":\"2026-11-29T10:00:00.");
        r = put_u(r, ts.tv_nsec / 1000000);
        r = PUT(r, "Z\",\"run\":\"5f0c00000000000000000000000000000\",");
        r = put_s(r, reply + 1, (size_t)(p - reply) - 1); /* the reply's fields, as a record */
        loglen = r - logbuf;
        char *l = linebuf + linelen;
        l = PUT(l, "tapgridd: tap seq=");
        l = put_u(l, seq);
        l = PUT(l, " layout=bench grid=");
        if (hit) l = put_s(l, hit->path, hit->pathlen);
        l = PUT(l, " handler=audit\n");
        linelen = l - linebuf;
    }
}

static void watch(Conn *c) {
    unsigned want = 0;
    if (c->reading && c->outlen - c->outoff <= OUT_LIMIT) want |= EPOLLIN;
    if (c->outlen > c->outoff) want |= EPOLLOUT;
    if (want == c->events) return;
    struct epoll_event ev = {.events = want, .data.ptr = c};
    epoll_ctl(ep, want && !c->events ? EPOLL_CTL_ADD : (want ? EPOLL_CTL_MOD : EPOLL_CTL_DEL), c->fd, &ev);
    c->events = want;
}

static void drop(Conn *c) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->out);
    free(c);
}

/* Sends what waits; returns -1 when the connection is gone. */
static int flush(Conn *c) {
    while (c->outoff < c->outlen) {
        ssize_t n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN) break;
            if (errno == EINTR) continue;
            return -1;
        }
        c->outoff += n;
    }
    if (c->outoff == c->outlen) c->outoff = c->outlen = 0;
    else if (c->outoff >= OUT_LIMIT) {
        memmove(c->out, c->out + c->outoff, c->outlen - c->outoff);
        c->outlen -= c->outoff;
        c->outoff = 0;
    }
    return 0;
}

static void serve(Conn *c, unsigned events) {
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->reading && c->outlen - c->outoff <= OUT_LIMIT) {
        ssize_t n = read(c->fd, c->in + c->inlen, IN_CAP - c->inlen);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) c->reading = 0;
        if (n > 0) {
            c->inlen += n;
            size_t start = 0;
            char *nl;
            while ((nl = memchr(c->in + start, '\n', c->inlen - start))) {
                answer(c, c->in + start, nl - (c->in + start));
                start = nl - c->in + 1;
            }
            memmove(c->in, c->in + start, c->inlen - start);
            c->inlen -= start;
            if (c->inlen == IN_CAP) c->inlen = 0; /* an over-long line: dropped */
            if (logfd >= 0 && loglen) { write(logfd, logbuf, loglen); loglen = 0; }
        }
    }
    if (flush(c) < 0 || (!c->reading && c->outoff == c->outlen)) { drop(c); return; }
    if (linefd >= 0 && linelen) { write(linefd, linebuf, linelen); linelen = 0; }
    watch(c);
}

static void reap(int sfd) {
    struct signalfd_siginfo info;
    while (read(sfd, &info, sizeof info) > 0) {}
    while (waitpid(-1, NULL, WNOHANG) > 0) {
        running--;
        reaped++;
        if (queued > 0) { queued--; start_child(); }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s SOCKET LEAVES [--log DIR] [--spawn-tag T]\n", argv[0]); return 64; }
    for (int i = 3; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--log")) {
            char path[4096];
            snprintf(path, sizeof path, "%s/limit-events.jsonl", argv[i + 1]);
            logfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
            snprintf(path, sizeof path, "%s/limit-log.txt", argv[i + 1]);
            linefd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
            logbuf = malloc(logcap);
            linebuf = malloc(logcap);
            if (logfd < 0 || linefd < 0) { perror("--log"); return 1; }
        } else if (!strcmp(argv[i], "--spawn-tag")) {
            spawn_tag = atol(argv[i + 1]);
        }
    }
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 1; }
    int cap = 1024;
    leaves = malloc(cap * sizeof *leaves);
    Leaf l;
    while (fscanf(f, "%lf %lf %lf %lf %ld %31s", &l.x, &l.y, &l.w, &l.h, &l.tag, l.path) == 6) {
        l.pathlen = strlen(l.path);
        if (nleaves == cap) leaves = realloc(leaves, (cap *= 2) * sizeof *leaves);
        leaves[nleaves++] = l;
    }
    fclose(f);

    signal(SIGPIPE, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    unlink(argv[1]);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 512)) { perror("listen"); return 1; }
    ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    struct epoll_event sev = {.events = EPOLLIN, .data.ptr = &sfd};
    epoll_ctl(ep, EPOLL_CTL_ADD, sfd, &sev);

    const char *notify = getenv("NOTIFY_SOCKET");
    if (notify && *notify) {
        int ns = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        struct sockaddr_un na = {.sun_family = AF_UNIX};
        strncpy(na.sun_path, notify, sizeof na.sun_path - 1);
        sendto(ns, "READY=1", 7, 0, (struct sockaddr *)&na, sizeof na);
        close(ns);
    }

    struct epoll_event evs[64];
    for (;;) {
        int n = epoll_wait(ep, evs, 64, -1);
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == NULL) {
                int fd;
                while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    Conn *c = calloc(1, sizeof *c);
                    c->fd = fd;
                    c->reading = 1;
                    c->outcap = 1 << 16;
                    c->out = malloc(c->outcap);
                    watch(c);
                }
            } else if (evs[i].data.ptr == &sfd) {
                reap(sfd);
            } else {
                serve(evs[i].data.ptr, evs[i].events);
            }
        }
    }
}
