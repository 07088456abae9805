// libmicrohttpd (Debian: libmicrohttpd-dev), imported by TapgridHTTP alone. MHD_start_daemon is
// variadic, which Swift cannot call: tg_mhd_start passes the options the panel uses, and
// tg_mhd_logger turns MHD's printf-style messages into one string for a Swift callback. The
// info calls return unions, read here. No libc call besides vsnprintf: descriptors and socket
// options go through TapgridSystem.
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

typedef void (*tg_mhd_log_fn)(void *cls, const char *message);

struct tg_mhd_log_target {
    tg_mhd_log_fn fn;
    void *cls;
};

static void tg_mhd_logger(void *cls, const char *format, va_list ap) {
    struct tg_mhd_log_target *target = (struct tg_mhd_log_target *)cls;
    char message[512];
    int length = vsnprintf(message, sizeof message, format, ap);
    if (length > (int)sizeof message - 1) length = (int)sizeof message - 1;
    while (length > 0 && message[length - 1] == '\n') message[--length] = 0;  /* MHD ends most with one */
    target->fn(target->cls, message);
}

/// MHD_start_daemon with MHD_USE_EPOLL (no thread of its own: the caller's loop watches
/// MHD_get_daemon_info's epoll descriptor), suspend/resume, error logging to `log`, on the
/// listening socket `listen_fd`, with per-connection limits.
static inline struct MHD_Daemon *tg_mhd_start(
    int listen_fd, MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    struct tg_mhd_log_target *log, unsigned int connection_limit, unsigned int timeout_seconds,
    size_t memory_limit) {
    return MHD_start_daemon(
        MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG, 0, NULL, NULL, handler, handler_cls,
        MHD_OPTION_EXTERNAL_LOGGER, tg_mhd_logger, (void *)log,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
        MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, timeout_seconds,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, memory_limit,
        MHD_OPTION_END);
}

/// An event stream's response: MHD_create_response_from_callback of unknown size, sent without
/// HTTP/1.1's chunked framing (MHD_RF_HTTP_1_0_COMPATIBLE_STRICT: the body ends when the
/// connection closes, as a stream's always does). So libmicrohttpd asks `crc` for up to
/// `block_size` bytes into the response's own buffer and sends them from there, where chunks
/// were cut to what the connection's memory limit left free (about 32 KiB) and copied once more.
static inline struct MHD_Response *tg_mhd_stream_response(
    size_t block_size, MHD_ContentReaderCallback crc, void *crc_cls, MHD_ContentReaderFreeCallback crfc) {
    struct MHD_Response *response = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, block_size, crc, crc_cls, crfc);
    if (response) MHD_set_response_options(response, MHD_RF_HTTP_1_0_COMPATIBLE_STRICT, MHD_RO_END);
    return response;
}

/// MHD_get_daemon_info(d, MHD_DAEMON_INFO_EPOLL_FD)'s descriptor, or -1.
static inline int tg_mhd_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

/// MHD_get_timeout in milliseconds; -1 when MHD needs no timeout.
static inline long long tg_mhd_timeout_ms(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG timeout = 0;
    if (MHD_get_timeout(daemon, &timeout) != MHD_YES) return -1;
    return (long long)timeout;
}

/// The connection's socket (MHD_CONNECTION_INFO_CONNECTION_FD), or -1. libmicrohttpd owns and
/// closes it: TapgridHTTP sets its options and duplicates it through TapgridSystem, the one
/// module that calls libc.
static inline int tg_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}
