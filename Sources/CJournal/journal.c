#include "CJournal.h"
#include "CSystemdLibrary.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

static const char journal_socket[] = "/run/systemd/journal/socket";

/* The socket file alone is not enough: one left behind by a journal (or a stand-in) that ended is refused, and one
   this process may not write to takes nothing from it either. A journal is there when a datagram can be addressed to
   its socket. */
int clavis_journal_available(void) {
    if (clavis_systemd() == NULL) return 0;
    struct stat info;
    if (stat(journal_socket, &info) != 0 || !S_ISSOCK(info.st_mode)) return 0;
    int probe = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return 1;
    struct sockaddr_un address;
    memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    memcpy(address.sun_path, journal_socket, sizeof journal_socket);
    int connected = connect(probe, (const struct sockaddr *)&address, sizeof address);
    close(probe);
    return connected == 0;
}

int clavis_journal_send(const char *const *fields, const size_t *lengths, int count) {
    if (count <= 0 || count > 64) return -22;
    if (clavis_systemd() == NULL) return -ELIBACC;
    struct iovec vector[64];
    for (int index = 0; index < count; index++) {
        vector[index].iov_base = (void *)fields[index];
        vector[index].iov_len = lengths[index];
    }
    return sd_journal_sendv(vector, count);
}
