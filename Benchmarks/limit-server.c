/* The C reference of `make bench` and Benchmarks/fleet-bench.py: a single-thread epoll server
 * answering tapgrid's tap lines over a Unix socket, written with care so that what it costs is
 * the work itself: lines scanned and numbers parsed by hand (no strtod), numbers and the time
 * formatted by hand (no printf; one clock read per read(2), the date made once a second), the
 * hit-test through a bucket index built at start (the first leaf containing the point, in
 * tapgridd's hit order), and per loop wakeup one write(2) for each kind of output. Per request line
 * it appends a reply shaped like tapgridd's:
 *   {"seq":N,"layout":"bench","generation":1,"hit":{"path":"..","name":null,"tag":T,"actionData":null},
 *    "handler":"audit","outcome":"dispatched"}       (a miss: "hit":null,"handler":null,"outcome":"miss")
 * Past 1 MiB of unsent replies a client is not read until they drain (tapgridd's flow control).
 * Nothing else, unless asked:
 *   --log DIR     tapgridd's writes for a `log` route: per tap the event-log record tapgridd writes
 *                 (its fields in its order, x and y as the request wrote them) and, for a tap the
 *                 `log` handler takes, its log line (`tapgridd: tap seq=N layout="bench" grid="P"
 *                 name=null tag=T handler="audit" actionData=null`); per wakeup the records of
 *                 every connection with one write(2) before any reply is sent, then the replies,
 *                 then the log lines with one write(2): tapgridd's order.
 *   --mqtt HOST PORT NODE
 *                 (with --log; built with -DWITH_MQTT -lmosquitto, as Benchmarks/fleet-bench.py
 *                 builds limit-server-mqtt) tapgridd's fleet work per tap: its record on tapgrid/NODE/events
 *                 and, unless a miss, "tap" on tapgrid/NODE/action/bench/<cell> with a message
 *                 expiry (30 s less its age), both QoS 1 over MQTT 5, with tapgridd's windows (at
 *                 most 100 records and 1,000 actions unacknowledged) and bound (at most 10,000
 *                 actions wait, the oldest dropped first); a wakeup's publishes in one
 *                 round at its end, at most every 2 ms while taps keep coming (tapgridd's pacing),
 *                 written with TCP_CORK around one mosquitto_loop_write. libmosquitto runs on this
 *                 loop alone, no library thread: mosquitto_loop_read while it keeps handling
 *                 packets (see mqtt_read), loop_write when the socket is writable and the library
 *                 wants it, loop_misc once a second. {"op":"status"} also answers
 *                 "mqtt":{"connected":B,"backlog":N,"published":N}, as tapgridd's status does.
 *   --spawn-tag T taps on leaves tagged T start `/bin/sh -c "exit 0"` (at most 64 at a time, the
 *                 rest queued) and are reaped through a signalfd; {"op":"status"} answers
 *                 {"reaped":N,"running":M,"queued":Q}.
 * With NOTIFY_SOCKET set it sends READY=1 once it listens (as tapgridd does under systemd).
 * usage: limit-server SOCKET LEAVES [--log DIR] [--mqtt HOST PORT NODE] [--spawn-tag T]
 * LEAVES: one leaf per line, "x y w h tag path" (tag -1: none), in tapgridd's hit order. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#ifdef WITH_MQTT
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
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

static void die(const char *what) {
    fprintf(stderr, "limit-server: %s\n", what);
    exit(1);
}

/* ---- Output: growable byte buffers ---- */

typedef struct { char *data; size_t len, cap; } Buf;

/* Room for `more` bytes at the end; returns where they go. */
static char *reserve(Buf *b, size_t more) {
    if (b->len + more > b->cap) {
        while (b->len + more > b->cap) b->cap = b->cap ? b->cap * 2 : 1 << 16;
        if (!(b->data = realloc(b->data, b->cap))) die("out of memory");
    }
    return b->data + b->len;
}

static char *put_u(char *p, unsigned long long v) {
    char tmp[24];
    int n = 0;
    do { tmp[n++] = (char)('0' + v % 10); v /= 10; } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

static char *put_s(char *p, const char *s, size_t n) { memcpy(p, s, n); return p + n; }
#define PUT(p, lit) put_s(p, lit, sizeof lit - 1)

static char *put_tag(char *p, long tag) {
    return tag >= 0 ? put_u(p, (unsigned long long)tag) : PUT(p, "null");
}

/* ---- The layout: leaves and a bucket index over them ---- */

typedef struct { double x, y, w, h; long tag; char path[32]; int pathlen; } Leaf;
static Leaf *leaves;
static int nleaves;

/* BUCKETS x BUCKETS cells over the leaves' bounds; each lists the leaves overlapping it in hit
 * order, so the first that contains a point is the first of all leaves that does. */
#define BUCKETS 32
static double minx, miny, maxx, maxy, cellw, cellh;
static int *bucket_first; /* BUCKETS*BUCKETS + 1 offsets into bucket_leaf */
static int *bucket_leaf;

static int cell_of(double v, double origin, double size) {
    double f = (v - origin) / size;
    if (f < 0) return 0;
    return f >= BUCKETS ? BUCKETS - 1 : (int)f;
}

static void build_index(void) {
    minx = miny = 1e300;
    maxx = maxy = -1e300;
    for (int i = 0; i < nleaves; i++) {
        const Leaf *l = &leaves[i];
        if (l->x < minx) minx = l->x;
        if (l->y < miny) miny = l->y;
        if (l->x + l->w > maxx) maxx = l->x + l->w;
        if (l->y + l->h > maxy) maxy = l->y + l->h;
    }
    cellw = maxx > minx ? (maxx - minx) / BUCKETS : 1;
    cellh = maxy > miny ? (maxy - miny) / BUCKETS : 1;
    bucket_first = calloc(BUCKETS * BUCKETS + 1, sizeof *bucket_first);
    for (int pass = 0; pass < 2; pass++) {
        int *fill = pass ? calloc(BUCKETS * BUCKETS, sizeof *fill) : NULL;
        for (int i = 0; i < nleaves; i++) {
            const Leaf *l = &leaves[i];
            int x0 = cell_of(l->x, minx, cellw), x1 = cell_of(l->x + l->w, minx, cellw);
            int y0 = cell_of(l->y, miny, cellh), y1 = cell_of(l->y + l->h, miny, cellh);
            for (int by = y0; by <= y1; by++)
                for (int bx = x0; bx <= x1; bx++) {
                    int b = by * BUCKETS + bx;
                    if (pass) bucket_leaf[bucket_first[b] + fill[b]++] = i;
                    else bucket_first[b + 1]++;
                }
        }
        if (!pass) {
            for (int b = 0; b < BUCKETS * BUCKETS; b++) bucket_first[b + 1] += bucket_first[b];
            bucket_leaf = malloc((bucket_first[BUCKETS * BUCKETS] + 1) * sizeof *bucket_leaf);
        }
        free(fill);
    }
}

static const Leaf *hit_test(double x, double y) {
    if (!(x >= minx && x < maxx && y >= miny && y < maxy)) return NULL;
    int b = cell_of(y, miny, cellh) * BUCKETS + cell_of(x, minx, cellw);
    for (int k = bucket_first[b]; k < bucket_first[b + 1]; k++) {
        const Leaf *l = &leaves[bucket_leaf[k]];
        if (x >= l->x && x < l->x + l->w && y >= l->y && y < l->y + l->h) return l;
    }
    return NULL;
}

/* ---- Request lines ---- */

static const double POW10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* A JSON number at p (optional '-', digits, optional '.' and digits; no exponent, at most 15
 * digits, so the value is one correctly rounded division: what strtod gives). Returns its end. */
static const char *parse_number(const char *p, const char *end, double *out) {
    int neg = p < end && *p == '-';
    p += neg;
    unsigned long long m = 0;
    int digits = 0, decimals = 0;
    while (p < end && (unsigned)(*p - '0') < 10) { m = m * 10 + (unsigned)(*p++ - '0'); digits++; }
    if (!digits) return NULL;
    if (p < end && *p == '.') {
        p++;
        while (p < end && (unsigned)(*p - '0') < 10) { m = m * 10 + (unsigned)(*p++ - '0'); digits++; decimals++; }
        if (!decimals) return NULL;
    }
    if (digits > 15 || (p < end && (*p == 'e' || *p == 'E'))) return NULL;
    double v = (double)m / POW10[decimals];
    *out = neg ? -v : v;
    return p;
}

/* What tapgridd copies into its record as written: an integer (not -0, no leading zero) or 1 to
 * 3 decimals not ending in 0 (RequestScanner.isCanonical). */
static int canonical(const char *s, size_t n) {
    const char *p = s, *end = s + n;
    if (p < end && *p == '-') p++;
    if (end - p > 1 && *p == '0' && p[1] != '.') return 0;
    const char *dot = memchr(p, '.', (size_t)(end - p));
    if (dot) {
        size_t decimals = (size_t)(end - dot - 1);
        if (decimals > 3 || end[-1] == '0') return 0;
    } else if (n == 2 && s[0] == '-' && s[1] == '0') {
        return 0;
    }
    return 1;
}

/* A number as tapgridd writes one it did not copy: integral, or up to 3 decimals, zeros trimmed. */
static char *put_number(char *p, double v) {
    if (v < 0) { *p++ = '-'; v = -v; }
    unsigned long long milli = (unsigned long long)(v * 1000 + 0.5);
    p = put_u(p, milli / 1000);
    unsigned f = (unsigned)(milli % 1000);
    if (f) {
        *p++ = '.';
        *p++ = (char)('0' + f / 100);
        if (f % 100) { *p++ = (char)('0' + f / 10 % 10); if (f % 10) *p++ = (char)('0' + f % 10); }
    }
    return p;
}

typedef struct { double x, y; const char *xs, *ys; size_t xn, yn; } Tap;

/* "x" and "y" of a line, in any order, with optional spaces. */
static int parse_tap(const char *line, const char *end, Tap *t) {
    int have = 0;
    for (const char *p = line; p + 3 < end; p++) {
        if (p[0] != '"' || (p[1] != 'x' && p[1] != 'y') || p[2] != '"') continue;
        char key = p[1];
        p += 3;
        while (p < end && (*p == ' ' || *p == ':')) p++;
        double v;
        const char *stop = parse_number(p, end, &v);
        if (!stop) return 0;
        if (key == 'x') { t->x = v; t->xs = p; t->xn = (size_t)(stop - p); have |= 1; }
        else { t->y = v; t->ys = p; t->yn = (size_t)(stop - p); have |= 2; }
        p = stop - 1;
    }
    return have == 3;
}

/* ---- The event log's time: "2026-12-06T07:25:15.920Z", the date part made once a second ---- */

static char stamp[20]; /* "YYYY-MM-DDTHH:MM:SS." */
static time_t stamp_second = -1;

static void two(char *p, unsigned v) { p[0] = (char)('0' + v / 10); p[1] = (char)('0' + v % 10); }

static char *put_time(char *p, const struct timespec *now) {
    if (now->tv_sec != stamp_second) {
        stamp_second = now->tv_sec;
        long long days = now->tv_sec / 86400, secs = now->tv_sec % 86400;
        /* civil_from_days (H. Hinnant) */
        long long z = days + 719468, era = z / 146097;
        unsigned doe = (unsigned)(z - era * 146097);
        unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
        long long year = (long long)yoe + era * 400;
        unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        unsigned mp = (5 * doy + 2) / 153, day = doy - (153 * mp + 2) / 5 + 1;
        unsigned month = mp < 10 ? mp + 3 : mp - 9;
        year += month <= 2;
        two(stamp, (unsigned)(year / 100));
        two(stamp + 2, (unsigned)(year % 100));
        stamp[4] = '-';
        two(stamp + 5, month);
        stamp[7] = '-';
        two(stamp + 8, day);
        stamp[10] = 'T';
        two(stamp + 11, (unsigned)(secs / 3600));
        stamp[13] = ':';
        two(stamp + 14, (unsigned)(secs / 60 % 60));
        stamp[16] = ':';
        two(stamp + 17, (unsigned)(secs % 60));
        stamp[19] = '.';
    }
    p = put_s(p, stamp, sizeof stamp);
    unsigned ms = (unsigned)(now->tv_nsec / 1000000);
    p[0] = (char)('0' + ms / 100);
    two(p + 1, ms % 100);
    p[3] = 'Z';
    return p + 4;
}

/* ---- Connections ---- */

#define OUT_LIMIT (1 << 20)
#define IN_CAP (1 << 16)
typedef struct Conn {
    int fd, reading, dirty;
    char in[IN_CAP];
    size_t inlen;
    Buf out;
    size_t outoff;
    unsigned events;
    struct Conn *next_dirty;
} Conn;

static int ep;
static unsigned long long seq;
static int logfd = -1, linefd = -1;
/* The wakeup's records (`records.data[written..len)` not yet in the log; with MQTT,
 * `[published..written)` are in the log and wait for the broker) and log lines. */
static Buf records, lines;
static size_t written, published;
static char run_id[33];
static long spawn_tag = -2;
static long running, queued, reaped;
static Conn *dirty;
static struct timespec wall; /* the time of the current read */

/* ---- What the tap path keeps for the broker (with --mqtt) ---- */

static int mqtt_on, mq_connected;
static int records_in_flight, actions_in_flight;
static unsigned long long records_waiting, acked, dropped;
typedef struct { int leaf; uint64_t at; } Action;
static Action *actions;
static size_t actions_head, actions_tail, actions_cap;
static uint64_t now_ns, pump_due, misc_due;
#define MAX_WAITING 10000

static uint64_t monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void start_child(void) {
    static char *argv[] = {"/bin/sh", "-c", "exit 0", NULL};
    pid_t pid;
    if (posix_spawn(&pid, "/bin/sh", NULL, NULL, argv, environ) == 0) running++;
}

static void answer_status(Conn *c) {
    char *p = reserve(&c->out, 256), *start = p;
    p = PUT(p, "{\"reaped\":"); p = put_u(p, (unsigned long long)reaped);
    p = PUT(p, ",\"running\":"); p = put_u(p, (unsigned long long)running);
    p = PUT(p, ",\"queued\":"); p = put_u(p, (unsigned long long)queued);
    if (mqtt_on) {
        unsigned long long backlog = records_waiting + (unsigned)records_in_flight
            + (actions_tail - actions_head) + (unsigned)actions_in_flight;
        p = PUT(p, ",\"mqtt\":{\"connected\":");
        p = mq_connected ? PUT(p, "true") : PUT(p, "false");
        p = PUT(p, ",\"backlog\":"); p = put_u(p, backlog);
        p = PUT(p, ",\"published\":"); p = put_u(p, acked);
        p = PUT(p, ",\"dropped\":"); p = put_u(p, dropped);
        p = PUT(p, "}");
    }
    p = PUT(p, "}\n");
    c->out.len += (size_t)(p - start);
}

static void answer(Conn *c, const char *line, size_t len) {
    const char *end = line + len;
    if (len > 6 && memmem(line, len, "\"status\"", 8)) { answer_status(c); return; }
    Tap t = {0};
    if (!parse_tap(line, end, &t)) {
        char *p = reserve(&c->out, 80), *start = p;
        p = PUT(p, "{\"error\":{\"code\":\"bad_request\",\"message\":\"x and y are required\"}}\n");
        c->out.len += (size_t)(p - start);
        return;
    }
    const Leaf *hit = hit_test(t.x, t.y);
    int script = hit && hit->tag == spawn_tag;
    seq++;
    char *p = reserve(&c->out, 256), *start = p;
    p = PUT(p, "{\"seq\":");
    p = put_u(p, seq);
    p = PUT(p, ",\"layout\":\"bench\",\"generation\":1,\"hit\":");
    if (hit) {
        p = PUT(p, "{\"path\":\"");
        p = put_s(p, hit->path, (size_t)hit->pathlen);
        p = PUT(p, "\",\"name\":null,\"tag\":");
        p = put_tag(p, hit->tag);
        if (script) {
            p = PUT(p, ",\"actionData\":\"exit 0\"},\"handler\":\"sh\",\"outcome\":\"dispatched\"}\n");
            if (running < 64) start_child(); else queued++;
        } else {
            p = PUT(p, ",\"actionData\":null},\"handler\":\"audit\",\"outcome\":\"dispatched\"}\n");
        }
    } else {
        p = PUT(p, "null,\"handler\":null,\"outcome\":\"miss\"}\n");
    }
    c->out.len += (size_t)(p - start);
    if (logfd < 0) return;

    /* The event-log record, as tapgridd writes it. */
    char *r = reserve(&records, 512), *rstart = r;
    r = PUT(r, "{\"time\":\"");
    r = put_time(r, &wall);
    r = PUT(r, "\",\"run\":\"");
    r = put_s(r, run_id, 32);
    r = PUT(r, "\",\"seq\":");
    r = put_u(r, seq);
    r = PUT(r, ",\"layout\":\"bench\",\"generation\":1,\"x\":");
    r = canonical(t.xs, t.xn) ? put_s(r, t.xs, t.xn) : put_number(r, t.x);
    r = PUT(r, ",\"y\":");
    r = canonical(t.ys, t.yn) ? put_s(r, t.ys, t.yn) : put_number(r, t.y);
    if (hit) {
        r = PUT(r, ",\"hit\":\"");
        r = put_s(r, hit->path, (size_t)hit->pathlen);
        r = PUT(r, "\",\"name\":null,\"tag\":");
        r = put_tag(r, hit->tag);
        r = script ? PUT(r, ",\"actionData\":\"exit 0\",\"handler\":\"sh\",\"outcome\":\"dispatched\"}\n")
                   : PUT(r, ",\"actionData\":null,\"handler\":\"audit\",\"outcome\":\"dispatched\"}\n");
    } else {
        r = PUT(r, ",\"hit\":null,\"name\":null,\"tag\":null,\"actionData\":null,\"handler\":null,\"outcome\":\"miss\"}\n");
    }
    records.len += (size_t)(r - rstart);

    /* The `log` handler's line. */
    if (hit && !script) {
        char *l = reserve(&lines, 160), *lstart = l;
        l = PUT(l, "tapgridd: tap seq=");
        l = put_u(l, seq);
        l = PUT(l, " layout=\"bench\" grid=\"");
        l = put_s(l, hit->path, (size_t)hit->pathlen);
        l = PUT(l, "\" name=null tag=");
        l = put_tag(l, hit->tag);
        l = PUT(l, " handler=\"audit\" actionData=null\n");
        lines.len += (size_t)(l - lstart);
    }

    /* The broker's share: the record (from the log, after it is written) and the action. */
    if (mqtt_on) {
        records_waiting++;
        if (hit) {
            /* At most 10,000 wait, the oldest dropped first (Fleet.maxQueued). */
            if (actions_tail - actions_head == MAX_WAITING) {
                actions_head++;
                dropped++;
            }
            if (actions_tail == actions_cap) {
                if (actions_head > actions_cap / 2) {
                    memmove(actions, actions + actions_head, (actions_tail - actions_head) * sizeof *actions);
                    actions_tail -= actions_head;
                    actions_head = 0;
                } else {
                    actions_cap = actions_cap ? actions_cap * 2 : 4096;
                    if (!(actions = realloc(actions, actions_cap * sizeof *actions))) die("out of memory");
                }
            }
            actions[actions_tail++] = (Action){(int)(hit - leaves), now_ns};
        }
    }
}

static void watch(Conn *c) {
    unsigned want = 0;
    if (c->reading && c->out.len - c->outoff <= OUT_LIMIT) want |= EPOLLIN;
    if (c->out.len > c->outoff) want |= EPOLLOUT;
    if (want == c->events) return;
    struct epoll_event ev = {.events = want, .data.ptr = c};
    epoll_ctl(ep, want && !c->events ? EPOLL_CTL_ADD : (want ? EPOLL_CTL_MOD : EPOLL_CTL_DEL), c->fd, &ev);
    c->events = want;
}

static void drop(Conn *c) {
    epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    free(c->out.data);
    free(c);
}

/* Sends what waits; returns -1 when the connection is gone. */
static int flush(Conn *c) {
    while (c->outoff < c->out.len) {
        ssize_t n = send(c->fd, c->out.data + c->outoff, c->out.len - c->outoff, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN) break;
            if (errno == EINTR) continue;
            return -1;
        }
        c->outoff += (size_t)n;
    }
    if (c->outoff == c->out.len) c->outoff = c->out.len = 0;
    else if (c->outoff >= OUT_LIMIT) {
        memmove(c->out.data, c->out.data + c->outoff, c->out.len - c->outoff);
        c->out.len -= c->outoff;
        c->outoff = 0;
    }
    return 0;
}

static void serve(Conn *c, unsigned events) {
    if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c->reading && c->out.len - c->outoff <= OUT_LIMIT) {
        ssize_t n = read(c->fd, c->in + c->inlen, IN_CAP - c->inlen);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) c->reading = 0;
        if (n > 0) {
            if (logfd >= 0) clock_gettime(CLOCK_REALTIME, &wall);
            c->inlen += (size_t)n;
            size_t start = 0;
            char *nl;
            while ((nl = memchr(c->in + start, '\n', c->inlen - start))) {
                answer(c, c->in + start, (size_t)(nl - (c->in + start)));
                start = (size_t)(nl - c->in) + 1;
            }
            memmove(c->in, c->in + start, c->inlen - start);
            c->inlen -= start;
            if (c->inlen == IN_CAP) c->inlen = 0; /* an over-long line: dropped */
        }
    }
    if (!c->dirty) {
        c->dirty = 1;
        c->next_dirty = dirty;
        dirty = c;
    }
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

/* ---- MQTT on this loop (built with -DWITH_MQTT and -lmosquitto, by Benchmarks/fleet-bench.py) ---- */

#ifdef WITH_MQTT
#define RECORD_WINDOW 100     /* EventFeed.window */
#define ACTION_WINDOW 1000    /* Fleet.actionWindow */
#define PACE_NS 2000000ull    /* Fleet.pumpIntervalNanos */
#define MAX_AGE_NS 30000000000ull /* mqtt.maxAgeSeconds' default */

static struct mosquitto *mq;
static int mq_fd = -1;
static unsigned mq_events;
static char mq_token;
static char events_topic[128];
static char **action_topic; /* per leaf */
static mosquitto_property *expiry[31]; /* message expiry properties, 1..30 s, made once */
static unsigned char mid_kind[65536];  /* 1: a record, 2: an action */
static unsigned long long handled;     /* callbacks run: packets handled */
static uint64_t last_pump;

static void mqtt_fail(const char *call, int rc) {
    fprintf(stderr, "limit-server: %s: %s\n", call, mosquitto_strerror(rc));
    exit(1);
}

static void on_connect(struct mosquitto *m, void *u, int rc) {
    (void)m; (void)u;
    handled++;
    if (rc) { fprintf(stderr, "limit-server: the broker refused the connection (%d)\n", rc); exit(1); }
    mq_connected = 1;
}

static void on_publish(struct mosquitto *m, void *u, int mid) {
    (void)m; (void)u;
    handled++;
    unsigned char kind = mid_kind[mid & 0xFFFF];
    if (kind == 1) records_in_flight--;
    else if (kind == 2) actions_in_flight--;
    mid_kind[mid & 0xFFFF] = 0;
    acked++;
}

static void on_disconnect(struct mosquitto *m, void *u, int rc) {
    (void)m; (void)u;
    fprintf(stderr, "limit-server: lost the broker (%d)\n", rc);
    exit(1);
}

static void mqtt_watch(void) {
    unsigned want = EPOLLIN | (mosquitto_want_write(mq) ? EPOLLOUT : 0);
    if (want == mq_events) return;
    struct epoll_event ev = {.events = want, .data.ptr = &mq_token};
    epoll_ctl(ep, mq_events ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, mq_fd, &ev);
    mq_events = want;
}

/* mosquitto_loop_read stops after a packet whenever errno says EAGAIN, and a PUBACK that lets a
 * message the library queued (past the broker's receive maximum) go out writes a byte to the
 * library's own socketpair, which nothing reads: once it is full, that write's EAGAIN ends the
 * call after one packet. So: call again while a call handled something (a callback ran); the
 * last call finds the socket empty. */
static void mqtt_read(void) {
    for (int calls = 0; calls < 256; calls++) {
        unsigned long long before = handled;
        errno = 0;
        int rc = mosquitto_loop_read(mq, 1);
        if (rc != MOSQ_ERR_SUCCESS) mqtt_fail("mosquitto_loop_read", rc);
        if (handled == before) break;
    }
    int one = 1;
    setsockopt(mq_fd, IPPROTO_TCP, TCP_QUICKACK, &one, sizeof one); /* as tapgridd's FleetLink */
}

static void mqtt_write(int corked) {
    if (!mosquitto_want_write(mq)) return;
    int on = 1, off = 0;
    if (corked) setsockopt(mq_fd, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
    int rc = mosquitto_loop_write(mq, 1);
    if (corked) setsockopt(mq_fd, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
    if (rc != MOSQ_ERR_SUCCESS) mqtt_fail("mosquitto_loop_write", rc);
}

/* One publishing round: records from the log and actions, within their windows, then one
 * corked write. */
static void pump(void) {
    last_pump = now_ns;
    int mid;
    while (records_in_flight < RECORD_WINDOW && published < written) {
        const char *start = records.data + published;
        const char *nl = memchr(start, '\n', written - published);
        int rc = mosquitto_publish(mq, &mid, events_topic, (int)(nl - start), start, 1, false);
        if (rc != MOSQ_ERR_SUCCESS) mqtt_fail("mosquitto_publish", rc);
        mid_kind[mid & 0xFFFF] = 1;
        records_in_flight++;
        records_waiting--;
        published = (size_t)(nl - records.data) + 1;
    }
    while (actions_head < actions_tail && actions_in_flight < ACTION_WINDOW) {
        Action a = actions[actions_head++];
        uint64_t age = now_ns - a.at;
        if (age > MAX_AGE_NS) { dropped++; continue; }
        uint64_t seconds = (MAX_AGE_NS - age + 999999999) / 1000000000;
        int rc = mosquitto_publish_v5(mq, &mid, action_topic[a.leaf], 3, "tap", 1, false, expiry[seconds ? seconds : 1]);
        if (rc != MOSQ_ERR_SUCCESS) mqtt_fail("mosquitto_publish_v5", rc);
        mid_kind[mid & 0xFFFF] = 2;
        actions_in_flight++;
    }
    if (actions_head == actions_tail) actions_head = actions_tail = 0;
    mqtt_write(1);
    mqtt_watch();
}

/* tapgridd's Fleet.afterWakeup: a round now when the last is 2 ms old, else one at that time
 * while something waits. */
static void mqtt_after_wakeup(void) {
    if (pump_due) {
        if (now_ns >= pump_due) { pump_due = 0; pump(); }
        return;
    }
    if (now_ns - last_pump >= PACE_NS) pump();
    else if (published < written || actions_head < actions_tail || mosquitto_want_write(mq)) pump_due = last_pump + PACE_NS;
}

static void mqtt_start(const char *host, int port, const char *node) {
    if (logfd < 0) die("--mqtt needs --log");
    mosquitto_lib_init();
    char id[128], availability[160];
    snprintf(id, sizeof id, "tapgrid-%s", node);
    snprintf(availability, sizeof availability, "tapgrid/%s/availability", node);
    snprintf(events_topic, sizeof events_topic, "tapgrid/%s/events", node);
    action_topic = malloc((size_t)nleaves * sizeof *action_topic);
    for (int i = 0; i < nleaves; i++) {
        char key[32];
        for (int k = 0; k <= leaves[i].pathlen; k++) key[k] = leaves[i].path[k] == '/' ? '-' : leaves[i].path[k];
        action_topic[i] = malloc(256);
        snprintf(action_topic[i], 256, "tapgrid/%s/action/bench/%s", node, key);
    }
    for (int s = 1; s <= 30; s++)
        if (mosquitto_property_add_int32(&expiry[s], MQTT_PROP_MESSAGE_EXPIRY_INTERVAL, (uint32_t)s)) die("mosquitto_property_add_int32");
    if (!(mq = mosquitto_new(id, true, NULL))) die("mosquitto_new");
    mosquitto_int_option(mq, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(mq, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_threaded_set(mq, true); /* a publish only queues; this loop writes (as tapgridd) */
    mosquitto_will_set(mq, availability, 7, "offline", 1, true);
    mosquitto_connect_callback_set(mq, on_connect);
    mosquitto_publish_callback_set(mq, on_publish);
    mosquitto_disconnect_callback_set(mq, on_disconnect);
    int rc = mosquitto_connect(mq, host, port, 30);
    if (rc != MOSQ_ERR_SUCCESS) mqtt_fail("mosquitto_connect", rc);
    mq_fd = mosquitto_socket(mq);
    uint64_t deadline = monotonic() + 10000000000ull;
    while (!mq_connected) {
        mqtt_write(0);
        mqtt_read();
        if (monotonic() > deadline) die("no CONNACK within 10 s");
        usleep(1000);
    }
    mqtt_watch();
    misc_due = monotonic() + 1000000000ull;
    mqtt_on = 1;
}

static void mqtt_end_of_wakeup(void) {
    mqtt_after_wakeup();
    if (now_ns >= misc_due) {
        int rc = mosquitto_loop_misc(mq);
        if (rc != MOSQ_ERR_SUCCESS) mqtt_fail("mosquitto_loop_misc", rc);
        misc_due = now_ns + 1000000000ull;
        mqtt_watch();
    }
}
#endif

/* ---- The loop ---- */

static void end_of_wakeup(void) {
    if (logfd >= 0 && records.len > written) {
        if (write(logfd, records.data + written, records.len - written) < 0) die("write to the event log");
        written = records.len;
        if (!mqtt_on) records.len = written = published = 0;
    }
    while (dirty) {
        Conn *c = dirty;
        dirty = c->next_dirty;
        c->dirty = 0;
        if (flush(c) < 0 || (!c->reading && c->outoff == c->out.len)) drop(c);
        else watch(c);
    }
    if (linefd >= 0 && lines.len) {
        if (write(linefd, lines.data, lines.len) < 0) die("write to the log");
        lines.len = 0;
    }
    if (mqtt_on) {
#ifdef WITH_MQTT
        mqtt_end_of_wakeup();
#endif
        /* Records published and in the log: their bytes go. */
        if (published == records.len) {
            records.len = written = published = 0;
        } else if (published > (1 << 20) && published > records.len / 2) {
            memmove(records.data, records.data + published, records.len - published);
            records.len -= published;
            written -= published;
            published = 0;
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: limit-server SOCKET LEAVES [--log DIR] [--mqtt HOST PORT NODE] [--spawn-tag T]");
    const char *mqtt_host = NULL, *mqtt_node = NULL;
    int mqtt_port = 0;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--log") && i + 1 < argc) {
            char path[4096];
            snprintf(path, sizeof path, "%s/limit-events.jsonl", argv[++i]);
            logfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
            snprintf(path, sizeof path, "%s/limit-log.txt", argv[i]);
            linefd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
            if (logfd < 0 || linefd < 0) { perror("--log"); return 1; }
        } else if (!strcmp(argv[i], "--mqtt") && i + 3 < argc) {
            mqtt_host = argv[++i];
            mqtt_port = atoi(argv[++i]);
            mqtt_node = argv[++i];
        } else if (!strcmp(argv[i], "--spawn-tag") && i + 1 < argc) {
            spawn_tag = atol(argv[++i]);
        } else {
            fprintf(stderr, "limit-server: unknown option %s\n", argv[i]);
            return 64;
        }
    }
    FILE *f = fopen(argv[2], "r");
    if (!f) { perror(argv[2]); return 1; }
    int cap = 1024;
    leaves = malloc((size_t)cap * sizeof *leaves);
    Leaf l;
    while (fscanf(f, "%lf %lf %lf %lf %ld %31s", &l.x, &l.y, &l.w, &l.h, &l.tag, l.path) == 6) {
        l.pathlen = (int)strlen(l.path);
        if (nleaves == cap) leaves = realloc(leaves, (size_t)(cap *= 2) * sizeof *leaves);
        leaves[nleaves++] = l;
    }
    fclose(f);
    build_index();
    static const char hex[] = "0123456789abcdef";
    srand((unsigned)monotonic());
    for (int i = 0; i < 32; i++) run_id[i] = hex[rand() & 15];

    signal(SIGPIPE, SIG_IGN);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_NONBLOCK | SFD_CLOEXEC);
    ep = epoll_create1(EPOLL_CLOEXEC);
    if (mqtt_host) {
#ifdef WITH_MQTT
        mqtt_start(mqtt_host, mqtt_port, mqtt_node);
#else
        (void)mqtt_port; (void)mqtt_node;
        die("--mqtt: built without it (cc -DWITH_MQTT ... -lmosquitto)");
#endif
    }
    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    unlink(argv[1]);
    if (bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 512)) { perror("listen"); return 1; }
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
        struct timespec timeout, *wait = NULL;
        if (mqtt_on) {
            uint64_t due = pump_due && pump_due < misc_due ? pump_due : misc_due, now = monotonic();
            uint64_t left = due > now ? due - now : 0;
            timeout = (struct timespec){.tv_sec = (time_t)(left / 1000000000ull), .tv_nsec = (long)(left % 1000000000ull)};
            wait = &timeout;
        }
        /* epoll_pwait2 for a timeout in ns (the 2 ms rounds); epoll_wait where the kernel or
         * valgrind has not got it, its timeout in whole ms, rounded up. */
        static int no_pwait2;
        int n = -1;
        if (!no_pwait2 && (n = epoll_pwait2(ep, evs, 64, wait, NULL)) < 0 && errno == ENOSYS) no_pwait2 = 1;
        if (no_pwait2) n = epoll_wait(ep, evs, 64, wait ? (int)(wait->tv_sec * 1000 + (wait->tv_nsec + 999999) / 1000000) : -1);
        if (mqtt_on) now_ns = monotonic();
        for (int i = 0; i < n; i++) {
            void *token = evs[i].data.ptr;
            if (token == NULL) {
                int fd;
                while ((fd = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    Conn *c = calloc(1, sizeof *c);
                    c->fd = fd;
                    c->reading = 1;
                    watch(c);
                }
            } else if (token == &sfd) {
                reap(sfd);
#ifdef WITH_MQTT
            } else if (token == &mq_token) {
                if (evs[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) mqtt_read();
                mqtt_write(0);
                mqtt_watch();
#endif
            } else {
                serve(token, evs[i].events);
            }
        }
        end_of_wakeup();
    }
}
