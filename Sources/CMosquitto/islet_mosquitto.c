// libmosquitto through dlopen: each of the library's functions that isletd calls is defined
// here under its own name and forwards to the library's, resolved once by islet_mosquitto_load.
// dlsym on the library's handle searches the library and what it needs, never this program, so
// a stub never finds itself.
#include "islet_mosquitto.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define ISLET_FUNCTIONS(X) \
    X(int, lib_init, (void), ()) \
    X(struct mosquitto *, new, (const char *id, bool clean_session, void *obj), (id, clean_session, obj)) \
    X(void, destroy, (struct mosquitto *mosq), (mosq)) \
    X(void, user_data_set, (struct mosquitto *mosq, void *obj), (mosq, obj)) \
    X(int, int_option, (struct mosquitto *mosq, enum mosq_opt_t option, int value), (mosq, option, value)) \
    X(int, will_set, (struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain), \
      (mosq, topic, payloadlen, payload, qos, retain)) \
    X(int, username_pw_set, (struct mosquitto *mosq, const char *username, const char *password), (mosq, username, password)) \
    X(int, tls_set, (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile, \
                     int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)), \
      (mosq, cafile, capath, certfile, keyfile, pw_callback)) \
    X(int, connect_bind_v5, (struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address, \
                             const mosquitto_property *properties), (mosq, host, port, keepalive, bind_address, properties)) \
    X(int, disconnect, (struct mosquitto *mosq), (mosq)) \
    X(int, socket, (struct mosquitto *mosq), (mosq)) \
    X(bool, want_write, (struct mosquitto *mosq), (mosq)) \
    X(int, loop_read, (struct mosquitto *mosq, int max_packets), (mosq, max_packets)) \
    X(int, loop_write, (struct mosquitto *mosq, int max_packets), (mosq, max_packets)) \
    X(int, loop_misc, (struct mosquitto *mosq), (mosq)) \
    X(int, subscribe_v5, (struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, const mosquitto_property *properties), \
      (mosq, mid, sub, qos, options, properties)) \
    X(int, publish_v5, (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain, \
                        const mosquitto_property *properties), (mosq, mid, topic, payloadlen, payload, qos, retain, properties)) \
    X(const char *, strerror, (int mosq_errno), (mosq_errno)) \
    X(const char *, reason_string, (int reason_code), (reason_code)) \
    X(void, property_free_all, (mosquitto_property **properties), (properties)) \
    X(int, property_add_int32, (mosquitto_property **proplist, int identifier, uint32_t value), (proplist, identifier, value)) \
    X(int, property_add_binary, (mosquitto_property **proplist, int identifier, const void *value, uint16_t len), \
      (proplist, identifier, value, len)) \
    X(const mosquitto_property *, property_read_int32, (const mosquitto_property *proplist, int identifier, uint32_t *value, bool skip_first), \
      (proplist, identifier, value, skip_first)) \
    X(const mosquitto_property *, property_read_binary, (const mosquitto_property *proplist, int identifier, void **value, uint16_t *len, \
                                                         bool skip_first), (proplist, identifier, value, len, skip_first)) \
    X(void, log_callback_set, (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, const char *)), (mosq, cb)) \
    X(void, connect_v5_callback_set, (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, int, const mosquitto_property *)), \
      (mosq, cb)) \
    X(void, disconnect_v5_callback_set, (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, const mosquitto_property *)), \
      (mosq, cb)) \
    X(void, publish_v5_callback_set, (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, int, const mosquitto_property *)), \
      (mosq, cb)) \
    X(void, message_v5_callback_set, (struct mosquitto *mosq, \
                                      void (*cb)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *)), \
      (mosq, cb)) \
    X(void, subscribe_v5_callback_set, (struct mosquitto *mosq, \
                                        void (*cb)(struct mosquitto *, void *, int, int, const int *, const mosquitto_property *)), \
      (mosq, cb))

// The library's entry points.
#define ISLET_POINTER(ret, name, params, args) static ret (*p_##name) params;
ISLET_FUNCTIONS(ISLET_POINTER)

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char why[256];
static int loaded;

static void load(void) {
    void *h = dlopen("libmosquitto.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, sizeof why, "%s (install libmosquitto1)", dlerror());
        return;
    }
#define ISLET_RESOLVE(ret, name, params, args)                                                  \
    *(void **)(&p_##name) = dlsym(h, "mosquitto_" #name);                                         \
    if (!p_##name) {                                                                             \
        snprintf(why, sizeof why, "libmosquitto.so.1 has no mosquitto_%s (2.0 or newer is needed)", #name); \
        return;                                                                                  \
    }
    ISLET_FUNCTIONS(ISLET_RESOLVE)
    loaded = 1;
}

int islet_mosquitto_load(char *error, size_t size) {
    pthread_once(&once, load);
    if (loaded) return 0;
    snprintf(error, size, "%s", why);
    return -1;
}

// The stubs: before a load, a failure the callers already handle (an error code, NULL, nothing).
static int failed_int(void) { return MOSQ_ERR_NOT_SUPPORTED; }
static bool failed_bool(void) { return false; }
static const char *failed_text(void) { return "libmosquitto is not loaded"; }

#define ISLET_STUB_int(name, params, args) int mosquitto_##name params { return loaded ? p_##name args : failed_int(); }
#define ISLET_STUB_bool(name, params, args) bool mosquitto_##name params { return loaded ? p_##name args : failed_bool(); }
#define ISLET_STUB_void(name, params, args) void mosquitto_##name params { if (loaded) p_##name args; }

ISLET_STUB_int(lib_init, (void), ())
struct mosquitto *mosquitto_new(const char *id, bool clean_session, void *obj) {
    return loaded ? p_new(id, clean_session, obj) : NULL;
}
ISLET_STUB_void(destroy, (struct mosquitto *mosq), (mosq))
ISLET_STUB_void(user_data_set, (struct mosquitto *mosq, void *obj), (mosq, obj))
ISLET_STUB_int(int_option, (struct mosquitto *mosq, enum mosq_opt_t option, int value), (mosq, option, value))
ISLET_STUB_int(will_set, (struct mosquitto *mosq, const char *topic, int payloadlen, const void *payload, int qos, bool retain),
               (mosq, topic, payloadlen, payload, qos, retain))
ISLET_STUB_int(username_pw_set, (struct mosquitto *mosq, const char *username, const char *password), (mosq, username, password))
ISLET_STUB_int(tls_set, (struct mosquitto *mosq, const char *cafile, const char *capath, const char *certfile, const char *keyfile,
                         int (*pw_callback)(char *buf, int size, int rwflag, void *userdata)),
               (mosq, cafile, capath, certfile, keyfile, pw_callback))
ISLET_STUB_int(connect_bind_v5, (struct mosquitto *mosq, const char *host, int port, int keepalive, const char *bind_address,
                                 const mosquitto_property *properties), (mosq, host, port, keepalive, bind_address, properties))
ISLET_STUB_int(disconnect, (struct mosquitto *mosq), (mosq))
int mosquitto_socket(struct mosquitto *mosq) { return loaded ? p_socket(mosq) : -1; }
ISLET_STUB_bool(want_write, (struct mosquitto *mosq), (mosq))
ISLET_STUB_int(loop_read, (struct mosquitto *mosq, int max_packets), (mosq, max_packets))
ISLET_STUB_int(loop_write, (struct mosquitto *mosq, int max_packets), (mosq, max_packets))
ISLET_STUB_int(loop_misc, (struct mosquitto *mosq), (mosq))
ISLET_STUB_int(subscribe_v5, (struct mosquitto *mosq, int *mid, const char *sub, int qos, int options, const mosquitto_property *properties),
               (mosq, mid, sub, qos, options, properties))
ISLET_STUB_int(publish_v5, (struct mosquitto *mosq, int *mid, const char *topic, int payloadlen, const void *payload, int qos, bool retain,
                            const mosquitto_property *properties), (mosq, mid, topic, payloadlen, payload, qos, retain, properties))
const char *mosquitto_strerror(int mosq_errno) { return loaded ? p_strerror(mosq_errno) : failed_text(); }
const char *mosquitto_reason_string(int reason_code) { return loaded ? p_reason_string(reason_code) : failed_text(); }
ISLET_STUB_void(property_free_all, (mosquitto_property **properties), (properties))
ISLET_STUB_int(property_add_int32, (mosquitto_property **proplist, int identifier, uint32_t value), (proplist, identifier, value))
ISLET_STUB_int(property_add_binary, (mosquitto_property **proplist, int identifier, const void *value, uint16_t len),
               (proplist, identifier, value, len))
const mosquitto_property *mosquitto_property_read_int32(const mosquitto_property *proplist, int identifier, uint32_t *value,
                                                        bool skip_first) {
    return loaded ? p_property_read_int32(proplist, identifier, value, skip_first) : NULL;
}
const mosquitto_property *mosquitto_property_read_binary(const mosquitto_property *proplist, int identifier, void **value,
                                                         uint16_t *len, bool skip_first) {
    return loaded ? p_property_read_binary(proplist, identifier, value, len, skip_first) : NULL;
}
ISLET_STUB_void(log_callback_set, (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, const char *)), (mosq, cb))
ISLET_STUB_void(connect_v5_callback_set,
                (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, int, const mosquitto_property *)), (mosq, cb))
ISLET_STUB_void(disconnect_v5_callback_set,
                (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, const mosquitto_property *)), (mosq, cb))
ISLET_STUB_void(publish_v5_callback_set,
                (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, int, const mosquitto_property *)), (mosq, cb))
ISLET_STUB_void(message_v5_callback_set,
                (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, const struct mosquitto_message *, const mosquitto_property *)),
                (mosq, cb))
ISLET_STUB_void(subscribe_v5_callback_set,
                (struct mosquitto *mosq, void (*cb)(struct mosquitto *, void *, int, int, const int *, const mosquitto_property *)),
                (mosq, cb))
