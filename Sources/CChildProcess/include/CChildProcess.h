#ifndef CLAVIS_CHILD_PROCESS_H
#define CLAVIS_CHILD_PROCESS_H

#include <sys/types.h>

/// Starts `path` with `argv` (NULL-terminated, argv[0] first) and the process's environment, from the root folder,
/// with an empty signal mask and default dispositions for the signals a daemon may ignore or catch. The child's
/// standard input and output are pipes: `*input` is the write end to its input, `*output` the read end of its output
/// (both close-on-exec); standard error is inherited. Returns 0, or the error number when nothing was started.
int clavis_spawn(const char *path, char *const argv[], int *input, int *output, pid_t *pid);

#endif
