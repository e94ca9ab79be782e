#ifndef ISLET_WEB_H
#define ISLET_WEB_H
// The web server's C boundary: libmicrohttpd, loaded with dlopen only when [web] is configured
// (a desk without the page maps none of it, nor GnuTLS behind it), driven by isletd's own epoll
// loop (MHD_USE_EPOLL, no thread of its own). Plain C types and opaque handles only: Swift sees
// none of libmicrohttpd's variadic calls or unions. Written against libmicrohttpd 0.9.75.

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct MHD_Daemon;
struct MHD_Connection;
struct MHD_Response;

/// Loads libmicrohttpd.so.12 once; 0, or -1 with the loader's words in `error`.
int islet_web_load(char *error, size_t size);
/// The loaded library's version ("0.9.75"); "" before a load.
const char *islet_web_version(void);

/// MHD's access handler: called from islet_web_run on the caller's thread. *state is the
/// request's own pointer, NULL at the first call (the headers are in, the body is not).
/// Returns 1 to go on, 0 to close the connection.
typedef int (*islet_web_request_fn)(void *context, struct MHD_Connection *connection, const char *url,
                                    const char *method, const char *version, const char *upload, size_t *upload_size,
                                    void **state);
/// The request ended (`how`: MHD_RequestTerminationCode, 0 when it completed normally).
typedef void (*islet_web_completed_fn)(void *context, struct MHD_Connection *connection, void **state, int how);
/// A connection was accepted (opened = 1) or closed (0).
typedef void (*islet_web_connection_fn)(void *context, struct MHD_Connection *connection, int opened);
/// One of libmicrohttpd's own messages, formatted.
typedef void (*islet_web_log_fn)(void *context, const char *message);

struct islet_web_config {
    /// An address literal (IPv4, or IPv6 when ipv6 = 1) and a port.
    const char *address;
    uint16_t port;
    int ipv6;
    /// Connections at once, from one address, seconds of silence before a connection is cut,
    /// and each connection's memory (which bounds its headers).
    unsigned connection_limit;
    unsigned per_ip_limit;
    unsigned timeout_seconds;
    size_t memory_limit;
    /// PEM texts for HTTPS; both NULL: plain HTTP.
    const char *cert_pem;
    const char *key_pem;
    void *context;
    islet_web_request_fn on_request;
    islet_web_completed_fn on_completed;
    islet_web_connection_fn on_connection;
    islet_web_log_fn on_log;
};

/// Binds and listens; NULL with why in `error` (libmicrohttpd's own last message when it gave one).
struct MHD_Daemon *islet_web_start(const struct islet_web_config *config, char *error, size_t size);
void islet_web_stop(struct MHD_Daemon *daemon);
/// The epoll descriptor that holds the server's sockets: readable when islet_web_run has work.
int islet_web_epoll_fd(struct MHD_Daemon *daemon);
/// Does what is ready without blocking; 1 on success.
int islet_web_run(struct MHD_Daemon *daemon);
/// Milliseconds until islet_web_run must run again whatever the sockets do; -1: no deadline.
long long islet_web_timeout(struct MHD_Daemon *daemon);

/// A response holding a copy of `bytes`.
struct MHD_Response *islet_web_response(const void *bytes, size_t size);
/// Fills `buffer` with up to `max` bytes; returns the count, or islet_web_reader_end/_error.
/// Returning 0 after islet_web_suspend parks the stream until islet_web_resume.
typedef ssize_t (*islet_web_reader_fn)(void *context, uint64_t position, char *buffer, size_t max);
typedef void (*islet_web_free_fn)(void *context);
/// A response of unknown length read from `read` (a stream of events).
struct MHD_Response *islet_web_stream(void *context, islet_web_reader_fn read, islet_web_free_fn free_context);
ssize_t islet_web_reader_end(void);
ssize_t islet_web_reader_error(void);
int islet_web_add_header(struct MHD_Response *response, const char *name, const char *value);
/// Queues `response` with `status` (the connection keeps its own reference); 1 on success.
int islet_web_queue(struct MHD_Connection *connection, unsigned status, struct MHD_Response *response);
void islet_web_release(struct MHD_Response *response);

/// A request header's value, a cookie's, a query argument's; NULL when absent.
const char *islet_web_header(struct MHD_Connection *connection, const char *name);
const char *islet_web_cookie(struct MHD_Connection *connection, const char *name);
const char *islet_web_argument(struct MHD_Connection *connection, const char *name);
/// How many headers the request has (bounded by the connection's memory anyway).
int islet_web_header_count(struct MHD_Connection *connection);
/// How many headers named `name` (case-insensitive) the request has: a second Content-Length,
/// Host or Transfer-Encoding is a smuggling attempt that the lookup above would hide.
int islet_web_header_occurrences(struct MHD_Connection *connection, const char *name);
/// 0 when every header's name is a token and no value holds a control character (HTAB aside);
/// 1 for a bad name, 2 for a bad value (RFC 9110 §5.1, §5.5).
int islet_web_headers_malformed(struct MHD_Connection *connection);

void islet_web_suspend(struct MHD_Connection *connection);
void islet_web_resume(struct MHD_Connection *connection);
/// The connection's socket, -1 when unknown.
int islet_web_connection_fd(struct MHD_Connection *connection);
/// The client's address as text ("192.0.2.7", "::1"); 0, or -1.
int islet_web_client_address(struct MHD_Connection *connection, char *buffer, size_t size);

#endif
