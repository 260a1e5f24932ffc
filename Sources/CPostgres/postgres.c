// libpq, loaded on first use: its functions are found once per process.
#include "CPostgres.h"
#include <libpq-fe.h>
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#define CLAVIS_PQ_FUNCTIONS(X)                                                                                       \
    X(PQconnectdbParams)                                                                                             \
    X(PQstatus)                                                                                                      \
    X(PQerrorMessage)                                                                                                \
    X(PQfinish)                                                                                                      \
    X(PQexecParams)                                                                                                  \
    X(PQexec)                                                                                                        \
    X(PQresultStatus)                                                                                                \
    X(PQresultErrorMessage)                                                                                          \
    X(PQresultErrorField)                                                                                            \
    X(PQntuples)                                                                                                     \
    X(PQnfields)                                                                                                     \
    X(PQftype)                                                                                                       \
    X(PQgetisnull)                                                                                                   \
    X(PQgetvalue)                                                                                                    \
    X(PQgetlength)                                                                                                   \
    X(PQclear)                                                                                                       \
    X(PQsocket)                                                                                                      \
    X(PQconsumeInput)                                                                                                \
    X(PQnotifies)                                                                                                    \
    X(PQfreemem)                                                                                                     \
    X(PQsetNoticeProcessor)

static struct {
#define CLAVIS_PQ_FIELD(name) __typeof__(name) *name;
    CLAVIS_PQ_FUNCTIONS(CLAVIS_PQ_FIELD)
#undef CLAVIS_PQ_FIELD
} api;
static int loaded;
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return;
#define CLAVIS_PQ_FIND(name)                                                                                         \
    *(void **)(&api.name) = dlsym(library, #name);                                                                   \
    if (api.name == NULL) {                                                                                          \
        dlclose(library);                                                                                            \
        return;                                                                                                      \
    }
    CLAVIS_PQ_FUNCTIONS(CLAVIS_PQ_FIND)
#undef CLAVIS_PQ_FIND
    loaded = 1;
}

int clavis_pg_available(void) {
    pthread_once(&load_once, load);
    return loaded;
}

static void copy_text(const char *text, char *buffer, size_t capacity) {
    if (capacity == 0) return;
    size_t length = text == NULL ? 0 : strlen(text);
    if (length >= capacity) length = capacity - 1;
    if (length > 0) memcpy(buffer, text, length);
    buffer[length] = '\0';
}

/// Drops the server's notices ("already exists, skipping"): libpq's default prints them on standard error.
static void ignore_notice(void *context, const char *message) {
    (void)context;
    (void)message;
}

clavis_pg *clavis_pg_connect(const char *conninfo, char *error, size_t capacity) {
    if (!clavis_pg_available()) {
        copy_text("libpq.so.5 could not be loaded (Debian: libpq5)", error, capacity);
        return NULL;
    }
    // Clavis's defaults first, then the caller's connection string (expanded in its place), whose settings win:
    // a server that stops answering is noticed within a minute or so (TCP keepalives, a bound on unacknowledged
    // writes) rather than holding a sync round, and the commands that wait on it, for good.
    const char *keywords[] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                              "keepalives_count", "tcp_user_timeout", "dbname", NULL};
    const char *values[] = {"15", "1", "30", "10", "3", "30000", conninfo, NULL};
    PGconn *connection = api.PQconnectdbParams(keywords, values, 1);
    if (connection == NULL) {
        copy_text("libpq could not allocate a connection", error, capacity);
        return NULL;
    }
    if (api.PQstatus(connection) != CONNECTION_OK) {
        copy_text(api.PQerrorMessage(connection), error, capacity);
        api.PQfinish(connection);
        return NULL;
    }
    api.PQsetNoticeProcessor(connection, ignore_notice, NULL);
    return (clavis_pg *)connection;
}

void clavis_pg_close(clavis_pg *connection) {
    if (connection != NULL) api.PQfinish((PGconn *)connection);
}

int clavis_pg_is_connected(clavis_pg *connection) {
    return api.PQstatus((const PGconn *)connection) == CONNECTION_OK;
}

const char *clavis_pg_connection_error(clavis_pg *connection) { return api.PQerrorMessage((PGconn *)connection); }

clavis_pg_result *clavis_pg_execute(
    clavis_pg *connection, const char *sql, int count, const char *const *values, const int *lengths,
    const int *formats) {
    return (clavis_pg_result *)api.PQexecParams(
        (PGconn *)connection, sql, count, NULL, values, lengths, formats, 1);
}

clavis_pg_result *clavis_pg_execute_script(clavis_pg *connection, const char *sql) {
    return (clavis_pg_result *)api.PQexec((PGconn *)connection, sql);
}

int clavis_pg_succeeded(const clavis_pg_result *result) {
    if (result == NULL) return 0;
    ExecStatusType status = api.PQresultStatus((const PGresult *)result);
    return status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK;
}

const char *clavis_pg_result_error(const clavis_pg_result *result) {
    return api.PQresultErrorMessage((const PGresult *)result);
}

const char *clavis_pg_result_state(const clavis_pg_result *result) {
    const char *state = api.PQresultErrorField((const PGresult *)result, PG_DIAG_SQLSTATE);
    return state == NULL ? "" : state;
}

int clavis_pg_rows(const clavis_pg_result *result) { return api.PQntuples((const PGresult *)result); }

int clavis_pg_columns(const clavis_pg_result *result) { return api.PQnfields((const PGresult *)result); }

uint32_t clavis_pg_column_type(const clavis_pg_result *result, int column) {
    return (uint32_t)api.PQftype((const PGresult *)result, column);
}

int clavis_pg_is_null(const clavis_pg_result *result, int row, int column) {
    return api.PQgetisnull((const PGresult *)result, row, column);
}

const char *clavis_pg_value(const clavis_pg_result *result, int row, int column) {
    return api.PQgetvalue((const PGresult *)result, row, column);
}

int clavis_pg_length(const clavis_pg_result *result, int row, int column) {
    return api.PQgetlength((const PGresult *)result, row, column);
}

void clavis_pg_clear(clavis_pg_result *result) {
    if (result != NULL) api.PQclear((PGresult *)result);
}

int clavis_pg_socket(clavis_pg *connection) { return api.PQsocket((const PGconn *)connection); }

int clavis_pg_consume_input(clavis_pg *connection) { return api.PQconsumeInput((PGconn *)connection); }

int clavis_pg_next_notification(
    clavis_pg *connection, char *channel, size_t channel_capacity, char *payload, size_t payload_capacity) {
    PGnotify *notification = api.PQnotifies((PGconn *)connection);
    if (notification == NULL) return 0;
    copy_text(notification->relname, channel, channel_capacity);
    copy_text(notification->extra, payload, payload_capacity);
    api.PQfreemem(notification);
    return 1;
}
