#if os(Linux)
    import Foundation
    import Glibc
    import ClavisSystem

    /// A lookup through the freedesktop Secret Service as Python programs make it (`secretstorage`: a collection's
    /// `SearchItems` by attributes, then the item's `GetSecret` in a `dh-ietf1024-sha256-aes128-cbc-pkcs7` session;
    /// four calls in all, with its property reads), and as the bare protocol makes it (jeepney: the service's
    /// `SearchItems`, then `GetSecrets` in a `plain` session, which leaves out the client's own decryption), against
    /// clavisd's provider and gnome-keyring's, each on a private session bus of its own, call by call alternating in
    /// one Python process.
    enum SecretServiceComparison {
        /// The `clavisd` beside this executable when gnome-keyring, dbus-daemon and Python's `secretstorage` are
        /// installed (the team's gnome-keyring peer script installs them); else why the comparison is skipped.
        static func availability() -> Result<String, CLIComparison.SkipReason> {
            let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            let clavisd = executable.deletingLastPathComponent().appendingPathComponent("clavisd").path
            guard access(clavisd, X_OK) == 0 else {
                return .failure(CLIComparison.SkipReason("no clavisd binary at \(clavisd)"))
            }
            for tool in ["gnome-keyring-daemon", "dbus-daemon", "busctl"] where ChildProcess.find(tool) == nil {
                return .failure(
                    CLIComparison.SkipReason("\(tool) is not installed (bash gnome-keyring-peer.sh --install)"))
            }
            guard ChildProcess.runToEnd(python, ["-c", "import secretstorage"], discardingErrors: true).status == 0
            else {
                return .failure(CLIComparison.SkipReason("\(python) has no secretstorage (python3-secretstorage)"))
            }
            return .success(clavisd)
        }

        /// Debian's Python, where `python3-secretstorage` lives.
        private static let python = "/usr/bin/python3"

        /// Starts both providers, stores `lookups` items in each, times as many lookups on each and returns the
        /// rows and the ratio.
        static func measure(clavisd: String, lookups: Int) throws -> [String] {
            let folder = NSTemporaryDirectory() + "clavis-bench-secret-service-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try Data(lookupScript.utf8).write(to: URL(fileURLWithPath: folder + "/lookups.py"))
            let run = ChildProcess.runToEnd(
                "/bin/bash", ["-c", providersScript, "bash", folder, clavisd, python, String(lookups)],
                discardingErrors: true)  // dbus-daemon warns that it may not raise its file limit
            let lines = String(decoding: run.output, as: UTF8.self).split(separator: "\n").map(String.init)
            guard run.status == 0 else {
                throw CLIComparison.SkipReason("the comparison failed: \(lines.joined(separator: "; "))")
            }
            return lines
        }

        /// Starts a session bus for each provider (gnome-keyring unlocked with a passphrase, clavisd in user mode on
        /// a fresh keychain), waits until each owns `org.freedesktop.secrets`, runs the Python lookups, stops them.
        private static let providersScript = """
            set -eu
            folder="$1" clavisd="$2" python="$3" lookups="$4"
            export HOME="$folder/home" XDG_RUNTIME_DIR="$folder/run" XDG_DATA_HOME="$folder/share"
            mkdir -p -m 700 "$HOME" "$XDG_RUNTIME_DIR" "$XDG_DATA_HOME" "$folder/clavis" "$folder/apps"
            peer="unix:path=$folder/peer.bus" ours="unix:path=$folder/ours.bus"
            pids=""
            trap 'kill $pids 2>/dev/null || true; wait 2>/dev/null || true' EXIT
            dbus-daemon --session --nofork --nopidfile --address="$peer" 2>/dev/null & pids="$pids $!"
            dbus-daemon --session --nofork --nopidfile --address="$ours" 2>/dev/null & pids="$pids $!"
            for _ in $(seq 200); do
                [ -S "$folder/peer.bus" ] && [ -S "$folder/ours.bus" ] && break; sleep 0.05
            done
            printf pass | DBUS_SESSION_BUS_ADDRESS="$peer" gnome-keyring-daemon --foreground --unlock \\
                --components=secrets >"$folder/peer.log" 2>&1 & pids="$pids $!"
            DBUS_SESSION_BUS_ADDRESS="$ours" "$clavisd" --user --socket "$folder/clavisd.sock" \\
                --state "$folder/clavis" --registry "$folder/apps" 2>"$folder/clavisd.log" & pids="$pids $!"
            for address in "$peer" "$ours"; do
                owned=no
                for _ in $(seq 200); do
                    if busctl --address="$address" status org.freedesktop.secrets >/dev/null 2>&1; then
                        owned=yes; break
                    fi
                    sleep 0.05
                done
                [ "$owned" = yes ] || { echo "no Secret Service on $address"; cat "$folder"/*.log; exit 1; }
            done
            "$python" "$folder/lookups.py" "$peer" "$ours" "$lookups"
            """

        /// Stores the same items in both providers, then looks each up in both, both ways, alternating which provider
        /// goes first, and prints a row per provider and way (microseconds) and the ratio of their medians.
        private static let lookupScript = """
            import random, statistics, sys, time
            import secretstorage
            from jeepney import DBusAddress, new_method_call
            from jeepney.io.blocking import open_dbus_connection

            peer_address, ours_address, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
            service = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets",
                                  interface="org.freedesktop.Secret.Service")
            providers = {}
            for name, address in (("gnome-keyring", peer_address), ("clavisd", ours_address)):
                connection = open_dbus_connection(bus=address)
                collection = secretstorage.get_default_collection(connection)
                if collection.is_locked():
                    sys.exit("the %s collection is locked" % name)
                for index in range(count):
                    collection.create_item("bench-%d" % index, {"bench": "ss", "id": str(index)},
                                           b"secret-%d" % index)
                plain = connection.send_and_get_reply(
                    new_method_call(service, "OpenSession", "sv", ("plain", ("s", "")))).body[1]
                providers[name] = (connection, collection, plain)

            def secretstorage_lookup(provider, index):
                items = list(provider[1].search_items({"bench": "ss", "id": str(index)}))
                assert len(items) == 1, "%d items for %d" % (len(items), index)
                assert items[0].get_secret() == b"secret-%d" % index

            def raw_lookup(provider, index):
                connection, _, plain = provider
                unlocked, locked = connection.send_and_get_reply(new_method_call(
                    service, "SearchItems", "a{ss}", ({"bench": "ss", "id": str(index)},))).body
                assert len(unlocked) == 1 and not locked
                secrets = connection.send_and_get_reply(
                    new_method_call(service, "GetSecrets", "aoo", (unlocked, plain))).body[0]
                assert secrets[unlocked[0]][2] == b"secret-%d" % index

            def row(label, name, values):
                values = sorted(values)
                p99 = values[min(len(values) - 1, int(round(0.99 * (len(values) - 1))))]
                return "%s (%s)  n=%d  p50 %.1f  p99 %.1f" % (
                    label, name, len(values), statistics.median(values), p99)

            peer = DBusAddress("/org/freedesktop/secrets", bus_name="org.freedesktop.secrets",
                               interface="org.freedesktop.DBus.Peer")

            def empty_round_trips(provider, index):
                # What the raw lookup's two calls cost with no work behind them: the client, the bus daemon's two
                # relays per call and the provider's message loop. No provider can answer the lookup faster.
                for _ in range(2):
                    provider[0].send_and_get_reply(new_method_call(peer, "Ping"))

            order = list(range(count))
            random.Random(7).shuffle(order)
            medians = {}
            for label, lookup in (("secretstorage search+get_secret", secretstorage_lookup),
                                  ("jeepney SearchItems+GetSecrets, plain", raw_lookup),
                                  ("floor: two Peer.Ping round trips", empty_round_trips)):
                timings = {name: [] for name in providers}
                for turn, index in enumerate(order):
                    names = list(providers) if turn % 2 == 0 else list(reversed(list(providers)))
                    for name in names:
                        start = time.perf_counter_ns()
                        lookup(providers[name], index)
                        timings[name].append((time.perf_counter_ns() - start) / 1000)
                for name, values in timings.items():
                    print(row(label, name, values))
                    medians[(label, name)] = statistics.median(values)
                ratio = medians[(label, "gnome-keyring")] / medians[(label, "clavisd")]
                print("  %s: clavisd %.2fx faster than gnome-keyring (p50, same run)" % (label, ratio))
            floor = min(medians[("floor: two Peer.Ping round trips", name)] for name in providers)
            print("  the most any provider could be faster than gnome-keyring's raw lookup over this bus: %.2fx" % (
                medians[("jeepney SearchItems+GetSecrets, plain", "gnome-keyring")] / floor))
            for name in providers:
                print("  %s's raw lookup: %.2fx its own two empty round trips (issue 38's target for clavisd: 1.5x)" % (
                    name, medians[("jeepney SearchItems+GetSecrets, plain", name)]
                    / medians[("floor: two Peer.Ping round trips", name)]))
            """
    }
#endif
