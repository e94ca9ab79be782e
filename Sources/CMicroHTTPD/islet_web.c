// libmicrohttpd through dlopen: see include/islet_web.h for why and what.
#include "islet_web.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <microhttpd.h>

// The library's entry points, resolved once by islet_web_load.
static struct {
    void *handle;
    struct MHD_Daemon *(*start_daemon)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                       MHD_AccessHandlerCallback, void *, ...);
    void (*stop_daemon)(struct MHD_Daemon *);
    const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
    enum MHD_Result (*run)(struct MHD_Daemon *);
    enum MHD_Result (*get_timeout)(struct MHD_Daemon *, MHD_UNSIGNED_LONG_LONG *);
    struct MHD_Response *(*create_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
    struct MHD_Response *(*create_from_callback)(uint64_t, size_t, MHD_ContentReaderCallback, void *,
                                                 MHD_ContentReaderFreeCallback);
    enum MHD_Result (*add_header)(struct MHD_Response *, const char *, const char *);
    enum MHD_Result (*queue)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
    void (*destroy)(struct MHD_Response *);
    const char *(*lookup)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
    int (*get_values)(struct MHD_Connection *, enum MHD_ValueKind, MHD_KeyValueIterator, void *);
    void (*suspend)(struct MHD_Connection *);
    void (*resume)(struct MHD_Connection *);
    const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
    const char *(*get_version)(void);
} lib;

int islet_web_load(char *error, size_t size) {
    if (lib.handle) return 0;
    void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(error, size, "%s (install libmicrohttpd12)", dlerror());
        return -1;
    }
#define RESOLVE(field, name)                                                                 \
    do {                                                                                     \
        *(void **)(&lib.field) = dlsym(h, name);                                             \
        if (!lib.field) {                                                                    \
            snprintf(error, size, "libmicrohttpd.so.12 has no %s (0.9.75 or newer is needed)", name); \
            dlclose(h);                                                                      \
            memset(&lib, 0, sizeof lib);                                                     \
            return -1;                                                                       \
        }                                                                                    \
    } while (0)
    RESOLVE(start_daemon, "MHD_start_daemon");
    RESOLVE(stop_daemon, "MHD_stop_daemon");
    RESOLVE(get_daemon_info, "MHD_get_daemon_info");
    RESOLVE(run, "MHD_run");
    RESOLVE(get_timeout, "MHD_get_timeout");
    RESOLVE(create_from_buffer, "MHD_create_response_from_buffer");
    RESOLVE(create_from_callback, "MHD_create_response_from_callback");
    RESOLVE(add_header, "MHD_add_response_header");
    RESOLVE(queue, "MHD_queue_response");
    RESOLVE(destroy, "MHD_destroy_response");
    RESOLVE(lookup, "MHD_lookup_connection_value");
    RESOLVE(get_values, "MHD_get_connection_values");
    RESOLVE(suspend, "MHD_suspend_connection");
    RESOLVE(resume, "MHD_resume_connection");
    RESOLVE(get_connection_info, "MHD_get_connection_info");
    RESOLVE(get_version, "MHD_get_version");
#undef RESOLVE
    lib.handle = h;
    return 0;
}

const char *islet_web_version(void) { return lib.get_version ? lib.get_version() : ""; }

// The server's callbacks, adapted to the interface above; `config` outlives the daemon (the
// Swift side keeps it).
static struct islet_web_config active;
static char last_message[256];

static void log_adapter(void *cls, const char *format, va_list ap) {
    (void)cls;
    vsnprintf(last_message, sizeof last_message, format, ap);
    size_t n = strlen(last_message);
    while (n > 0 && (last_message[n - 1] == '\n' || last_message[n - 1] == '\r')) last_message[--n] = 0;
    if (active.on_log) active.on_log(active.context, last_message);
}

static enum MHD_Result request_adapter(void *cls, struct MHD_Connection *connection, const char *url,
                                       const char *method, const char *version, const char *upload,
                                       size_t *upload_size, void **state) {
    (void)cls;
    return active.on_request(active.context, connection, url, method, version, upload, upload_size, state) ? MHD_YES : MHD_NO;
}

static void completed_adapter(void *cls, struct MHD_Connection *connection, void **state,
                              enum MHD_RequestTerminationCode how) {
    (void)cls;
    active.on_completed(active.context, connection, state, (int)how);
}

static void connection_adapter(void *cls, struct MHD_Connection *connection, void **socket_context,
                               enum MHD_ConnectionNotificationCode what) {
    (void)cls;
    (void)socket_context;
    active.on_connection(active.context, connection, what == MHD_CONNECTION_NOTIFY_STARTED ? 1 : 0);
}

struct MHD_Daemon *islet_web_start(const struct islet_web_config *config, char *error, size_t size) {
    if (!lib.handle) {
        snprintf(error, size, "libmicrohttpd is not loaded");
        return NULL;
    }
    active = *config;
    last_message[0] = 0;
    struct sockaddr_in v4;
    struct sockaddr_in6 v6;
    struct sockaddr *address;
    memset(&v4, 0, sizeof v4);
    memset(&v6, 0, sizeof v6);
    if (config->ipv6) {
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(config->port);
        if (inet_pton(AF_INET6, config->address, &v6.sin6_addr) != 1) {
            snprintf(error, size, "%s is not an IPv6 address", config->address);
            return NULL;
        }
        address = (struct sockaddr *)&v6;
    } else {
        v4.sin_family = AF_INET;
        v4.sin_port = htons(config->port);
        if (inet_pton(AF_INET, config->address, &v4.sin_addr) != 1) {
            snprintf(error, size, "%s is not an IPv4 address", config->address);
            return NULL;
        }
        address = (struct sockaddr *)&v4;
    }
    unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    if (config->ipv6) {
        // "::" takes IPv4 clients too, as mapped addresses; a specific IPv6 address only its own.
        flags |= IN6_IS_ADDR_UNSPECIFIED(&v6.sin6_addr) ? MHD_USE_DUAL_STACK : MHD_USE_IPv6;
    }
    if (config->cert_pem && config->key_pem) flags |= MHD_USE_TLS;
    struct MHD_OptionItem options[16];
    int n = 0;
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)log_adapter, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, address};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTENING_ADDRESS_REUSE, 1, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, (intptr_t)config->connection_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t)config->per_ip_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, (intptr_t)config->timeout_seconds, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)config->memory_limit, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed_adapter, NULL};
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)connection_adapter, NULL};
    if (flags & MHD_USE_TLS) {
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)config->cert_pem};
        options[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)config->key_pem};
    }
    options[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    errno = 0;
    struct MHD_Daemon *d = lib.start_daemon(flags, config->port, NULL, NULL, request_adapter, NULL,
                                            MHD_OPTION_ARRAY, options, MHD_OPTION_END);
    if (!d) {
        int saved = errno;
        if (last_message[0]) snprintf(error, size, "%s", last_message);
        else snprintf(error, size, "%s", saved ? strerror(saved) : "libmicrohttpd refused to start");
    }
    return d;
}

void islet_web_stop(struct MHD_Daemon *daemon) { lib.stop_daemon(daemon); }

int islet_web_epoll_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = lib.get_daemon_info(daemon, MHD_DAEMON_INFO_EPOLL_FD);
    return info ? info->epoll_fd : -1;
}

int islet_web_run(struct MHD_Daemon *daemon) { return lib.run(daemon) == MHD_YES; }

long long islet_web_timeout(struct MHD_Daemon *daemon) {
    MHD_UNSIGNED_LONG_LONG ms = 0;
    if (lib.get_timeout(daemon, &ms) != MHD_YES) return -1;
    return ms > (MHD_UNSIGNED_LONG_LONG)INT64_MAX ? INT64_MAX : (long long)ms;
}

struct MHD_Response *islet_web_response(const void *bytes, size_t size) {
    return lib.create_from_buffer(size, (void *)bytes, MHD_RESPMEM_MUST_COPY);
}

struct MHD_Response *islet_web_stream(void *context, islet_web_reader_fn read, islet_web_free_fn free_context) {
    return lib.create_from_callback(MHD_SIZE_UNKNOWN, 4096, (MHD_ContentReaderCallback)read, context,
                                    (MHD_ContentReaderFreeCallback)free_context);
}

ssize_t islet_web_reader_end(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
ssize_t islet_web_reader_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }

int islet_web_add_header(struct MHD_Response *response, const char *name, const char *value) {
    return lib.add_header(response, name, value) == MHD_YES;
}

int islet_web_queue(struct MHD_Connection *connection, unsigned status, struct MHD_Response *response) {
    return lib.queue(connection, status, response) == MHD_YES;
}

void islet_web_release(struct MHD_Response *response) { lib.destroy(response); }

const char *islet_web_header(struct MHD_Connection *connection, const char *name) {
    return lib.lookup(connection, MHD_HEADER_KIND, name);
}

const char *islet_web_cookie(struct MHD_Connection *connection, const char *name) {
    return lib.lookup(connection, MHD_COOKIE_KIND, name);
}

const char *islet_web_argument(struct MHD_Connection *connection, const char *name) {
    return lib.lookup(connection, MHD_GET_ARGUMENT_KIND, name);
}

int islet_web_header_count(struct MHD_Connection *connection) {
    return lib.get_values(connection, MHD_HEADER_KIND, NULL, NULL);
}

// Counts the headers named `cls` (libmicrohttpd's lookup returns only the first of several).
struct occurrences {
    const char *name;
    int count;
};

static enum MHD_Result count_named(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    (void)value;
    struct occurrences *o = cls;
    if (key && strcasecmp(key, o->name) == 0) o->count++;
    return MHD_YES;
}

// RFC 9110 §5.1, §5.5: a field name is a token; a value has no control character but HTAB. A
// name with a space before its colon ("Transfer-Encoding : chunked") is one libmicrohttpd keeps
// under another name, and a front proxy may read as the real one.
static int is_tchar(unsigned char c) {
    if (c >= '0' && c <= '9') return 1;
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return 1;
    return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static enum MHD_Result check_field(void *cls, enum MHD_ValueKind kind, const char *key, const char *value) {
    (void)kind;
    int *bad = cls;
    if (!key || !*key) { *bad = 1; return MHD_NO; }
    for (const unsigned char *p = (const unsigned char *)key; *p; p++)
        if (!is_tchar(*p)) { *bad = 1; return MHD_NO; }
    if (value)
        for (const unsigned char *p = (const unsigned char *)value; *p; p++)
            if ((*p < 0x20 && *p != '\t') || *p == 0x7f) { *bad = 2; return MHD_NO; }
    return MHD_YES;
}

int islet_web_headers_malformed(struct MHD_Connection *connection) {
    int bad = 0;
    lib.get_values(connection, MHD_HEADER_KIND, check_field, &bad);
    return bad;
}

int islet_web_header_occurrences(struct MHD_Connection *connection, const char *name) {
    struct occurrences o = {name, 0};
    lib.get_values(connection, MHD_HEADER_KIND, count_named, &o);
    return o.count;
}

void islet_web_suspend(struct MHD_Connection *connection) { lib.suspend(connection); }
void islet_web_resume(struct MHD_Connection *connection) { lib.resume(connection); }

int islet_web_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = lib.get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info ? info->connect_fd : -1;
}

int islet_web_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = lib.get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!info || !info->client_addr) return -1;
    const struct sockaddr *a = info->client_addr;
    if (a->sa_family == AF_INET) {
        return inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buffer, (socklen_t)size) ? 0 : -1;
    }
    if (a->sa_family == AF_INET6) {
        const struct in6_addr *six = &((const struct sockaddr_in6 *)a)->sin6_addr;
        // An IPv4 client on a dual-stack socket: its own address, not the mapped form.
        if (IN6_IS_ADDR_V4MAPPED(six)) return inet_ntop(AF_INET, &six->s6_addr[12], buffer, (socklen_t)size) ? 0 : -1;
        return inet_ntop(AF_INET6, six, buffer, (socklen_t)size) ? 0 : -1;
    }
    return -1;
}
