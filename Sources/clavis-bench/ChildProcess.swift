#if os(Linux)
    import Foundation
    import Glibc

    /// Runs a program the way a shell does (`posix_spawn`, inherited environment), feeding `input` on its standard
    /// input and collecting its standard output: the cost a user's script pays per call, with no Foundation
    /// `Process` machinery on top.
    enum ChildProcess {
        /// Runs `path` with `arguments`; returns its exit status (or -1 when it did not exit normally) and output.
        /// With `discardingErrors`, its standard error goes to `/dev/null`.
        static func run(
            _ path: String, _ arguments: [String], input: [UInt8] = [], discardingErrors: Bool = false
        ) -> (status: Int32, output: [UInt8]) {
            var stdinPipe: [Int32] = [0, 0]
            var stdoutPipe: [Int32] = [0, 0]
            guard pipe(&stdinPipe) == 0, pipe(&stdoutPipe) == 0 else { return (-1, []) }
            // Only the duplicated ends reach the child.
            for descriptor in stdinPipe + stdoutPipe { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, stdinPipe[0], 0)
            posix_spawn_file_actions_adddup2(&actions, stdoutPipe[1], 1)
            if discardingErrors { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
            let argv = ([path] + arguments).map { strdup($0) } + [nil]
            defer { for pointer in argv { free(pointer) } }
            var pid: pid_t = 0
            let spawned = posix_spawn(&pid, path, &actions, nil, argv, environ)
            close(stdinPipe[0])
            close(stdoutPipe[1])
            if spawned == 0, !input.isEmpty {
                _ = input.withUnsafeBytes { write(stdinPipe[1], $0.baseAddress, $0.count) }
            }
            close(stdinPipe[1])
            var output: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while spawned == 0 {
                let count = buffer.withUnsafeMutableBytes { read(stdoutPipe[0], $0.baseAddress, $0.count) }
                if count > 0 {
                    output += buffer[0..<count]
                } else if count == 0 || errno != EINTR {
                    break
                }
            }
            close(stdoutPipe[0])
            guard spawned == 0 else { return (-1, []) }
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            // WIFEXITED / WEXITSTATUS are macros Swift does not import.
            return (status & 0x7F == 0 ? (status >> 8) & 0xFF : -1, output)
        }

        /// The full path of `name` on `$PATH`, or `nil`.
        static func find(_ name: String) -> String? {
            let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
            for folder in path.split(separator: ":") {
                let candidate = "\(folder)/\(name)"
                if access(candidate, X_OK) == 0 { return candidate }
            }
            return nil
        }
    }
#endif
