#include "CJournal.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>

int clavis_journal_available(void) {
    struct stat info;
    return stat("/run/systemd/journal/socket", &info) == 0 && S_ISSOCK(info.st_mode);
}

int clavis_journal_send(const char *const *fields, const size_t *lengths, int count) {
    if (count <= 0 || count > 64) return -22;
    struct iovec vector[64];
    for (int index = 0; index < count; index++) {
        vector[index].iov_base = (void *)fields[index];
        vector[index].iov_len = lengths[index];
    }
    return sd_journal_sendv(vector, count);
}
