/* The "what C does" baseline for `make bench`: a minimal epoll server doing the same system
 * work per request line as tapgridd's tap path (read the line, append one record to a log
 * file with write(2), write a reply of the same size), with no JSON parsing or hit-testing.
 * usage: baseline-server SOCKET LOGFILE */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAXC 1024
static char inbuf[MAXC][65536];
static size_t inlen[MAXC];

static const char reply[] =
    "{\"seq\":1,\"layout\":\"bench\",\"generation\":1,\"hit\":{\"path\":\"1/0/17\",\"name\":null,\"tag\":117,"
    "\"actionData\":null},\"handler\":null,\"outcome\":\"unrouted\"}\n";
static const char record[] =
    "{\"time\":\"2026-11-29T10:00:00.123Z\",\"run\":\"5f0c0000000000000000000000000000\",\"seq\":1,\"layout\":\"bench\","
    "\"generation\":1,\"x\":120,\"y\":340,\"hit\":\"1/0/17\",\"name\":null,\"tag\":117,\"actionData\":null,"
    "\"handler\":null,\"outcome\":\"unrouted\"}\n";

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: %s SOCKET LOGFILE\n", argv[0]); return 64; }
    signal(SIGPIPE, SIG_IGN);
    int log = open(argv[2], O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    unlink(argv[1]);
    if (log < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) || listen(ls, 512)) { perror("setup"); return 1; }
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = {.events = EPOLLIN, .data.fd = ls}, evs[64];
    epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
    char out[65536 * 2];
    for (;;) {
        int n = epoll_wait(ep, evs, 64, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == ls) {
                int c;
                while ((c = accept4(ls, 0, 0, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
                    if (c >= MAXC) { close(c); continue; }
                    inlen[c] = 0;
                    struct epoll_event ce = {.events = EPOLLIN, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
                }
                continue;
            }
            ssize_t r = read(fd, inbuf[fd] + inlen[fd], sizeof inbuf[fd] - inlen[fd]);
            if (r <= 0) { close(fd); continue; }
            inlen[fd] += r;
            size_t start = 0, olen = 0;
            for (size_t k = 0; k < inlen[fd]; k++) {
                if (inbuf[fd][k] != '\n') continue;
                if (write(log, record, sizeof record - 1) < 0) perror("log");
                memcpy(out + olen, reply, sizeof reply - 1);
                olen += sizeof reply - 1;
                start = k + 1;
                if (olen + sizeof reply > sizeof out) { if (write(fd, out, olen) < 0) break; olen = 0; }
            }
            memmove(inbuf[fd], inbuf[fd] + start, inlen[fd] - start);
            inlen[fd] -= start;
            if (olen && write(fd, out, olen) < 0) close(fd);
        }
    }
}
