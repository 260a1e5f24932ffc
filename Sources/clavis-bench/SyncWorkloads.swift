#if os(Linux)
    import ClavisClient
    import ClavisCore
    import ClavisSync
    import Foundation

    /// Sync between two machines through PostgreSQL, as users run it: a clavisd for each, on keychains of their own,
    /// the calls through `KeychainClient`. How long a write on A takes to be readable on B (A's round after the write,
    /// the server's notification, B's round), and how long a new device takes to receive a keychain's items.
    enum SyncWorkloads {
        /// Runs the rows against the PostgreSQL server `database` names (a role that may create schemas and roles:
        /// the schema is installed, and a new account made for the run).
        static func rows(database: String, writes: Int, items: Int) throws -> [String] {
            let administrator = try SyncDatabase(connectionString: database)
            _ = try SyncServerSchema.install(on: administrator)
            let account = "clavis_bench_\(getpid())"
            try SyncServerAccounts.add(account, on: administrator)
            let server = database + " user=\(account)"
            let folder = NSTemporaryDirectory() + "clavis-bench-sync-\(getpid())"
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let a = try Machine(folder: folder, name: "a")
            defer { a.stop() }
            let b = try Machine(folder: folder, name: "b")
            defer { b.stop() }
            _ = try a.client.sync(.enable(server: server, deviceName: "a"))
            try b.join(approvedBy: a, server: server)

            var visible = Measurement(name: "sync: write on A, readable on B", storeSize: writes)
            for index in 0..<writes {
                let service = "latency-\(index)"
                try visible.time {
                    _ = try a.client.add(item(service: service))
                    try b.waitFor(service: service)
                }
            }
            var lines = [visible.row]

            // A new device receives a keychain's items: A holds `items` synced items, all sent, when C is approved.
            for start in stride(from: 0, to: items, by: 1000) {
                for index in start..<min(items, start + 1000) { _ = try a.client.add(item(service: "bulk-\(index)")) }
            }
            _ = try a.client.sync(.now)
            let c = try Machine(folder: folder, name: "c")
            defer { c.stop() }
            let started = ContinuousClock.now
            try c.join(approvedBy: a, server: server)
            // The last item A wrote is the last change C reads: waiting for it costs one lookup a millisecond, where
            // counting every item would take the daemon's time from the round measured.
            try c.waitFor(service: "bulk-\(items - 1)")
            let seconds = started.duration(to: .now)
            try c.check(count: items + writes)
            lines.append(
                "sync: a new device receives \(items + writes) items: \(seconds.formatted(.units(allowed: [.seconds], fractionalPart: .show(length: 2)))) "
                    + "(approval to the last item readable)")
            try administrator.execute("DELETE FROM clavis_sync.records WHERE account = $1", [.text(account)])
            return lines
        }

        /// A synchronizable password named `service`.
        private static func item(service: String) -> NewItem {
            NewItem(
                itemClass: .genericPassword,
                attributes: [
                    .service: .string(service), .account: .string("bench"), .synchronizable: .bool(true),
                    .accessible: .string(ProtectionClass.afterFirstUnlock.rawValue),
                ],
                secret: SecureBytes(Array("secret of \(service)".utf8)))
        }

        /// One machine: a clavisd on a keychain of its own, and a client of it.
        final class Machine {
            let daemon: DaemonWorkloads.Daemon
            let client: KeychainClient

            init(folder: String, name: String) throws {
                let home = folder + "/" + name
                try FileManager.default.createDirectory(atPath: home, withIntermediateDirectories: true)
                let executable = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
                daemon = try DaemonWorkloads.Daemon(
                    home: home, registering: executable, as: APIWorkloads.accessGroup, instance: "-sync-" + name)
                client = try KeychainClient(
                    configuration: ClavisConfiguration.current.with(daemonSocket: daemon.socket))
            }

            /// Joins the circle on `server` with `member`'s approval, and waits until this machine is a member.
            func join(approvedBy member: Machine, server: String) throws {
                let asked = try client.sync(.join(server: server, deviceName: "device"))
                guard let code = asked.joinCode else { throw Workloads.BenchError.status("no join code", -1) }
                _ = try member.client.sync(.approve(code: code))
                while try client.sync(.status).state != .syncing { usleep(1000) }
            }

            /// Waits until the password `service` is readable here.
            func waitFor(service: String) throws {
                let query = ItemQuery(
                    itemClass: .genericPassword, attributes: [.service: .string(service)], synchronizable: .any)
                while try client.find(query).isEmpty { usleep(1000) }
            }

            /// Checks that `count` synchronizable passwords are readable here.
            func check(count: Int) throws {
                let query = ItemQuery(itemClass: .genericPassword, synchronizable: .yes, limit: .all)
                guard try client.find(query).count == count else {
                    throw Workloads.BenchError.status("the new device holds another number of items than \(count)", -1)
                }
            }

            func stop() { daemon.stop() }
        }
    }
#endif
