#ifndef CLAVIS_BUS_LIBRARY_H
#define CLAVIS_BUS_LIBRARY_H

// sd-bus, loaded on first use: `clavis` links no libsystemd (and its seven libraries), which only the D-Bus clients in
// it need (fprintd for biometry, `import-secret-service`). A C file that includes this header calls the functions
// below through the table; it checks `clavis_bus()` before its first call.
#include <systemd/sd-bus.h>

#define CLAVIS_BUS_FUNCTIONS(X)                                                                                   \
    X(sd_bus_open_user) X(sd_bus_open_system) X(sd_bus_flush_close_unref) X(sd_bus_call_method) X(sd_bus_call)  \
    X(sd_bus_message_new_method_call) X(sd_bus_message_append) X(sd_bus_message_read)                          \
    X(sd_bus_message_read_array) X(sd_bus_message_read_strv) X(sd_bus_message_skip)                            \
    X(sd_bus_message_enter_container) X(sd_bus_message_unref) X(sd_bus_get_property)                           \
    X(sd_bus_get_property_string) X(sd_bus_get_property_trivial) X(sd_bus_get_name_creds)                     \
    X(sd_bus_creds_get_pid) X(sd_bus_creds_unref) X(sd_bus_match_signal) X(sd_bus_slot_unref)                  \
    X(sd_bus_process) X(sd_bus_wait) X(sd_bus_error_free) X(sd_bus_error_is_set) X(sd_bus_error_has_name)

#define CLAVIS_BUS_FIELD(name) __typeof__(&name) name;
typedef struct {
    CLAVIS_BUS_FUNCTIONS(CLAVIS_BUS_FIELD)
} clavis_bus_api;
#undef CLAVIS_BUS_FIELD

/// The loaded functions, or NULL when libsystemd cannot be loaded.
const clavis_bus_api *clavis_bus(void);

#ifndef CLAVIS_BUS_LIBRARY
#define sd_bus_open_user (clavis_bus()->sd_bus_open_user)
#define sd_bus_open_system (clavis_bus()->sd_bus_open_system)
#define sd_bus_flush_close_unref (clavis_bus()->sd_bus_flush_close_unref)
#define sd_bus_call_method (clavis_bus()->sd_bus_call_method)
#define sd_bus_call (clavis_bus()->sd_bus_call)
#define sd_bus_message_new_method_call (clavis_bus()->sd_bus_message_new_method_call)
#define sd_bus_message_append (clavis_bus()->sd_bus_message_append)
#define sd_bus_message_read (clavis_bus()->sd_bus_message_read)
#define sd_bus_message_read_array (clavis_bus()->sd_bus_message_read_array)
#define sd_bus_message_read_strv (clavis_bus()->sd_bus_message_read_strv)
#define sd_bus_message_skip (clavis_bus()->sd_bus_message_skip)
#define sd_bus_message_enter_container (clavis_bus()->sd_bus_message_enter_container)
#define sd_bus_message_unref (clavis_bus()->sd_bus_message_unref)
#define sd_bus_get_property (clavis_bus()->sd_bus_get_property)
#define sd_bus_get_property_string (clavis_bus()->sd_bus_get_property_string)
#define sd_bus_get_property_trivial (clavis_bus()->sd_bus_get_property_trivial)
#define sd_bus_get_name_creds (clavis_bus()->sd_bus_get_name_creds)
#define sd_bus_creds_get_pid (clavis_bus()->sd_bus_creds_get_pid)
#define sd_bus_creds_unref (clavis_bus()->sd_bus_creds_unref)
#define sd_bus_match_signal (clavis_bus()->sd_bus_match_signal)
#define sd_bus_slot_unref (clavis_bus()->sd_bus_slot_unref)
#define sd_bus_process (clavis_bus()->sd_bus_process)
#define sd_bus_wait (clavis_bus()->sd_bus_wait)
#define sd_bus_error_free (clavis_bus()->sd_bus_error_free)
#define sd_bus_error_is_set (clavis_bus()->sd_bus_error_is_set)
#define sd_bus_error_has_name (clavis_bus()->sd_bus_error_has_name)
#endif

#endif
