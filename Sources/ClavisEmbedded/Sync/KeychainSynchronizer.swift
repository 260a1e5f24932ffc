package import ClavisCore
package import ClavisStore
internal import ClavisSync
internal import ClavisSystem
import FoundationEssentials
import Synchronization

/// One keychain's sync: carries out the `SyncCommand`s its administrators give, and runs its rounds. In clavisd a
/// thread of its own runs them (`start`): after each local change, whenever the server says another device wrote
/// (`LISTEN`), and again after a failure, waiting longer each time; in an embedded keychain a round runs on
/// `SyncCommand.now` only. One command or round at a time; each opens its own connection to the server, and the
/// background thread keeps one that listens.
package final class KeychainSynchronizer: Sendable {
    /// The keychain synced.
    package let keychain: Keychain
    /// True when a thread of its own runs the rounds (`start`).
    package let runsInBackground: Bool
    /// Where the background thread says what its rounds did (clavisd's log): each round that changed something,
    /// and each new reason for failing.
    private let report: @Sendable (String) -> Void
    /// What the last round did, or why it failed; held while a command or round runs, so that one runs at a time.
    private let progress = Mutex<Progress>(Progress())
    /// Wakes the background thread: a local change, a command, an unlock.
    private let wake = WakeSignal()
    /// True while the device syncs, so that a local change wakes the thread (and costs nothing otherwise).
    private let syncing = Atomic<Bool>(false)
    /// True when the keychain may have changed since the last round that succeeded (a write, an unlock, a start):
    /// the next round reads every local item; otherwise it only receives.
    private let localChanged = Atomic<Bool>(true)
    private let stopped = Atomic<Bool>(false)

    /// What the last round did, or why it failed.
    struct Progress {
        var lastRound: SyncStatus.Round?
        var lastError: String?
        /// When the keychain's expired tombstones were last removed.
        var lastPurge: Date?
    }

    /// The sync of `keychain`, its rounds run by a thread of their own once `start`ed when `runsInBackground`,
    /// which says what they did through `report`.
    package init(keychain: Keychain, runsInBackground: Bool, report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.keychain = keychain
        self.runsInBackground = runsInBackground
        self.report = report
    }

    /// Starts the background thread (when `runsInBackground`); it runs until `stop`.
    package func start() {
        guard runsInBackground else { return }
        syncing.store(true, ordering: .relaxed)
        if !DetachedThread.start({ self.runRounds() }) {
            syncing.store(false, ordering: .relaxed)
        }
    }

    /// Ends the background thread after its round (the keychain is closing).
    package func stop() {
        stopped.store(true, ordering: .relaxed)
        wake.signal()
    }

    /// Tells the background thread that something changed here that a round may carry: an item written, the
    /// keychain unlocked.
    package func noteLocalChange() {
        localChanged.store(true, ordering: .relaxed)
        if syncing.load(ordering: .relaxed) { wake.signal() }
    }

    /// Carries out `command` and answers how sync stands after it (with the recovery key after an `enable` that
    /// made the circle).
    ///
    /// - Throws: `interactionNotAllowed` before the keychain's first unlock; what the command throws (see
    ///   `SyncCommand`); for `now`, why the round failed.
    package func perform(_ command: SyncCommand) throws(KeychainError) -> SyncStatus {
        let status = try progress.withLock { (progress) throws(KeychainError) -> SyncStatus in
            let kept = KeychainSyncState(keychain: keychain)
            let record = try kept.load()
            let recoveryKey = try carryOut(command, record: record, kept: kept, progress: &progress)
            // How sync stands after it: the record as the command left it (read again when it may have changed).
            var after = self.status(of: command == .status ? record : try kept.load(), progress: progress)
            after.recoveryKey = recoveryKey
            return after
        }
        if command != .status, command != .now {
            syncing.store(true, ordering: .relaxed)
            wake.signal()
        }
        return status
    }

    /// Carries out `command` for the device `record` keeps; the recovery key of a circle `enable` made.
    private func carryOut(
        _ command: SyncCommand, record: SyncDeviceRecord?, kept: KeychainSyncState, progress: inout Progress
    ) throws(KeychainError) -> SecureBytes? {
        switch command {
        case .status:
            return nil
        case .now:
            guard let record, !record.paused else {
                throw KeychainError(.notAvailable, "this device does not sync: clavis sync status says why")
            }
            try runRound(record, on: try SyncDatabase(connectionString: record.server), progress: &progress)
            return nil
        case .disable(let forget):
            guard var record else { return nil }
            if forget {
                try kept.remove()
            } else {
                record.paused = true
                try kept.save(record)
            }
            progress = Progress()
            return nil
        default:
            return try SyncCircleCommands(keychain: keychain).perform(command, record: record)
        }
    }

    /// How sync stands for the device `record` keeps, after the rounds `progress` notes.
    private func status(of record: SyncDeviceRecord?, progress: Progress) -> SyncStatus {
        guard let record else {
            return SyncStatus(state: .off, runsInBackground: runsInBackground)
        }
        var status = SyncStatus(
            state: .syncing, server: record.server, lastRound: progress.lastRound, lastError: progress.lastError,
            runsInBackground: runsInBackground)
        switch record.phase {
        case .joining(let device, let request):
            status.state = .joining
            status.device = SyncStatus.Device(
                identifier: Hexadecimal.text(device.identifier), name: request.member.name)
            status.joinCode = request.code
        case .member(let membership, _):
            status.members = membership.circle.members.map {
                SyncStatus.Device(identifier: Hexadecimal.text($0.identifier), name: $0.name)
            }
            status.device = status.members.first { $0.identifier == Hexadecimal.text(membership.device.identifier) }
        }
        if record.paused { status.state = .paused }
        return status
    }

    /// Runs a round for the device `record` keeps, on `database`, and notes what it did or why it failed.
    func runRound(_ record: SyncDeviceRecord, on database: SyncDatabase, progress: inout Progress)
        throws(KeychainError)
    {
        var record = record
        do {
            let round = try synchronize(&record, on: database)
            let now = Date()
            progress.lastRound = SyncStatus.Round(
                ended: now, applied: round.applied, sent: round.sent, kept: round.kept, refused: round.refused)
            progress.lastError = nil
            // Once a day, the keychain lets go of the deletes no device needs any more (a failure waits a day too:
            // the rows are small, and the next day tries again).
            if progress.lastPurge.map({ now.timeIntervalSince($0) > 24 * 3600 }) ?? true {
                progress.lastPurge = now
                let lifetime = Double(SyncEngine.tombstoneLifetime) / 1000
                _ = try? keychain.removeSynchronizedTombstones(deletedBefore: now.addingTimeInterval(-lifetime))
            }
        } catch {
            progress.lastError = error.reason
            throw error
        }
    }

    /// One round: a device whose request was approved becomes a member first. What the round changed is kept, also
    /// when it failed part way (what it applied or sent stays done).
    private func synchronize(_ record: inout SyncDeviceRecord, on database: SyncDatabase) throws(KeychainError)
        -> SyncEngine.Round
    {
        let kept = KeychainSyncState(keychain: keychain)
        let circles = SyncCircleStore(database: database)
        if case .joining(let device, let request) = record.phase {
            guard let membership = try SyncMembership.joined(device: device, request: request, store: circles) else {
                return SyncEngine.Round()
            }
            record.phase = .member(membership, state: SyncState())
            try kept.save(record)
        }
        guard case .member(let membership, let state) = record.phase else { return SyncEngine.Round() }
        var engine = SyncEngine(membership: membership, state: state)
        // Taken before the round reads the keychain: a write during the round makes the next one read it again.
        let changed = localChanged.exchange(false, ordering: .relaxed)
        defer {
            if engine.state != state || engine.membership.circle != membership.circle
                || engine.membership.keys.count != membership.keys.count
            {
                record.phase = .member(engine.membership, state: engine.state)
                try? kept.save(record)
            }
        }
        do {
            return try engine.synchronize(
                KeychainSyncItems(keychain: keychain), records: SyncRecordStore(database: database), circles: circles,
                localChanged: changed)
        } catch {
            if changed { localChanged.store(true, ordering: .relaxed) }
            throw error
        }
    }

    /// The background thread: a round whenever woken, on a connection that listens for the account's changes.
    private func runRounds() {
        var listening: (server: String, database: SyncDatabase)?
        var failures = 0
        while !stopped.load(ordering: .relaxed) {
            wake.drain()
            let wait = progress.withLock { (progress) -> Int32 in
                let failed = progress.lastError
                do throws(KeychainError) {
                    guard let record = try KeychainSyncState(keychain: keychain).load(), !record.paused else {
                        syncing.store(false, ordering: .relaxed)
                        listening = nil
                        return -1
                    }
                    syncing.store(true, ordering: .relaxed)
                    if listening?.server != record.server {
                        listening = nil
                        let database = try SyncDatabase(connectionString: record.server)
                        try SyncRecordStore(database: database).listenForChanges()
                        listening = (record.server, database)
                    }
                    try runRound(record, on: listening!.database, progress: &progress)
                    if let round = progress.lastRound, round.applied + round.sent + round.kept + round.refused > 0 {
                        report(
                            "sync (\(keychain.home.path)): \(round.applied) applied, \(round.sent) sent, "
                                + "\(round.kept) kept, \(round.refused) refused")
                    } else if failed != nil {
                        report("sync (\(keychain.home.path)): a round succeeded again")
                    }
                    failures = 0
                    // The server's notifications wake the thread; this only bounds how long a lost one delays.
                    return 60_000
                } catch {
                    if failed != error.reason {
                        report("sync (\(keychain.home.path)): a round failed: \(error.reason)")
                    }
                    progress.lastError = error.reason
                    // Locked: an unlock wakes the thread. Otherwise the server or a record failed: try again later,
                    // each time waiting twice as long, up to five minutes.
                    if error.code == .interactionNotAllowed { return 60_000 }
                    if error.code == .notAvailable { listening = nil }
                    failures += 1
                    return Int32(min(300_000, 1_000 << min(failures - 1, 9)))
                }
            }
            waitForWork(on: &listening, milliseconds: wait)
        }
    }

    /// Waits until woken, the server notifies a change (all the notifications waiting are taken at once), or
    /// `milliseconds` pass.
    private func waitForWork(on listening: inout (server: String, database: SyncDatabase)?, milliseconds: Int32) {
        guard let database = listening?.database else {
            wake.wait(milliseconds: milliseconds)
            return
        }
        do throws(KeychainError) {
            guard try database.nextNotification(waitingAtMost: milliseconds, orUntilReadable: wake.descriptor) != nil
            else { return }
            while try database.nextNotification(waitingAtMost: 0) != nil {}
        } catch {
            listening = nil
        }
    }
}
