// pam_clavis: hands the login password to the user's keychain, as pam_gnome_keyring does for its keyring.
//
//   auth      optional  pam_clavis.so [clavis=/usr/local/bin/clavis] [socket=PATH]
//   password  optional  pam_clavis.so [clavis=/usr/local/bin/clavis] [socket=PATH]
//
// auth: once the modules before it accepted the password, unlocks the user's keychain with it (the first unlock
// after boot). password: when the password changes, sets the keychain passcode from the old password to the new one.
// Both run `clavis` as the user (so that clavisd identifies the user's own process), with the passwords written to
// its standard input, never its arguments or environment. The module never fails a login: it answers PAM_IGNORE
// when it could not act, and says why in the system log.

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <unistd.h>

#define DEFAULT_CLAVIS "/usr/local/bin/clavis"

struct options {
    const char *clavis;
    const char *socket;
};

static struct options read_options(int argc, const char **argv) {
    struct options options = {DEFAULT_CLAVIS, NULL};
    for (int index = 0; index < argc; index++) {
        if (strncmp(argv[index], "clavis=", 7) == 0) options.clavis = argv[index] + 7;
        if (strncmp(argv[index], "socket=", 7) == 0) options.socket = argv[index] + 7;
    }
    return options;
}

/// Writes all of `text` and a line break to `descriptor`; 0 on success.
static int write_line(int descriptor, const char *text) {
    size_t length = strlen(text);
    while (length > 0) {
        ssize_t written = write(descriptor, text, length);
        if (written < 0 && errno == EINTR) continue;
        if (written <= 0) return -1;
        text += written;
        length -= (size_t)written;
    }
    return write(descriptor, "\n", 1) == 1 ? 0 : -1;
}

/// Runs `clavis VERB` as `user` with `first` (and `second`, when given) as lines of its standard input; the exit
/// status of clavis, or -1 when it could not be run.
static int run_clavis(pam_handle_t *pamh, const struct options *options, const struct passwd *user, const char *verb,
                      const char *first, const char *second) {
    int input[2];
    if (pipe2(input, O_CLOEXEC) != 0) return -1;
    pid_t child = fork();
    if (child < 0) {
        close(input[0]);
        close(input[1]);
        return -1;
    }
    if (child == 0) {
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        if (dup2(input[0], STDIN_FILENO) < 0) _exit(127);
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
        char *arguments[] = {(char *)options->clavis, (char *)verb, NULL};
        execve(options->clavis, arguments, environment);
        _exit(127);
    }
    close(input[0]);
    struct sigaction ignore = {.sa_handler = SIG_IGN}, previous;
    sigaction(SIGPIPE, &ignore, &previous);
    int written = write_line(input[1], first);
    if (written == 0 && second != NULL) written = write_line(input[1], second);
    close(input[1]);
    sigaction(SIGPIPE, &previous, NULL);
    int status = 0;
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) return -1;
    }
    if (written != 0) pam_syslog(pamh, LOG_WARNING, "could not hand the password to %s", options->clavis);
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
