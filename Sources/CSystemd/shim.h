#ifndef CLAVIS_SYSTEMD_H
#define CLAVIS_SYSTEMD_H

// libsystemd's daemon helpers (Debian: libsystemd-dev): socket activation and readiness notification. The two
// functions are declared here as <systemd/sd-daemon.h> declares them, so that this module includes no system
// header another module of the daemon also includes.
int sd_listen_fds(int unset_environment);
int sd_notify(int unset_environment, const char *state);

/// The first socket systemd passed (SD_LISTEN_FDS_START, 3), or -1 when none was passed.
static inline int clavis_systemd_listening_socket(void) {
    return sd_listen_fds(1) >= 1 ? 3 : -1;
}

/// Tells systemd the daemon is ready (Type=notify); harmless without systemd.
static inline void clavis_systemd_notify_ready(void) {
    sd_notify(0, "READY=1");
}

#endif
