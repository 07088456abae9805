/* `make bench`'s tap-to-broker latency (Benchmarks/fleet-bench.py): how long a tap takes from
 * its request line to its event-log record arriving from the broker. It subscribes to TOPIC
 * (QoS 0, so the broker forwards at once) on a thread of libmosquitto's own (mosquitto_loop_start:
 * the measuring side, not the measured one), then sends COUNT request lines over SOCKET, one at a
 * time, RATE a second from absolute deadlines, reading each reply (its "seq") before the next is
 * due; each record that arrives is matched to its tap by "seq".
 *
 *   mqtt-latency HOST PORT TOPIC SOCKET LINES RATE COUNT
 *       -> {"taps":N,"p50_us":..,"p99_us":..,"max_us":..,"missing":M,"samples_us":[..]}
 *          (M: records that did not arrive within 5 s of the last tap; every latency, sorted) */
#define _GNU_SOURCE
#include <errno.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void fail(const char *what) {
    fprintf(stderr, "mqtt-latency: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

/* The number after "seq": in text, or -1. */
static long long seq_of(const char *p, size_t n) {
    const char *key = memmem(p, n, "\"seq\":", 6);
    if (!key) return -1;
    long long v = 0;
    for (key += 6; key < p + n && *key >= '0' && *key <= '9'; key++) v = v * 10 + (*key - '0');
    return v;
}

static long long *arrived_seq;
static double *arrived_at;
static volatile size_t arrivals;
static size_t capacity;
static volatile int subscribed;

static void on_connect(struct mosquitto *m, void *topic, int rc) {
    if (rc) { fprintf(stderr, "mqtt-latency: refused (%d)\n", rc); exit(1); }
    mosquitto_subscribe(m, NULL, topic, 0);
}

static void on_subscribe(struct mosquitto *m, void *u, int mid, int n, const int *granted) {
    (void)m; (void)u; (void)mid; (void)n; (void)granted;
    subscribed = 1;
}

static void on_message(struct mosquitto *m, void *u, const struct mosquitto_message *msg) {
    (void)m; (void)u;
    double t = now();
    if (arrivals == capacity) return;
    arrived_seq[arrivals] = seq_of(msg->payload, (size_t)msg->payloadlen);
    arrived_at[arrivals] = t;
    __atomic_store_n(&arrivals, arrivals + 1, __ATOMIC_RELEASE);
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: mqtt-latency HOST PORT TOPIC SOCKET LINES RATE COUNT\n");
        return 64;
    }
    double rate = atof(argv[6]);
    size_t count = strtoul(argv[7], NULL, 10);
    FILE *f = fopen(argv[5], "rb");
    if (!f) fail(argv[5]);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *lines = malloc(size);
    if (fread(lines, 1, size, f) != (size_t)size) fail("read lines");
    fclose(f);

    capacity = count * 4 + 16;
    arrived_seq = malloc(capacity * sizeof *arrived_seq);
    arrived_at = malloc(capacity * sizeof *arrived_at);
    long long *sent_seq = malloc(count * sizeof *sent_seq);
    double *sent_at = malloc(count * sizeof *sent_at);

    mosquitto_lib_init();
    struct mosquitto *m = mosquitto_new(NULL, true, argv[3]);
    mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_connect_callback_set(m, on_connect);
    mosquitto_subscribe_callback_set(m, on_subscribe);
    mosquitto_message_callback_set(m, on_message);
    if (mosquitto_connect(m, argv[1], atoi(argv[2]), 30) != MOSQ_ERR_SUCCESS) fail("mosquitto_connect");
    if (mosquitto_loop_start(m) != MOSQ_ERR_SUCCESS) fail("mosquitto_loop_start");
    double deadline = now() + 10;
    while (!subscribed) {
        if (now() > deadline) fail("no SUBACK");
        usleep(1000);
    }

    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[4], sizeof a.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) fail("connect");
    struct timeval tv = {.tv_sec = 10};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);

    char *line = lines, *end = lines + size;
    char reply[4096];
    double start = now();
    for (size_t k = 0; k < count; k++) {
        double due = start + k / rate;
        struct timespec ts = {.tv_sec = (time_t)due, .tv_nsec = (long)((due - (time_t)due) * 1e9)};
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
        char *nl = memchr(line, '\n', end - line);
        if (!nl) { line = lines; nl = memchr(line, '\n', end - line); }
        sent_at[k] = now();
        if (send(fd, line, nl + 1 - line, MSG_NOSIGNAL) != nl + 1 - line) fail("send");
        line = nl + 1 < end ? nl + 1 : lines;
        size_t got = 0;
        for (;;) {
            ssize_t n = recv(fd, reply + got, sizeof reply - got, 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail("recv");
            got += n;
            if (reply[got - 1] == '\n' || got == sizeof reply) break;
        }
        sent_seq[k] = seq_of(reply, got);
    }
    /* Every record, or 5 s. */
    deadline = now() + 5;
    for (;;) {
        size_t have = __atomic_load_n(&arrivals, __ATOMIC_ACQUIRE), matched = 0;
        for (size_t i = 0; i < have; i++)
            if (arrived_seq[i] >= sent_seq[0] && arrived_seq[i] <= sent_seq[count - 1]) matched++;
        if (matched >= count || now() > deadline) break;
        usleep(2000);
    }
    mosquitto_disconnect(m);
    mosquitto_loop_stop(m, false);
    close(fd);

    size_t have = arrivals, n = 0, missing = 0;
    double *latency = malloc(count * sizeof *latency);
    for (size_t k = 0; k < count; k++) {
        size_t i = 0;
        while (i < have && arrived_seq[i] != sent_seq[k]) i++;
        if (i == have) { missing++; continue; }
        latency[n++] = (arrived_at[i] - sent_at[k]) * 1e6;
    }
    qsort(latency, n, sizeof *latency, by_value);
    printf("{\"taps\":%zu,\"p50_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,\"missing\":%zu,\"samples_us\":[", n,
           n ? latency[n / 2] : 0.0, n ? latency[(size_t)(n * 0.99)] : 0.0, n ? latency[n - 1] : 0.0, missing);
    for (size_t i = 0; i < n; i++) printf(i ? ",%.1f" : "%.1f", latency[i]);
    printf("]}\n");
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    return missing ? 1 : 0;
}
