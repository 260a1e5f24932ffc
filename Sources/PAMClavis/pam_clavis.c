// pam_clavis: hands the login password to the user's keychain, as pam_gnome_keyring does for its keyring.
//
//   auth      optional  pam_clavis.so [clavis=/usr/local/bin/clavis] [socket=PATH] [timeout=SECONDS]
//   password  optional  pam_clavis.so [clavis=/usr/local/bin/clavis] [socket=PATH] [timeout=SECONDS]
//
// auth: once the modules before it accepted the password, unlocks the user's keychain with it (the first unlock
// after boot). password: when the password changes, sets the keychain passcode from the old password to the new one.
// Both run `clavis` as the user (so that clavisd identifies the user's own process), with the passwords written to
// its standard input, each as a 4-byte big-endian length and its bytes (`--stdin-framed`: a line break is part of a
// password like any other byte), never its arguments or environment. The module never fails or holds up a login:
// when clavis has not finished within `timeout` seconds (default 2; a daemon that is stopped or hung), it is killed;
// then, or whenever it could not act, the module answers PAM_IGNORE and says why in the system log.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <syslog.h>
#include <unistd.h>

#define DEFAULT_CLAVIS "/usr/local/bin/clavis"
#define DEFAULT_TIMEOUT_SECONDS 2

struct options {
    const char *clavis;
    const char *socket;
    int timeout_seconds;
};

static struct options read_options(int argc, const char **argv) {
    struct options options = {DEFAULT_CLAVIS, NULL, DEFAULT_TIMEOUT_SECONDS};
    for (int index = 0; index < argc; index++) {
        if (strncmp(argv[index], "clavis=", 7) == 0) options.clavis = argv[index] + 7;
        if (strncmp(argv[index], "socket=", 7) == 0) options.socket = argv[index] + 7;
        if (strncmp(argv[index], "timeout=", 8) == 0) {
            int seconds = atoi(argv[index] + 8);
            if (seconds > 0 && seconds <= 60) options.timeout_seconds = seconds;
        }
    }
    return options;
}

/// The passwords as clavis reads them with --stdin-framed: each a 4-byte big-endian length and its bytes. The
/// buffer (to be wiped and freed by the caller), its length in `length`; NULL when memory ran out.
static unsigned char *framed_passwords(const char *first, const char *second, size_t *length) {
    size_t first_length = strlen(first);
    size_t second_length = second == NULL ? 0 : strlen(second);
    *length = 4 + first_length + (second == NULL ? 0 : 4 + second_length);
    unsigned char *buffer = malloc(*length);
    if (buffer == NULL) return NULL;
    unsigned char *next = buffer;
    const char *passwords[2] = {first, second};
    size_t lengths[2] = {first_length, second_length};
    for (int index = 0; index < 2 && passwords[index] != NULL; index++) {
        uint32_t size = (uint32_t)lengths[index];
        next[0] = (unsigned char)(size >> 24);
        next[1] = (unsigned char)(size >> 16);
        next[2] = (unsigned char)(size >> 8);
        next[3] = (unsigned char)size;
        memcpy(next + 4, passwords[index], lengths[index]);
        next += 4 + lengths[index];
    }
    return buffer;
}

static long long monotonic_milliseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/// Starts `clavis VERB --stdin-framed` as `user`, reading from `input`; the child's pid, or -1.
static pid_t start_clavis(const struct options *options, const struct passwd *user, const char *verb, int input) {
    pid_t child = fork();
    if (child != 0) return child;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (dup2(input, STDIN_FILENO) < 0) _exit(127);
    if (setgid(user->pw_gid) != 0 || initgroups(user->pw_name, user->pw_gid) != 0 || setuid(user->pw_uid) != 0) {
        _exit(126);
    }
    char home[4096 + 8];
    snprintf(home, sizeof home, "HOME=%s", user->pw_dir);
    char socket[4096 + 16];
    char *environment[4] = {home, "PATH=/usr/bin:/bin", NULL, NULL};
    if (options->socket != NULL) {
        snprintf(socket, sizeof socket, "CLAVIS_SOCKET=%s", options->socket);
        environment[2] = socket;
    }
    char *arguments[] = {(char *)options->clavis, (char *)verb, "--stdin-framed", NULL};
    execve(options->clavis, arguments, environment);
    _exit(127);
}

/// Writes what of `buffer` the pipe `output` (non-blocking) takes now; false when the reader is gone.
static int write_some(int output, const unsigned char *buffer, size_t length, size_t *written) {
    while (*written < length) {
        ssize_t count = write(output, buffer + *written, length - *written);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0) return errno == EAGAIN || errno == EWOULDBLOCK;
        *written += (size_t)count;
    }
    return 1;
}

/// Writes `framed` to the pipe `*output` (non-blocking; closed and set to -1 once all is written or the reader is
/// gone) while waiting for `child` to end (woken by its pidfd `exited`, or every 10 ms without one), for at most
/// `timeout_seconds`. 1 once the child has ended (its status in `*status`, -1 when the host program reaped it), 0 at
/// the timeout; `*handed_over` is 0 when the child stopped reading before it had everything.
static int hand_over_and_wait(pid_t child, int exited, int *output, const unsigned char *framed, size_t length,
                              int timeout_seconds, int *status, int *handed_over) {
    long long deadline = monotonic_milliseconds() + (long long)timeout_seconds * 1000;
    size_t written = 0;
    while (1) {
        if (*output >= 0) {
            *handed_over = write_some(*output, framed, length, &written);
            if (!*handed_over || written == length) {
                close(*output);
                *output = -1;
            }
        }
        pid_t reaped = waitpid(child, status, WNOHANG);
        if (reaped == child) return 1;
        if (reaped < 0 && errno == ECHILD) {
            // The host program reaps its children itself (or ignores SIGCHLD): clavis has ended, its status unknown.
            *status = -1;
            return 1;
        }
        long long remaining = deadline - monotonic_milliseconds();
        if (remaining <= 0) return 0;
        struct pollfd watch[2] = {{.fd = exited, .events = POLLIN}, {.fd = *output, .events = POLLOUT}};
        int wait = exited >= 0 ? (int)remaining : (remaining < 10 ? (int)remaining : 10);
        poll(watch, 2, wait);
    }
}

/// Runs `clavis VERB` as `user` with `first` (and `second`, when given) framed on its standard input, for at most the
/// options' timeout; the exit status of clavis, or -1 when it could not be run or was killed at the timeout.
static int run_clavis(pam_handle_t *pamh, const struct options *options, const struct passwd *user, const char *verb,
                      const char *first, const char *second) {
    size_t length = 0;
    unsigned char *framed = framed_passwords(first, second, &length);
    if (framed == NULL) return -1;
    int input[2];
    if (pipe2(input, O_CLOEXEC) != 0) {
        explicit_bzero(framed, length);
        free(framed);
        return -1;
    }
    pid_t child = start_clavis(options, user, verb, input[0]);
    close(input[0]);
    int output = input[1];
    if (child < 0) {
        close(output);
        explicit_bzero(framed, length);
        free(framed);
        return -1;
    }
    fcntl(output, F_SETFL, fcntl(output, F_GETFL) | O_NONBLOCK);
    int exited = (int)syscall(SYS_pidfd_open, child, 0);
    struct sigaction ignore = {.sa_handler = SIG_IGN}, previous;
    sigaction(SIGPIPE, &ignore, &previous);
    int status = 0, handed_over = 1;
    int finished = hand_over_and_wait(child, exited, &output, framed, length, options->timeout_seconds, &status,
                                      &handed_over);
    if (!finished) {
        // Through the pidfd where there is one: it names this child even if something else reaped it meanwhile.
        if (exited < 0 || syscall(SYS_pidfd_send_signal, exited, SIGKILL, NULL, 0) != 0) kill(child, SIGKILL);
        while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
        }
        pam_syslog(pamh, LOG_WARNING, "gave up on %s %s after %d s (is clavisd running?)", options->clavis, verb,
                   options->timeout_seconds);
    }
    if (output >= 0) close(output);
    if (exited >= 0) close(exited);
    sigaction(SIGPIPE, &previous, NULL);
    explicit_bzero(framed, length);
    free(framed);
    if (!finished) return -1;
    if (!handed_over) pam_syslog(pamh, LOG_WARNING, "could not hand the password to %s", options->clavis);
    if (status == -1) {
        pam_syslog(pamh, LOG_NOTICE, "%s %s ended, its exit status taken by the host program", options->clavis, verb);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/// The user PAM authenticates, or NULL after logging why.
static const struct passwd *target_user(pam_handle_t *pamh) {
    const char *name = NULL;
    if (pam_get_user(pamh, &name, NULL) != PAM_SUCCESS || name == NULL) return NULL;
    const struct passwd *user = getpwnam(name);
    if (user == NULL) pam_syslog(pamh, LOG_WARNING, "no such user %s", name);
    return user;
}

PAM_EXTERN int pam_sm_authenticate(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)flags;
    struct options options = read_options(argc, argv);
    const struct passwd *user = target_user(pamh);
    if (user == NULL) return PAM_IGNORE;
    const char *password = NULL;
    if (pam_get_authtok(pamh, PAM_AUTHTOK, &password, NULL) != PAM_SUCCESS || password == NULL) return PAM_IGNORE;
    int status = run_clavis(pamh, &options, user, "unlock-keychain", password, NULL);
    if (status != 0) {
        pam_syslog(pamh, LOG_NOTICE, "the keychain of %s stays locked (%s exited %d)", user->pw_name,
                   options.clavis, status);
        return PAM_IGNORE;
    }
    return PAM_SUCCESS;
}

PAM_EXTERN int pam_sm_setcred(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    (void)pamh;
    (void)flags;
    (void)argc;
    (void)argv;
    return PAM_IGNORE;
}

PAM_EXTERN int pam_sm_chauthtok(pam_handle_t *pamh, int flags, int argc, const char **argv) {
    struct options options = read_options(argc, argv);
    const char *old_password = NULL;
    if (flags & PAM_PRELIM_CHECK) {
        // The old password is asked for (or taken from a module before) now, so the update below has it.
        pam_get_authtok(pamh, PAM_OLDAUTHTOK, &old_password, NULL);
        return PAM_IGNORE;
    }
    if (!(flags & PAM_UPDATE_AUTHTOK)) return PAM_IGNORE;
    const struct passwd *user = target_user(pamh);
    if (user == NULL) return PAM_IGNORE;
    const char *new_password = NULL;
    if (pam_get_item(pamh, PAM_OLDAUTHTOK, (const void **)&old_password) != PAM_SUCCESS || old_password == NULL) {
        return PAM_IGNORE;
    }
    if (pam_get_authtok(pamh, PAM_AUTHTOK, &new_password, NULL) != PAM_SUCCESS || new_password == NULL) {
        return PAM_IGNORE;
    }
    int status = run_clavis(pamh, &options, user, "set-keychain-password", old_password, new_password);
    if (status != 0) {
        pam_syslog(pamh, LOG_NOTICE, "the keychain passcode of %s was not changed (%s exited %d)", user->pw_name,
                   options.clavis, status);
        return PAM_IGNORE;
    }
    return PAM_SUCCESS;
}
