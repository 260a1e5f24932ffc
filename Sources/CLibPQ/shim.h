#ifndef CLAVIS_LIBPQ_H
#define CLAVIS_LIBPQ_H

// libpq's header (Debian: libpq-dev, under /usr/include/postgresql, which pkg-config names); the library is loaded at
// run time, see CPostgres. Only CPostgres's C file uses it; Swift sees CPostgres's plain C functions.
#include <libpq-fe.h>

#endif
