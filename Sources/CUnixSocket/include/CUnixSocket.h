#ifndef CLAVIS_UNIX_SOCKET_H
#define CLAVIS_UNIX_SOCKET_H

// Unix-domain sockets for clavisd and its clients: the calls Swift cannot make directly (sockaddr_un casts,
// SO_PEERCRED's struct ucred, the pidfd system calls). Plain C types only, so that this header includes no system
// header another module also includes.

#include <stddef.h>

/// The system's text for the last error (errno), for messages.
const char *clavis_last_error_text(void);

/// Connects to the socket at `path`; the descriptor (close-on-exec), or -1 with errno set.
int clavis_socket_connect(const char *path);

/// Binds a listening socket at `path` (a stale socket file there is replaced, anything else refused), with file
/// mode `mode`; the descriptor, or -1 with errno set.
int clavis_socket_listen(const char *path, unsigned int mode);

/// Accepts a connection (close-on-exec); the descriptor, or -1 with errno set.
int clavis_socket_accept(int fd);

/// Writes all of `buffer` without raising SIGPIPE; 0, or -1 with errno set.
int clavis_socket_send_all(int fd, const void *buffer, size_t length);

/// Reads exactly `length` bytes; 0, 1 at a clean end of stream before the first byte, or -1 with errno set
/// (ECONNRESET for an end of stream in the middle).
int clavis_socket_receive_all(int fd, void *buffer, size_t length);

/// The peer's process, user and group at connect time (SO_PEERCRED); 0, or -1 with errno set.
int clavis_socket_peer(int fd, int *pid, unsigned int *uid, unsigned int *gid);

/// A descriptor pinning process `pid` (pidfd_open), or -1 with errno set.
int clavis_pidfd_open(int pid);

/// 1 while the process `pidfd` pins is still running, else 0 (a pidfd becomes readable when its process exits;
/// unlike a signal test, this needs no permission over the process).
int clavis_pidfd_is_alive(int pidfd);

#endif
