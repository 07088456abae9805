/* `make bench`'s load client: drives any of the three servers with the same request lines over
 * a Unix socket and prints what it measured as one line of JSON.
 *
 *   load-client rr SOCKET LINES CLIENTS SECONDS
 *       request/response: CLIENTS connections, each sending one line and reading its reply
 *       before the next; every round trip is timed.
 *       -> {"ops":N,"seconds":S,"p50_us":..,"p99_us":..}
 *   load-client pipe SOCKET LINES SECONDS BATCH
 *       pipelined: one connection; a writer thread sends BATCH lines per write for SECONDS
 *       while the main thread reads the replies as they come; then every reply is awaited.
 *       -> {"ops":N,"seconds":S}  (S: first send to last reply)
 *   load-client count SOCKET LINES TOTAL BATCH
 *       like pipe, but exactly TOTAL lines.
 *   load-client rate SOCKET LINES RATE SECONDS
 *       paced: like count with batches of one line, each sent at its time (RATE lines a second
 *       for SECONDS, from absolute deadlines: a late line goes at once, none is skipped), so a
 *       server that keeps up gets exactly this load; the figure to take is its CPU time.
 *       -> {"ops":N,"seconds":S}
 *
 * LINES is a file of request lines (each ending in \n), used in turn, from the first, again and
 * again; for pipe and count its line count must be a multiple of BATCH. A reply is one line;
 * a server that closes early or goes silent for 10 s makes this exit 1 with a message. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static char *lines;
static size_t *starts; /* starts[i]: offset of line i; starts[nlines] = size */
static size_t nlines;
static const char *sockpath;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *what) {
    fprintf(stderr, "load-client: %s: %s\n", what, errno ? strerror(errno) : "connection closed");
    exit(1);
}

static int dial(void) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, sockpath, sizeof a.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) fail("connect");
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static void send_all(int fd, const char *p, size_t n) {
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) fail("send");
        p += w;
        n -= w;
    }
}

static void load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) fail(path);
    fseek(f, 0, SEEK_END);
    size_t size = ftell(f);
    rewind(f);
    lines = malloc(size);
    if (fread(lines, 1, size, f) != size) fail("read lines");
    fclose(f);
    starts = malloc((size + 1) * sizeof *starts);
    starts[0] = 0;
    for (size_t i = 0; i < size; i++)
        if (lines[i] == '\n') starts[++nlines] = i + 1;
    if (nlines == 0) { fprintf(stderr, "load-client: no lines in %s\n", path); exit(1); }
}

/* ---- request/response ---- */

typedef struct {
    int fd;
    size_t first;
    volatile int *stop;
    unsigned *samples; /* round trips in ns */
    size_t count, cap;
} RR;

static pthread_barrier_t barrier;

static void *rr_run(void *arg) {
    RR *r = arg;
    char buf[4096];
    size_t i = r->first;
    pthread_barrier_wait(&barrier);
    while (!*r->stop) {
        double t0 = now();
        send_all(r->fd, lines + starts[i], starts[i + 1] - starts[i]);
        size_t got = 0;
        for (;;) {
            ssize_t n = recv(r->fd, buf + got, sizeof buf - got, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail("recv");
            got += n;
            if (buf[got - 1] == '\n') break;
            if (got == sizeof buf) got = 0;
        }
        unsigned ns = (unsigned)((now() - t0) * 1e9);
        if (r->count == r->cap) r->samples = realloc(r->samples, (r->cap = r->cap * 2 + 1024) * sizeof(unsigned));
        r->samples[r->count++] = ns;
        if (++i == nlines) i = 0;
    }
    return NULL;
}

static int by_value(const void *a, const void *b) {
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

static int rr(int clients, double seconds) {
    RR *r = calloc(clients, sizeof *r);
    pthread_t *t = calloc(clients, sizeof *t);
    volatile int stop = 0;
    pthread_barrier_init(&barrier, NULL, clients + 1);
    for (int k = 0; k < clients; k++) {
        r[k].fd = dial();
        r[k].first = (nlines / clients) * k;
        r[k].stop = &stop;
        pthread_create(&t[k], NULL, rr_run, &r[k]);
    }
    pthread_barrier_wait(&barrier);
    double t0 = now();
    usleep((useconds_t)(seconds * 1e6));
    stop = 1;
    for (int k = 0; k < clients; k++) pthread_join(t[k], NULL);
    double elapsed = now() - t0;
    size_t total = 0;
    for (int k = 0; k < clients; k++) total += r[k].count;
    unsigned *all = malloc((total + 1) * sizeof *all);
    size_t at = 0;
    for (int k = 0; k < clients; k++) {
        memcpy(all + at, r[k].samples, r[k].count * sizeof *all);
        at += r[k].count;
        close(r[k].fd);
    }
    qsort(all, total, sizeof *all, by_value);
    printf("{\"ops\":%zu,\"seconds\":%.6f,\"p50_us\":%.2f,\"p99_us\":%.2f}\n", total, elapsed,
           total ? all[total / 2] / 1e3 : 0.0, total ? all[(size_t)(total * 0.99)] / 1e3 : 0.0);
    return 0;
}

/* ---- pipelined ---- */

typedef struct {
    int fd;
    size_t batch;
    size_t total;        /* lines to send; 0: until stop */
    volatile int *stop;
    volatile size_t sent; /* lines sent so far */
    volatile int done;
    double rate;          /* lines per second (one per write), or 0: as fast as the socket takes them */
    double start;
} Writer;

static void *pipe_write(void *arg) {
    Writer *w = arg;
    size_t i = 0;
    while (w->total ? w->sent < w->total : !*w->stop) {
        if (w->rate > 0) {
            double due = w->start + w->sent / w->rate;
            struct timespec ts = {.tv_sec = (time_t)due, .tv_nsec = (long)((due - (time_t)due) * 1e9)};
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
        }
        size_t n = w->batch;
        if (w->total && w->total - w->sent < n) n = w->total - w->sent;
        send_all(w->fd, lines + starts[i], starts[i + n] - starts[i]);
        w->sent += n;
        i += n;
        if (i == nlines) i = 0;
    }
    w->done = 1;
    return NULL;
}

static int pipelined(double seconds, size_t total, size_t batch, double rate) {
    if (nlines % batch) { fprintf(stderr, "load-client: the line count must be a multiple of %zu\n", batch); return 1; }
    int fd = dial();
    volatile int stop = 0;
    Writer w = {.fd = fd, .batch = batch, .total = total, .stop = &stop, .rate = rate};
    size_t cap = 1 << 20;
    char *buf = malloc(cap);
    pthread_t t;
    double t0 = now();
    w.start = t0;
    pthread_create(&t, NULL, pipe_write, &w);
    size_t replies = 0;
    for (;;) {
        if (!total && !stop && now() - t0 >= seconds) stop = 1;
        /* With a count, the count: the last reply can come before the writer says it is done. */
        if (total ? replies >= total : w.done && replies == w.sent) break;
        ssize_t n = recv(fd, buf, cap, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("recv");
        for (char *p = buf, *end = buf + n; (p = memchr(p, '\n', end - p)); p++) replies++;
    }
    double elapsed = now() - t0;
    pthread_join(t, NULL);
    close(fd);
    printf("{\"ops\":%zu,\"seconds\":%.6f}\n", replies, elapsed);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 6 && !strcmp(argv[1], "rr")) {
        sockpath = argv[2];
        load(argv[3]);
        return rr(atoi(argv[4]), atof(argv[5]));
    }
    if (argc >= 6 && !strcmp(argv[1], "pipe")) {
        sockpath = argv[2];
        load(argv[3]);
        return pipelined(atof(argv[4]), 0, strtoul(argv[5], NULL, 10), 0);
    }
    if (argc >= 6 && !strcmp(argv[1], "count")) {
        sockpath = argv[2];
        load(argv[3]);
        return pipelined(0, strtoul(argv[4], NULL, 10), strtoul(argv[5], NULL, 10), 0);
    }
    if (argc >= 6 && !strcmp(argv[1], "rate")) {
        sockpath = argv[2];
        load(argv[3]);
        double rate = atof(argv[4]);
        return pipelined(0, (size_t)(rate * atof(argv[5]) + 0.5), 1, rate);
    }
    fprintf(stderr, "usage: %s rr SOCKET LINES CLIENTS SECONDS | pipe SOCKET LINES SECONDS BATCH | count SOCKET LINES TOTAL BATCH | rate SOCKET LINES RATE SECONDS\n", argv[0]);
    return 64;
}
