#ifndef CLAVIS_POSTGRES_H
#define CLAVIS_POSTGRES_H

// A PostgreSQL client for Clavis's sync through libpq, loaded on first use (dlopen): only a program that syncs
// loads it. Plain C types only, so that Swift never sees a libpq structure. Every result is read in binary format.

#include <stddef.h>
#include <stdint.h>

/// An open connection (libpq's PGconn).
typedef struct clavis_pg clavis_pg;

/// The result of one statement (libpq's PGresult).
typedef struct clavis_pg_result clavis_pg_result;

/// 1 when libpq could be loaded and has every function Clavis calls, else 0.
int clavis_pg_available(void);

/// Connects with `conninfo` (libpq's keyword/value or URI syntax; "" takes everything from the PG* environment and
/// the password file). Returns the connection, or NULL with libpq's message copied into `error` (at most
/// `capacity` bytes, NUL-terminated).
clavis_pg *clavis_pg_connect(const char *conninfo, char *error, size_t capacity);

/// Closes a connection (NULL is ignored).
void clavis_pg_close(clavis_pg *connection);

/// 1 while the connection is open, 0 once it failed (the server went away).
int clavis_pg_is_connected(clavis_pg *connection);

/// The connection's last error message (libpq's; owned by the connection).
const char *clavis_pg_connection_error(clavis_pg *connection);

/// Runs `sql` with `count` parameters, each given as text (`formats[i]` 0) or binary (1) bytes of `lengths[i]`
/// (`values[i]` NULL for SQL NULL), and asks for binary results. Returns the result (free it with
/// `clavis_pg_clear`), or NULL when the connection failed to send it.
clavis_pg_result *clavis_pg_execute(
    clavis_pg *connection, const char *sql, int count, const char *const *values, const int *lengths,
    const int *formats);

/// Runs one or more statements without parameters (a migration script); text results.
clavis_pg_result *clavis_pg_execute_script(clavis_pg *connection, const char *sql);

/// 1 when the statement succeeded (a command, or rows), else 0.
int clavis_pg_succeeded(const clavis_pg_result *result);

/// The error's message and its SQLSTATE (five characters; "" when none).
const char *clavis_pg_result_error(const clavis_pg_result *result);
const char *clavis_pg_result_state(const clavis_pg_result *result);

/// The result's shape: rows, columns, and each column's type OID.
int clavis_pg_rows(const clavis_pg_result *result);
int clavis_pg_columns(const clavis_pg_result *result);
uint32_t clavis_pg_column_type(const clavis_pg_result *result, int column);

/// One value: 1 when it is SQL NULL; else its bytes (binary format) and their length.
int clavis_pg_is_null(const clavis_pg_result *result, int row, int column);
const char *clavis_pg_value(const clavis_pg_result *result, int row, int column);
int clavis_pg_length(const clavis_pg_result *result, int row, int column);

/// Frees a result (NULL is ignored).
void clavis_pg_clear(clavis_pg_result *result);

/// The connection's socket, to wait on for notifications (-1 when closed).
int clavis_pg_socket(clavis_pg *connection);

/// Reads what has arrived on the socket; 0 when the connection failed.
int clavis_pg_consume_input(clavis_pg *connection);

/// Takes the next notification received (LISTEN), copying its channel and payload (NUL-terminated, truncated to
/// the capacities); returns 1, or 0 when none is waiting.
int clavis_pg_next_notification(
    clavis_pg *connection, char *channel, size_t channel_capacity, char *payload, size_t payload_capacity);

#endif
