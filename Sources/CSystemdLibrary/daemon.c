#include "CSystemdDaemon.h"
#include "CSystemdLibrary.h"

int clavis_systemd_listening_socket(void) {
    if (clavis_systemd() == NULL) return -1;
    return sd_listen_fds(1) >= 1 ? SD_LISTEN_FDS_START : -1;
}

void clavis_systemd_notify_ready(void) {
    if (clavis_systemd() == NULL) return;
    sd_notify(0, "READY=1");
}
