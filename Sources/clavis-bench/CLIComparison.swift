#if os(Linux)
    import ClavisStore
    import Foundation
    import Glibc
    import ClavisSystem

    /// One command per call, as a script calls it: `clavis find-generic-password -w` against `secret-tool lookup`
    /// (gnome-keyring), interleaved in the same run. Runs when the team's gnome-keyring peer script (`--install`)
    /// has installed the peer (gnome-keyring, secret-tool, dbus) and `clavis` was built beside this benchmark.
    enum CLIComparison {
        /// The `clavis` binary beside this executable, when the peer is installed too; else why it is skipped.
        static func availability() -> Result<String, SkipReason> {
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            let clavis = executable.deletingLastPathComponent().appendingPathComponent("clavis").path
            guard access(clavis, X_OK) == 0 else { return .failure(SkipReason("no clavis binary at \(clavis)")) }
            for tool in ["secret-tool", "gnome-keyring-daemon", "dbus-run-session", "busctl"]
            where ChildProcess.find(tool) == nil {
                return .failure(SkipReason("\(tool) is not installed (bash gnome-keyring-peer.sh --install)"))
            }
            return .success(clavis)
        }

        /// Why the comparison did not run.
        struct SkipReason: Error {
            let text: String
            init(_ text: String) { self.text = text }
        }

        /// Builds a keychain of `calls` items for `clavis`, then runs the worker in a private D-Bus session with a
        /// fresh, unlocked gnome-keyring; returns the worker's rows.
        static func measure(clavis: String, calls: Int) throws -> [String] {
            let home = Workloads.temporaryHome()
            let peerHome = NSTemporaryDirectory() + "clavis-bench-peer-\(UUID().uuidString)"
            defer {
                Workloads.remove(home)
                try? FileManager.default.removeItem(atPath: peerHome)
            }
            // `clavis` searches its own default group: its executable name.
            try BenchKeychain.populate(home, count: calls, accessGroup: "clavis")
            let script = """
                set -eu
                export HOME="$1" XDG_RUNTIME_DIR="$1/run" XDG_DATA_HOME="$1/share"
                mkdir -p -m 700 "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME"
                printf pass | gnome-keyring-daemon --foreground --unlock --components=secrets >"$1/daemon.log" 2>&1 &
                daemon=$!
                for _ in $(seq 200); do
                    busctl --user status org.freedesktop.secrets >/dev/null 2>&1 && break; sleep 0.05
                done
                status=0
                "$2" cli-worker "$3" "$4" "$5" || status=$?
                kill "$daemon"; wait "$daemon" || true
                exit $status
                """
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
            try FileManager.default.createDirectory(atPath: peerHome, withIntermediateDirectories: true)
            let run = ChildProcess.runToEnd(
                ChildProcess.find("dbus-run-session")!,
                ["--", "bash", "-c", script, "bash", peerHome, executable, home.path, String(calls), clavis],
                discardingErrors: true)  // dbus-daemon warns that it may not raise its file limit
            let lines = String(decoding: run.output, as: UTF8.self).split(separator: "\n").map(String.init)
            guard run.status == 0 else { throw SkipReason("the comparison failed: \(lines.joined(separator: "; "))") }
            return lines
        }

        /// Inside the D-Bus session: stores the same secrets with `secret-tool`, then times the commands call by call,
        /// alternating (`clavis` on the keychain itself, `clavis` through a clavisd on it, `secret-tool` through
        /// gnome-keyring-daemon), and prints a row for each and the ratios.
        static func worker(home: String, calls: Int, clavis: String) -> Int32 {
            setenv("CLAVIS_HOME", home, 1)
            guard let secretTool = ChildProcess.find("secret-tool") else { return 2 }
            guard store(calls, with: secretTool) else { return 1 }
            // The same keychain through a clavisd, as secret-tool goes through gnome-keyring-daemon.
            let daemon: DaemonWorkloads.Daemon
            do {
                daemon = try DaemonWorkloads.Daemon(home: home, registering: clavis, as: "clavis")
            } catch {
                print("clavisd did not start: \(error)")
                return 1
            }
            defer { daemon.stop() }
            var peer = Measurement(name: "secret-tool lookup", storeSize: calls)
            var ours = Measurement(name: "clavis find -w", storeSize: calls)
            var oursThroughDaemon = Measurement(name: "clavis find -w (daemon)", storeSize: calls)
            let warmUp = min(10, calls)
            for round in 0..<(warmUp + calls) {
                let index = round % calls
                var peerRun = ChildProcess.Outcome(status: 0, output: Data())
                var ourRun = ChildProcess.Outcome(status: 0, output: Data())
                var ourDaemonRun = ChildProcess.Outcome(status: 0, output: Data())
                let peerCall = {
                    peerRun = ChildProcess.runToEnd(secretTool, ["lookup", "bench", "cli", "id", String(index)])
                }
                let arguments = ["find-generic-password", "-a", "acct-\(index)", "-s", "bench.service", "-w"]
                let ourCall = { ourRun = ChildProcess.runToEnd(clavis, arguments) }
                let ourDaemonCall = {
                    setenv("CLAVIS_SOCKET", daemon.socket, 1)
                    ourDaemonRun = ChildProcess.runToEnd(clavis, arguments)
                    unsetenv("CLAVIS_SOCKET")
                }
                if round < warmUp {
                    peerCall()
                    ourCall()
                    ourDaemonCall()
                } else {
                    peer.time(peerCall)
                    ours.time(ourCall)
                    oursThroughDaemon.time(ourDaemonCall)
                }
                // secret-tool prints the secret as stored; clavis -w ends it with a newline.
                guard peerRun.status == 0, Array(peerRun.output) == Workloads.secret(index) else {
                    print("secret-tool lookup \(index) failed with status \(peerRun.status)")
                    return 1
                }
                for (run, mode) in [(ourRun, "embedded"), (ourDaemonRun, "through clavisd")]
                where run.status != 0 || Array(run.output) != Workloads.secret(index) + [0x0A] {
                    print("clavis find-generic-password \(index) (\(mode)) failed with status \(run.status)")
                    return 1
                }
            }
            printRows(ours: ours, throughDaemon: oursThroughDaemon, peer: peer)
            return 0
        }

        /// Stores the bench's first `count` secrets with `secretTool`, as `lookup` finds them; false when one fails.
        private static func store(_ count: Int, with secretTool: String) -> Bool {
            for index in 0..<count {
                let stored = ChildProcess.runToEnd(
                    secretTool, ["store", "--label=bench-\(index)", "bench", "cli", "id", String(index)],
                    input: Workloads.secret(index))
                guard stored.status == 0 else {
                    print("secret-tool store failed with status \(stored.status)")
                    return false
                }
            }
            return true
        }

        /// The three rows and the ratios of their medians.
        private static func printRows(ours: Measurement, throughDaemon: Measurement, peer: Measurement) {
            print(ours.row)
            print(throughDaemon.row)
            print(peer.row)
            let embeddedRatio = ours.percentile(0.5) / peer.percentile(0.5)
            let daemonRatio = throughDaemon.percentile(0.5) / peer.percentile(0.5)
            print(
                String(
                    format: "clavis find-generic-password -w / secret-tool lookup, p50: %.2fx embedded,", embeddedRatio)
            )
            print(String(format: "    %.2fx through clavisd", daemonRatio))
        }
    }
#endif
