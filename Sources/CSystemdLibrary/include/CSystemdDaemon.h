#ifndef CLAVIS_SYSTEMD_DAEMON_H
#define CLAVIS_SYSTEMD_DAEMON_H

// What clavisd tells systemd and asks of it, through the loaded libsystemd (`CSystemdLibrary.h`). This is the
// header Swift imports: it includes no system header another module of the daemon also includes.

/// The first socket systemd passed (SD_LISTEN_FDS_START, 3), or -1 when none was passed (or no libsystemd loads).
int clavis_systemd_listening_socket(void);

/// Tells systemd the daemon is ready (Type=notify); harmless without systemd.
void clavis_systemd_notify_ready(void);

#endif
