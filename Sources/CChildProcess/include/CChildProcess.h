#ifndef CLAVIS_CHILD_PROCESS_H
#define CLAVIS_CHILD_PROCESS_H

#include <sys/types.h>

/// Starts `path` with `argv` (NULL-terminated, argv[0] first) and the process's environment, from the root folder,
/// with an empty signal mask and default dispositions for the signals a daemon may ignore or catch. The child's
/// standard input and output are pipes: `*input` is the write end to its input, `*output` the read end of its output
/// (both close-on-exec); standard error is inherited, or /dev/null when `discard_errors` is non-zero, and no other
/// descriptor. Returns 0, or the error number when nothing was started.
int clavis_spawn(const char *path, char *const argv[], int discard_errors, int *input, int *output, pid_t *pid);

/// Starts `path` as a background process: `argv` as for `clavis_spawn`, the same environment, folder and signals,
/// standard input and output on /dev/null, standard error on `error_fd`, and no other descriptor of this process
/// (a file another thread has open for writing would otherwise stay busy as long as the child runs). Returns 0, or
/// the error number when nothing was started.
int clavis_spawn_background(const char *path, char *const argv[], int error_fd, pid_t *pid);

#endif
