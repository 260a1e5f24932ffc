#ifndef CLAVIS_SYSTEMD_LIBRARY_H
#define CLAVIS_SYSTEMD_LIBRARY_H

// libsystemd, loaded on first use: the one binding of it, for every module that speaks to the bus (the Secret Service
// provider, logind, fprintd, another provider read by `clavis import-secret-service`), writes to the journal or talks
// to systemd (socket activation, readiness). No program links libsystemd (and its seven libraries): `clavis` loads it
// only when a D-Bus client in it runs. A C file that includes this header calls the functions below through the
// table; it checks `clavis_systemd()` before its first call, and fails with -ELIBACC when it is NULL.
// The journal entries Clavis writes name their own fields; the header's CODE_FILE/CODE_LINE wrapper is left out.
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-journal.h>

#define CLAVIS_SYSTEMD_FUNCTIONS(X) \
    X(sd_bus_add_fallback) X(sd_bus_add_fallback_vtable) X(sd_bus_add_node_enumerator)                             \
    X(sd_bus_add_object_vtable) X(sd_bus_call) X(sd_bus_call_method) X(sd_bus_creds_get_pid)                       \
    X(sd_bus_creds_unref) X(sd_bus_error_free) X(sd_bus_error_get_errno) X(sd_bus_error_has_name)                  \
    X(sd_bus_error_is_set) X(sd_bus_error_set) X(sd_bus_error_set_errno) X(sd_bus_error_setf) X(sd_bus_flush)      \
    X(sd_bus_flush_close_unref) X(sd_bus_get_current_message) X(sd_bus_get_events) X(sd_bus_get_fd)                \
    X(sd_bus_get_name_creds) X(sd_bus_get_property) X(sd_bus_get_property_string) X(sd_bus_get_property_trivial)   \
    X(sd_bus_get_timeout) X(sd_bus_match_signal) X(sd_bus_message_append) X(sd_bus_message_append_array)           \
    X(sd_bus_message_close_container) X(sd_bus_message_enter_container) X(sd_bus_message_exit_container)           \
    X(sd_bus_message_get_interface) X(sd_bus_message_get_member) X(sd_bus_message_get_path)                        \
    X(sd_bus_message_get_sender) X(sd_bus_message_new_method_call) X(sd_bus_message_new_method_return)             \
    X(sd_bus_message_new_signal) X(sd_bus_message_open_container) X(sd_bus_message_peek_type)                      \
    X(sd_bus_message_read) X(sd_bus_message_read_array) X(sd_bus_message_read_strv) X(sd_bus_message_ref)          \
    X(sd_bus_message_set_destination) X(sd_bus_message_skip) X(sd_bus_message_unref) X(sd_bus_open_system)         \
    X(sd_bus_open_user) X(sd_bus_process) X(sd_bus_reply_method_errorf) X(sd_bus_reply_method_return)              \
    X(sd_bus_request_name) X(sd_bus_send) X(sd_bus_slot_unref) X(sd_bus_wait) X(sd_journal_sendv)                  \
    X(sd_listen_fds) X(sd_notify)

#define CLAVIS_SYSTEMD_FIELD(name) __typeof__(&name) name;
typedef struct {
    CLAVIS_SYSTEMD_FUNCTIONS(CLAVIS_SYSTEMD_FIELD)
    /// libsystemd's `sd_bus_object_vtable_format`, which the first entry of every vtable must point at.
    const unsigned *vtable_format;
} clavis_systemd_api;
#undef CLAVIS_SYSTEMD_FIELD

/// The loaded functions, or NULL when libsystemd cannot be loaded.
const clavis_systemd_api *clavis_systemd(void);

/// What `SD_BUS_VTABLE_START` points a vtable at until `clavis_systemd_point_vtable` points it at libsystemd's: a
/// static vtable cannot hold the address of a symbol loaded later.
extern const unsigned clavis_systemd_vtable_format_stand_in;

/// Points a vtable, built with `SD_BUS_VTABLE_START`, at the loaded library's format; call it before registering.
static inline void clavis_systemd_point_vtable(sd_bus_vtable *vtable) {
    vtable[0].x.start.vtable_format_reference = clavis_systemd()->vtable_format;
}

#ifndef CLAVIS_SYSTEMD_LIBRARY
#define sd_bus_object_vtable_format clavis_systemd_vtable_format_stand_in
#define sd_bus_add_fallback (clavis_systemd()->sd_bus_add_fallback)
#define sd_bus_add_fallback_vtable (clavis_systemd()->sd_bus_add_fallback_vtable)
#define sd_bus_add_node_enumerator (clavis_systemd()->sd_bus_add_node_enumerator)
#define sd_bus_add_object_vtable (clavis_systemd()->sd_bus_add_object_vtable)
#define sd_bus_call (clavis_systemd()->sd_bus_call)
#define sd_bus_call_method (clavis_systemd()->sd_bus_call_method)
#define sd_bus_creds_get_pid (clavis_systemd()->sd_bus_creds_get_pid)
#define sd_bus_creds_unref (clavis_systemd()->sd_bus_creds_unref)
#define sd_bus_error_free (clavis_systemd()->sd_bus_error_free)
#define sd_bus_error_get_errno (clavis_systemd()->sd_bus_error_get_errno)
#define sd_bus_error_has_name (clavis_systemd()->sd_bus_error_has_name)
#define sd_bus_error_is_set (clavis_systemd()->sd_bus_error_is_set)
#define sd_bus_error_set (clavis_systemd()->sd_bus_error_set)
#define sd_bus_error_set_errno (clavis_systemd()->sd_bus_error_set_errno)
#define sd_bus_error_setf (clavis_systemd()->sd_bus_error_setf)
#define sd_bus_flush (clavis_systemd()->sd_bus_flush)
#define sd_bus_flush_close_unref (clavis_systemd()->sd_bus_flush_close_unref)
#define sd_bus_get_current_message (clavis_systemd()->sd_bus_get_current_message)
#define sd_bus_get_events (clavis_systemd()->sd_bus_get_events)
#define sd_bus_get_fd (clavis_systemd()->sd_bus_get_fd)
#define sd_bus_get_name_creds (clavis_systemd()->sd_bus_get_name_creds)
#define sd_bus_get_property (clavis_systemd()->sd_bus_get_property)
#define sd_bus_get_property_string (clavis_systemd()->sd_bus_get_property_string)
#define sd_bus_get_property_trivial (clavis_systemd()->sd_bus_get_property_trivial)
#define sd_bus_get_timeout (clavis_systemd()->sd_bus_get_timeout)
#define sd_bus_match_signal (clavis_systemd()->sd_bus_match_signal)
#define sd_bus_message_append (clavis_systemd()->sd_bus_message_append)
#define sd_bus_message_append_array (clavis_systemd()->sd_bus_message_append_array)
#define sd_bus_message_close_container (clavis_systemd()->sd_bus_message_close_container)
#define sd_bus_message_enter_container (clavis_systemd()->sd_bus_message_enter_container)
#define sd_bus_message_exit_container (clavis_systemd()->sd_bus_message_exit_container)
#define sd_bus_message_get_interface (clavis_systemd()->sd_bus_message_get_interface)
#define sd_bus_message_get_member (clavis_systemd()->sd_bus_message_get_member)
#define sd_bus_message_get_path (clavis_systemd()->sd_bus_message_get_path)
#define sd_bus_message_get_sender (clavis_systemd()->sd_bus_message_get_sender)
#define sd_bus_message_new_method_call (clavis_systemd()->sd_bus_message_new_method_call)
#define sd_bus_message_new_method_return (clavis_systemd()->sd_bus_message_new_method_return)
#define sd_bus_message_new_signal (clavis_systemd()->sd_bus_message_new_signal)
#define sd_bus_message_open_container (clavis_systemd()->sd_bus_message_open_container)
#define sd_bus_message_peek_type (clavis_systemd()->sd_bus_message_peek_type)
#define sd_bus_message_read (clavis_systemd()->sd_bus_message_read)
#define sd_bus_message_read_array (clavis_systemd()->sd_bus_message_read_array)
#define sd_bus_message_read_strv (clavis_systemd()->sd_bus_message_read_strv)
#define sd_bus_message_ref (clavis_systemd()->sd_bus_message_ref)
#define sd_bus_message_set_destination (clavis_systemd()->sd_bus_message_set_destination)
#define sd_bus_message_skip (clavis_systemd()->sd_bus_message_skip)
#define sd_bus_message_unref (clavis_systemd()->sd_bus_message_unref)
#define sd_bus_open_system (clavis_systemd()->sd_bus_open_system)
#define sd_bus_open_user (clavis_systemd()->sd_bus_open_user)
#define sd_bus_process (clavis_systemd()->sd_bus_process)
#define sd_bus_reply_method_errorf (clavis_systemd()->sd_bus_reply_method_errorf)
#define sd_bus_reply_method_return (clavis_systemd()->sd_bus_reply_method_return)
#define sd_bus_request_name (clavis_systemd()->sd_bus_request_name)
#define sd_bus_send (clavis_systemd()->sd_bus_send)
#define sd_bus_slot_unref (clavis_systemd()->sd_bus_slot_unref)
#define sd_bus_wait (clavis_systemd()->sd_bus_wait)
#define sd_journal_sendv (clavis_systemd()->sd_journal_sendv)
#define sd_listen_fds (clavis_systemd()->sd_listen_fds)
#define sd_notify (clavis_systemd()->sd_notify)
#endif

#endif
