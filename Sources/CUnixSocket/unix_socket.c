#define _GNU_SOURCE
#include "CUnixSocket.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/time.h>
#include <poll.h>
#include <stdatomic.h>
#include <pwd.h>
#include <sched.h>
#include <time.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/sockios.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

const char *clavis_last_error_text(void) {
    return strerror(errno);
}

int clavis_last_errno(void) {
    return errno;
}

void clavis_wait_readable(int fd, int milliseconds) {
    struct pollfd watch = {.fd = fd, .events = POLLIN, .revents = 0};
    poll(&watch, 1, milliseconds);
}

int clavis_socket_receive_timeout(int fd, int seconds) {
    struct timeval timeout = {.tv_sec = seconds, .tv_usec = 0};
    return setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
}

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD 77
#endif

int clavis_socket_peer_pidfd(int fd) {
    int pidfd = -1;
    socklen_t size = sizeof pidfd;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &size) != 0) return -1;
    return pidfd;
}

int clavis_open_process_executable(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    return open(path, O_RDONLY | O_CLOEXEC);
}

int clavis_open_process_directory(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d", pid);
    return open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

int clavis_process_executable_identity(int directory, unsigned long long *device, unsigned long long *inode) {
    struct stat info;
    if (fstatat(directory, "exe", &info, 0) != 0) return -1;
    *device = (unsigned long long)info.st_dev;
    *inode = (unsigned long long)info.st_ino;
    return 0;
}

int clavis_file_identity(int fd, unsigned long long *device, unsigned long long *inode) {
    struct stat info;
    if (fstat(fd, &info) != 0) return -1;
    *device = (unsigned long long)info.st_dev;
    *inode = (unsigned long long)info.st_ino;
    return 0;
}

long long clavis_user_id(const char *name) {
    struct passwd entry;
    struct passwd *found = NULL;
    char buffer[4096];
    if (getpwnam_r(name, &entry, buffer, sizeof buffer, &found) != 0 || found == NULL) return -1;
    return (long long)found->pw_uid;
}

static int clavis_address(const char *path, struct sockaddr_un *address) {
    memset(address, 0, sizeof *address);
    address->sun_family = AF_UNIX;
    if (strlen(path) >= sizeof address->sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(address->sun_path, path);
    return 0;
}

int clavis_socket_connect(const char *path) {
    struct sockaddr_un address;
    if (clavis_address(path, &address) != 0) return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int clavis_socket_listen(const char *path, unsigned int mode) {
    struct sockaddr_un address;
    if (clavis_address(path, &address) != 0) return -1;
    struct stat existing;
    if (lstat(path, &existing) == 0) {
        if (!S_ISSOCK(existing.st_mode)) {
            errno = EEXIST;
            return -1;
        }
        unlink(path);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    mode_t previous = umask(0777 & ~(mode_t)mode);
    int bound = bind(fd, (struct sockaddr *)&address, sizeof address);
    umask(previous);
    if (bound != 0 || chmod(path, (mode_t)mode) != 0 || listen(fd, 128) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int clavis_socket_accept(int fd) {
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC);
}

static long long clavis_monotonic_microseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000000 + now.tv_nsec / 1000;
}

int clavis_socket_send_two(int fd, const void *head, size_t head_length, const void *body, size_t body_length,
                           int limit_seconds) {
    struct iovec parts[2] = {
        {.iov_base = (void *)head, .iov_len = head_length},
        {.iov_base = (void *)body, .iov_len = body_length},
    };
    struct iovec *next = parts;
    int count = 2;
    /* With a limit, nothing blocks inside sendmsg: each send takes what fits, and the waits for room between them
       share one deadline (a timeout on the socket would start again at every wait, so a peer reading a little now
       and then could hold the sender for hours). */
    long long deadline =
        limit_seconds > 0 ? clavis_monotonic_microseconds() + (long long)limit_seconds * 1000000 : 0;
    while (count > 0) {
        struct msghdr message = {.msg_iov = next, .msg_iovlen = (size_t)count};
        ssize_t sent = sendmsg(fd, &message, MSG_NOSIGNAL | (deadline > 0 ? MSG_DONTWAIT : 0));
        if (sent < 0) {
            if (errno == EINTR) continue;
            if (deadline > 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                long long remaining = (deadline - clavis_monotonic_microseconds() + 999) / 1000;
                if (remaining <= 0) {
                    errno = ETIMEDOUT;
                    return -1;
                }
                struct pollfd room = {.fd = fd, .events = POLLOUT, .revents = 0};
                if (poll(&room, 1, remaining > 60000 ? 60000 : (int)remaining) < 0 && errno != EINTR) return -1;
                continue;
            }
            return -1;
        }
        while (count > 0 && (size_t)sent >= next->iov_len) {
            sent -= (ssize_t)next->iov_len;
            next++;
            count--;
        }
        if (count > 0) {
            next->iov_base = (char *)next->iov_base + sent;
            next->iov_len -= (size_t)sent;
        }
    }
    return 0;
}

/* One receive of what has arrived (`flags` as recv's), retrying after a signal; with `sender`, through recvmsg with
   room for the sending process's credentials, which `sender` is set to (pid 0 for a chunk that carries none). */
static long clavis_receive_once(int fd, void *buffer, size_t length, int flags, struct clavis_sender *sender) {
    union {
        struct cmsghdr header;
        char room[CMSG_SPACE(sizeof(struct ucred))];
    } control;
    struct iovec part = {.iov_base = buffer, .iov_len = length};
    while (1) {
        struct msghdr message = {
            .msg_iov = &part, .msg_iovlen = 1, .msg_control = control.room, .msg_controllen = sizeof control.room};
        ssize_t got =
            sender == NULL ? recv(fd, buffer, length, flags) : recvmsg(fd, &message, flags | MSG_CMSG_CLOEXEC);
        if (got < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        if (sender == NULL) return (long)got;
        sender->pid = 0;
        sender->uid = (unsigned int)-1;
        sender->gid = (unsigned int)-1;
        for (struct cmsghdr *item = CMSG_FIRSTHDR(&message); item != NULL; item = CMSG_NXTHDR(&message, item)) {
            if (item->cmsg_level == SOL_SOCKET && item->cmsg_type == SCM_CREDENTIALS &&
                item->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
                struct ucred credentials;
                memcpy(&credentials, CMSG_DATA(item), sizeof credentials);
                sender->pid = credentials.pid;
                sender->uid = credentials.uid;
                sender->gid = credentials.gid;
            }
        }
        return (long)got;
    }
}

int clavis_socket_receive_all_from(int fd, void *buffer, size_t length, const struct clavis_sender *expected) {
    char *next = buffer;
    size_t wanted = length;
    while (wanted > 0) {
        struct clavis_sender sender;
        long got = clavis_receive_once(fd, next, wanted, 0, expected == NULL ? NULL : &sender);
        if (got < 0) return -1;
        if (got == 0) {
            if (wanted == length) return 1;
            errno = ECONNRESET;
            return -1;
        }
        if (expected != NULL &&
            (sender.pid != expected->pid || sender.uid != expected->uid || sender.gid != expected->gid)) {
            errno = EPROTO;
            return -1;
        }
        next += got;
        wanted -= (size_t)got;
    }
    return 0;
}

int clavis_socket_receive_all(int fd, void *buffer, size_t length) {
    return clavis_socket_receive_all_from(fd, buffer, length, NULL);
}

long clavis_socket_receive_waiting(int fd, void *buffer, size_t length) {
    return clavis_receive_once(fd, buffer, length, MSG_DONTWAIT, NULL);
}

long clavis_socket_receive_some(int fd, void *buffer, size_t length) {
    return clavis_receive_once(fd, buffer, length, 0, NULL);
}

long clavis_socket_receive_some_polling(int fd, void *buffer, size_t length, unsigned int poll_microseconds) {
    return clavis_socket_receive_credited(fd, buffer, length, poll_microseconds, NULL);
}

int clavis_socket_peer(int fd, int *pid, unsigned int *uid, unsigned int *gid) {
    struct ucred credentials;
    socklen_t size = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &size) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    *gid = credentials.gid;
    return 0;
}

int clavis_pidfd_open(int pid) {
    return (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
}

int clavis_pidfd_is_alive(int pidfd) {
    struct pollfd watch = {.fd = pidfd, .events = POLLIN, .revents = 0};
    return poll(&watch, 1, 0) == 0 ? 1 : 0;
}

int clavis_socket_pass_credentials(int fd) {
    int on = 1;
    return setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &on, sizeof on);
}

long clavis_socket_unread_count(int fd) {
    int count = 0;
    if (ioctl(fd, SIOCINQ, &count) != 0) return -1;
    return count;
}

/// How long a yield may take before it counts as having let another thread run.
#define CLAVIS_YIELD_GIVEN_AWAY_MICROSECONDS 15

/// How many of this process's threads are waiting awake for a receive now.
static atomic_int clavis_awake_receivers;

/// How many threads of a process may wait awake at once: one fewer than the processors, and at least one. Any more
/// would only take turns on the processors the threads they wait for need.
static int clavis_awake_receiver_limit(void) {
    static atomic_int limit;
    int known = atomic_load_explicit(&limit, memory_order_relaxed);
    if (known > 0) return known;
    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    known = processors > 2 ? (int)processors - 1 : 1;
    atomic_store_explicit(&limit, known, memory_order_relaxed);
    return known;
}

/// Receives without blocking until `poll_microseconds` pass, yielding the processor between tries; -1 with EAGAIN
/// when nothing came, or at once when another thread wanted the processor a yield gave away.
static long clavis_receive_awake(int fd, void *buffer, size_t length, unsigned int poll_microseconds,
                                 struct clavis_sender *sender) {
    long long deadline = clavis_monotonic_microseconds() + poll_microseconds;
    while (1) {
        long got = clavis_receive_once(fd, buffer, length, MSG_DONTWAIT, sender);
        if (got >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return got;
        long long now = clavis_monotonic_microseconds();
        if (now >= deadline) return -1;
        sched_yield();
        // A yield that gave the processor away means other threads want it: waiting awake would take it from
        // them (the peer this waits for among them), so sleep at once instead.
        if (clavis_monotonic_microseconds() - now > CLAVIS_YIELD_GIVEN_AWAY_MICROSECONDS) {
            errno = EAGAIN;
            return -1;
        }
    }
}

long clavis_socket_receive_credited(int fd, void *buffer, size_t length, unsigned int poll_microseconds,
                                    struct clavis_sender *sender) {
    if (poll_microseconds > 0) {
        int limit = clavis_awake_receiver_limit();
        int awake = atomic_fetch_add_explicit(&clavis_awake_receivers, 1, memory_order_relaxed);
        long got = -1;
        int failure = EAGAIN;
        if (awake < limit) {
            got = clavis_receive_awake(fd, buffer, length, poll_microseconds, sender);
            if (got < 0) failure = errno;
        }
        atomic_fetch_sub_explicit(&clavis_awake_receivers, 1, memory_order_relaxed);
        if (got >= 0) return got;
        if (failure != EAGAIN && failure != EWOULDBLOCK) {
            errno = failure;
            return -1;
        }
    }
    return clavis_receive_once(fd, buffer, length, 0, sender);
}

long clavis_read_process_memory(int pid, unsigned long long address, void *buffer, size_t length) {
    struct iovec local = {.iov_base = buffer, .iov_len = length};
    struct iovec remote = {.iov_base = (void *)(uintptr_t)address, .iov_len = length};
    return (long)process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
}
