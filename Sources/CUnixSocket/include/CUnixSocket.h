#ifndef CLAVIS_UNIX_SOCKET_H
#define CLAVIS_UNIX_SOCKET_H

// Unix-domain sockets for clavisd and its clients: the calls Swift cannot make directly (sockaddr_un casts,
// SO_PEERCRED's struct ucred, the pidfd system calls). Plain C types only, so that this header includes no system
// header another module also includes.

#include <stddef.h>

/// The system's text for the last error (errno), for messages.
const char *clavis_last_error_text(void);

/// The last error number (errno).
int clavis_last_errno(void);

/// Waits up to `milliseconds` for `fd` to become readable (a pause that a signal or a connection ends early).
void clavis_wait_readable(int fd, int milliseconds);

/// Sets how long a receive on `fd` may block before failing with EAGAIN; 0, or -1 with errno set.
int clavis_socket_receive_timeout(int fd, int seconds);

/// A pidfd for the peer of `fd` bound by the kernel at connect time (SO_PEERPIDFD, Linux 6.5), or -1 with errno
/// set (ENOPROTOOPT on older kernels).
int clavis_socket_peer_pidfd(int fd);

/// Opens the executable of process `pid` (`/proc/<pid>/exe`) for reading; the descriptor, or -1 with errno set.
int clavis_open_process_executable(int pid);

/// Opens process `pid`'s folder in /proc (`O_PATH`): a descriptor bound to that process, through which nothing is
/// found once it has ended, even when its pid is reused; the descriptor, or -1 with errno set.
int clavis_open_process_directory(int pid);

/// The device and inode of the executable the process of `directory` (from `clavis_open_process_directory`) runs
/// now: one system call; 0, or -1 with errno set (ESRCH or ENOENT once the process has ended).
int clavis_process_executable_identity(int directory, unsigned long long *device, unsigned long long *inode);

/// The device and inode of the file open as `fd`; 0, or -1 with errno set.
int clavis_file_identity(int fd, unsigned long long *device, unsigned long long *inode);

/// Reads `length` bytes at `address` in process `pid`'s memory (process_vm_readv: CAP_SYS_PTRACE, or a process of
/// the same user that may be traced); the count read, or -1 with errno set.
long clavis_read_process_memory(int pid, unsigned long long address, void *buffer, size_t length);

/// The user named `name` in the password database, or -1 when there is none.
long long clavis_user_id(const char *name);

/// Connects to the socket at `path`; the descriptor (close-on-exec), or -1 with errno set.
int clavis_socket_connect(const char *path);

/// Binds a listening socket at `path` (a stale socket file there is replaced, anything else refused), with file
/// mode `mode`; the descriptor, or -1 with errno set.
int clavis_socket_listen(const char *path, unsigned int mode);

/// Accepts a connection (close-on-exec); the descriptor, or -1 with errno set.
int clavis_socket_accept(int fd);

/// Writes all of `head`, then all of `body`, in one system call when the socket takes them at once, without
/// raising SIGPIPE; 0, or -1 with errno set (ETIMEDOUT when `limit_seconds`, if above 0, passed before the peer took
/// them all).
int clavis_socket_send_two(int fd, const void *head, size_t head_length, const void *body, size_t body_length,
                           int limit_seconds);

/// Reads exactly `length` bytes; 0, 1 at a clean end of stream before the first byte, or -1 with errno set
/// (ECONNRESET for an end of stream in the middle).
int clavis_socket_receive_all(int fd, void *buffer, size_t length);

/// Reads what has arrived, at most `length` bytes, waiting for at least one; the count, 0 at the end of the stream,
/// or -1 with errno set.
long clavis_socket_receive_some(int fd, void *buffer, size_t length);

/// Reads what has already arrived, at most `length` bytes, without waiting; the count, 0 at the end of the stream,
/// or -1 with errno set (EAGAIN when nothing waits).
long clavis_socket_receive_waiting(int fd, void *buffer, size_t length);

/// As `clavis_socket_receive_some`, but first polls without sleeping for up to `poll_microseconds`, yielding the
/// processor between tries, and only then waits asleep: an answer (or a next request) that comes within that time
/// is taken without the cross-processor wake-up of a sleeping thread.
long clavis_socket_receive_some_polling(int fd, void *buffer, size_t length, unsigned int poll_microseconds);

/// The peer's process, user and group at connect time (SO_PEERCRED); 0, or -1 with errno set.
int clavis_socket_peer(int fd, int *pid, unsigned int *uid, unsigned int *gid);

/// A descriptor pinning process `pid` (pidfd_open), or -1 with errno set.
int clavis_pidfd_open(int pid);

/// 1 while the process `pidfd` pins is still running, else 0 (a pidfd becomes readable when its process exits;
/// unlike a signal test, this needs no permission over the process).
int clavis_pidfd_is_alive(int pidfd);

/// The process that sent a chunk of a stream, as the kernel attached it (SCM_CREDENTIALS): pid 0 when it attached
/// none.
struct clavis_sender {
    int pid;
    unsigned int uid;
    unsigned int gid;
};

/// Asks the kernel to attach the sending process's credentials to everything sent to `fd` (SO_PASSCRED; a listening
/// socket passes it to the connections it accepts, and the kernel attaches them from the connect on); 0, or -1 with
/// errno set.
int clavis_socket_pass_credentials(int fd);

/// How many bytes have arrived on `fd` and wait to be read (SIOCINQ), or -1 with errno set.
long clavis_socket_unread_count(int fd);

/// As `clavis_socket_receive_some_polling`, on a socket with `clavis_socket_pass_credentials`: the bytes returned
/// all come from one sending process (the kernel never joins two writers' bytes in one receive), named in `sender`
/// (NULL: not asked for).
long clavis_socket_receive_credited(int fd, void *buffer, size_t length, unsigned int poll_microseconds,
                                    struct clavis_sender *sender);

/// As `clavis_socket_receive_all`, every byte sent by the process `expected` names (NULL: any); bytes of another
/// sender fail with EPROTO.
int clavis_socket_receive_all_from(int fd, void *buffer, size_t length, const struct clavis_sender *expected);

#endif
