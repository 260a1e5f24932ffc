#define _GNU_SOURCE
#include "CChildProcess.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

extern char **environ;

/// Starts `path` with standard input, output and error as `input`, `output` and `error` (-1 for /dev/null; for
/// error, -1 inherits it and -2 is /dev/null), from the root folder, with no other descriptor of this process (one
/// another thread has open for writing would keep its file busy, ETXTBSY for whoever then runs it, while the child
/// runs), an empty signal mask and default dispositions for the signals a daemon may ignore or catch.
static int spawn_child(const char *path, char *const argv[], int input, int output, int error, pid_t *pid) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (input < 0) {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    } else {
        posix_spawn_file_actions_adddup2(&actions, input, 0);
    }
    if (output < 0) {
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    } else {
        posix_spawn_file_actions_adddup2(&actions, output, 1);
    }
    if (error >= 0) {
        posix_spawn_file_actions_adddup2(&actions, error, 2);
    } else if (error == -2) {
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    posix_spawn_file_actions_addchdir_np(&actions, "/");
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    int reset[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD};
    for (unsigned index = 0; index < sizeof reset / sizeof reset[0]; index++) sigaddset(&defaults, reset[index]);
    posix_spawnattr_setsigmask(&attributes, &empty);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    int failure = posix_spawn(pid, path, &actions, &attributes, argv, environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return failure;
}

int clavis_spawn_background(const char *path, char *const argv[], int error_fd, pid_t *pid) {
    return spawn_child(path, argv, -1, -1, error_fd, pid);
}

int clavis_spawn(const char *path, char *const argv[], int discard_errors, int *input, int *output, pid_t *pid) {
    int to_child[2], from_child[2];
    if (pipe2(to_child, O_CLOEXEC) != 0) return errno;
    if (pipe2(from_child, O_CLOEXEC) != 0) {
        int error = errno;
        close(to_child[0]);
        close(to_child[1]);
        return error;
    }
    int error = spawn_child(path, argv, to_child[0], from_child[1], discard_errors ? -2 : -1, pid);
    close(to_child[0]);
    close(from_child[1]);
    if (error != 0) {
        close(to_child[1]);
        close(from_child[0]);
        return error;
    }
    *input = to_child[1];
    *output = from_child[0];
    return 0;
}
