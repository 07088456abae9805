/* `make bench`'s reference MQTT publisher: what libmosquitto itself does on this machine, for
 * the events-per-second row. It publishes every line of a file (an event log) at QoS 1 to one
 * topic, with at most WINDOW messages unacknowledged (as tapgridd's feed keeps 100), MQTT 5,
 * TCP_NODELAY, on the library's own loop (mosquitto_loop), and prints one JSON line.
 *
 *   mqtt-publisher HOST PORT TOPIC LINES WINDOW
 *       -> {"messages":N,"seconds":S}   (S: first publish to last PUBACK) */
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int in_flight, acked, connected;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void on_connect(struct mosquitto *m, void *u, int rc) { (void)m; (void)u; connected = rc == 0 ? 1 : -1; }
static void on_publish(struct mosquitto *m, void *u, int mid) { (void)m; (void)u; (void)mid; in_flight--; acked++; }

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: mqtt-publisher HOST PORT TOPIC LINES WINDOW\n");
        return 64;
    }
    FILE *f = fopen(argv[4], "rb");
    if (!f) { perror(argv[4]); return 1; }
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc(size + 1);
    if (fread(text, 1, size, f) != (size_t)size) { perror("read"); return 1; }
    fclose(f);
    int window = atoi(argv[5]);
    mosquitto_lib_init();
    struct mosquitto *m = mosquitto_new("tapgrid-bench-publisher", true, NULL);
    mosquitto_int_option(m, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V5);
    mosquitto_int_option(m, MOSQ_OPT_TCP_NODELAY, 1);
    mosquitto_connect_callback_set(m, on_connect);
    mosquitto_publish_callback_set(m, on_publish);
    if (mosquitto_connect(m, argv[1], atoi(argv[2]), 30) != MOSQ_ERR_SUCCESS) { fprintf(stderr, "connect failed\n"); return 1; }
    while (!connected) mosquitto_loop(m, 100, 1);
    if (connected < 0) { fprintf(stderr, "refused\n"); return 1; }
    int sent = 0;
    double start = now();
    char *p = text, *end = text + size;
    while (p < end || in_flight > 0) {
        while (p < end && in_flight < window) {
            char *nl = memchr(p, '\n', end - p);
            if (!nl) nl = end;
            if (mosquitto_publish(m, NULL, argv[3], (int)(nl - p), p, 1, false) != MOSQ_ERR_SUCCESS) {
                fprintf(stderr, "publish failed\n");
                return 1;
            }
            in_flight++;
            sent++;
            p = nl + 1;
        }
        if (mosquitto_loop(m, 1000, 1) != MOSQ_ERR_SUCCESS) { fprintf(stderr, "loop failed\n"); return 1; }
    }
    double seconds = now() - start;
    printf("{\"messages\":%d,\"seconds\":%.6f}\n", acked, seconds);
    mosquitto_disconnect(m);
    mosquitto_destroy(m);
    mosquitto_lib_cleanup();
    return sent == acked ? 0 : 1;
}
