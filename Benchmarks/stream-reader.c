/* `make bench`'s event-stream reader (Benchmarks/panel-bench.py): opens COUNT streams of a
 * panel and reads them all in one thread, fast enough that they keep up with the daemon.
 *
 *   stream-reader PORT COUNT
 *       prints "open" once every stream has its first `layout` event; then each line on stdin
 *       makes it read on until the streams have been quiet for 0.3 s and print one line of JSON,
 *       each stream's count since the last report: [tap events, taps its `skipped` events
 *       counted, 1 if it was closed], e.g. [[7200,0,0],[7190,10,0]].
 *
 * A stream's text is taken out of HTTP/1.1's chunked framing ("<hex size>\r\n<data>\r\n") when
 * its answer has it: an event can be split by a chunk's framing as by a read. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define KEEP 64 /* a stream's last bytes of text, scanned again with the next: an event split in two */
#define BUFFER (1 << 20)

struct stream {
    int fd, headers_done, chunked, open, closed;
    char head[4096];
    size_t head_len;
    size_t left;           /* bytes of the current chunk still to come */
    char framing[32];      /* a chunk's size line, as far as it came */
    size_t framing_len;
    char carry[KEEP];
    size_t carry_len;
    long taps, skipped;
};

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Counts the events of `buf` that start in [from, to) and end past `after` (complete ones only). */
static void scan(struct stream *s, const char *buf, size_t len, size_t from, size_t to, size_t after) {
    static const char tap[] = "event: tap\n", skip[] = "event: skipped\ndata: {\"taps\":";
    const char *end = buf + len, *p = buf + from;
    while (p < buf + to && (p = memmem(p, end - p, "event: ", 7)) && p < buf + to) {
        size_t left = (size_t)(end - p);
        if (left >= sizeof tap - 1 && !memcmp(p, tap, sizeof tap - 1)) {
            if ((size_t)(p - buf) + sizeof tap - 1 > after) s->taps++;
        } else if (left >= sizeof skip - 1 && !memcmp(p, skip, sizeof skip - 1)) {
            const char *q = p + sizeof skip - 1;
            long count = 0;
            while (q < end && *q >= '0' && *q <= '9') count = count * 10 + (*q++ - '0');
            if (q < end && *q == '}' && (size_t)(q - buf) >= after) s->skipped += count;
        } else if (!s->open && left >= 13 && !memcmp(p, "event: layout", 13)) {
            s->open = 1;
        }
        p += 7;
    }
}

/* Counts the events of `data` (stream text) as each becomes complete: those that start in the
 * carry (the last bytes before) and end in `data`, then those wholly in `data`. */
static void text(struct stream *s, const char *data, size_t n) {
    char joint[2 * KEEP];
    size_t head = n < KEEP ? n : KEEP;
    memcpy(joint, s->carry, s->carry_len);
    memcpy(joint + s->carry_len, data, head);
    scan(s, joint, s->carry_len + head, 0, s->carry_len, s->carry_len);
    scan(s, data, n, 0, n, 0);
    size_t total = s->carry_len + n;
    if (n >= KEEP) {
        memcpy(s->carry, data + n - KEEP, KEEP);
        s->carry_len = KEEP;
    } else {
        size_t keep = total < KEEP ? total : KEEP;
        memmove(s->carry, joint + s->carry_len + head - keep, keep);
        s->carry_len = keep;
    }
}

static void take(struct stream *s, const char *data, size_t n) {
    if (!s->headers_done) {
        size_t room = sizeof s->head - s->head_len, copy = n < room ? n : room;
        memcpy(s->head + s->head_len, data, copy);
        s->head_len += copy;
        char *end = memmem(s->head, s->head_len, "\r\n\r\n", 4);
        if (!end) return;
        s->headers_done = 1;
        *end = 0;
        s->chunked = strcasestr(s->head, "chunked") != NULL;
        size_t used = (size_t)(end + 4 - s->head) - (s->head_len - copy);
        data += used;
        n -= used;
    }
    if (!s->chunked) return text(s, data, n);
    while (n) {
        if (s->left) {
            size_t piece = n < s->left ? n : s->left;
            text(s, data, piece);
            s->left -= piece;
            data += piece;
            n -= piece;
            continue;
        }
        const char *nl = memchr(data, '\n', n);
        size_t line = nl ? (size_t)(nl - data) : n;
        if (s->framing_len + line < sizeof s->framing) {
            memcpy(s->framing + s->framing_len, data, line);
            s->framing_len += line;
        }
        if (!nl) return;
        s->framing[s->framing_len] = 0;
        if (s->framing_len && s->framing[0] != '\r') s->left = strtoul(s->framing, NULL, 16);
        s->framing_len = 0;
        data += line + 1;
        n -= line + 1;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: stream-reader PORT COUNT\n");
        return 2;
    }
    int port = atoi(argv[1]), count = atoi(argv[2]), opened = 0;
    struct stream *streams = calloc(count, sizeof *streams);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    for (int i = 0; i < count; i++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), size = 4 << 20;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size); /* readers that keep up */
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (connect(fd, (struct sockaddr *)&a, sizeof a)) { perror("stream-reader: connect"); return 1; }
        char request[128];
        int len = snprintf(request, sizeof request, "GET /events?session=bench%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n", i, port);
        if (write(fd, request, len) != len) { perror("stream-reader: write"); return 1; }
        streams[i].fd = fd;
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = &streams[i]};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
    }
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, 0, &e);
    static char buffer[BUFFER];
    double reporting = 0; /* when the streams were last active, while a report waits */
    for (;;) {
        struct epoll_event events[64];
        int n = epoll_wait(ep, events, 64, reporting ? 50 : -1);
        if (n < 0 && errno != EINTR) { perror("stream-reader: epoll_wait"); return 1; }
        if (reporting && now() - reporting > 0.3) {
            printf("[");
            for (int i = 0; i < count; i++) {
                printf("%s[%ld,%ld,%d]", i ? "," : "", streams[i].taps, streams[i].skipped, streams[i].closed);
                streams[i].taps = streams[i].skipped = 0;
            }
            printf("]\n");
            fflush(stdout);
            reporting = 0;
        }
        for (int k = 0; k < n; k++) {
            struct stream *s = events[k].data.ptr;
            if (!s) {
                char line[64];
                if (!fgets(line, sizeof line, stdin)) return 0;
                reporting = now();
                continue;
            }
            ssize_t got = read(s->fd, buffer, sizeof buffer);
            if (got <= 0) {
                if (got < 0 && errno == EINTR) continue;
                s->closed = 1;
                epoll_ctl(ep, EPOLL_CTL_DEL, s->fd, NULL);
                continue;
            }
            if (reporting) reporting = now();
            int was_open = s->open;
            take(s, buffer, (size_t)got);
            if (s->open && !was_open && ++opened == count) {
                printf("open\n");
                fflush(stdout);
            }
        }
    }
}
