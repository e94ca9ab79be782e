#ifndef ISLET_MOSQUITTO_H
#define ISLET_MOSQUITTO_H
// libmosquitto (Debian's libmosquitto-dev), driven by isletd's own loop: no loop_start thread.
// Loaded with dlopen when [mqtt] is first used (islet_mosquitto.c): a desk without a broker maps
// neither libmosquitto nor the OpenSSL it brings. The library's own names stay: each one here
// is a stub that calls into the loaded library.
#include <stddef.h>
#include <mosquitto.h>
#include <mqtt_protocol.h>
#include <errno.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>

// Loads libmosquitto.so.1 once (thread-safe); 0, or -1 with the loader's words in `error`.
// Before a load every stub fails softly (an error code, NULL, nothing done).
int islet_mosquitto_load(char *error, size_t size);

// C enums and macros Swift would import untyped: one typed constant each.
static inline int islet_mosq_ok(void) { return MOSQ_ERR_SUCCESS; }
static inline int islet_mosq_err_errno(void) { return MOSQ_ERR_ERRNO; }
static inline int islet_mosq_err_eai(void) { return MOSQ_ERR_EAI; }
static inline int islet_mosq_err_no_conn(void) { return MOSQ_ERR_NO_CONN; }
static inline int islet_mosq_err_conn_pending(void) { return MOSQ_ERR_CONN_PENDING; }
static inline int islet_mqtt_v5(void) { return MQTT_PROTOCOL_V5; }
static inline int islet_opt_protocol_version(void) { return MOSQ_OPT_PROTOCOL_VERSION; }
static inline int islet_opt_tls_use_os_certs(void) { return MOSQ_OPT_TLS_USE_OS_CERTS; }
static inline int islet_prop_correlation_data(void) { return MQTT_PROP_CORRELATION_DATA; }
static inline int islet_prop_message_expiry_interval(void) { return MQTT_PROP_MESSAGE_EXPIRY_INTERVAL; }
static inline int islet_prop_maximum_packet_size(void) { return MQTT_PROP_MAXIMUM_PACKET_SIZE; }
// The broker's Maximum Packet Size from its CONNACK properties; 0 when it sets none.
static inline unsigned int islet_connack_maximum_packet_size(const mosquitto_property *props) {
    uint32_t v = 0;
    if (!mosquitto_property_read_int32(props, MQTT_PROP_MAXIMUM_PACKET_SIZE, &v, false)) return 0;
    return v;
}
static inline int islet_mosq_err_oversize_packet(void) { return MOSQ_ERR_OVERSIZE_PACKET; }
static inline int islet_sub_opt_retain_as_published(void) { return MQTT_SUB_OPT_RETAIN_AS_PUBLISHED; }
static inline int islet_log_warnings_and_errors(void) { return MOSQ_LOG_ERR | MOSQ_LOG_WARNING; }

// The errno a failed call left, read at once (Swift may run code that changes it).
static inline int islet_mosq_errno(void) { return errno; }

// Frees what a property reader (mosquitto_property_read_binary) allocated for the caller: the
// memory is the C library's, so C releases it and Swift needs no C library of its own.
static inline void islet_mosq_free_property_value(void *value) { free(value); }

#endif
